/// A value read from the wire together with the compat quirks that had to be accepted to read
/// it (empty in ``ProtocolMode/strict``, and for compat inputs that needed no leniency).
public struct Accepted<Value> {
    /// The value.
    public var value: Value
    /// The quirks used, in the order they were met, without duplicates.
    public var quirks: [CompatQuirk]

    /// Creates an accepted value.
    public init(_ value: Value, quirks: [CompatQuirk] = []) {
        self.value = value
        self.quirks = []
        for quirk in quirks where !self.quirks.contains(quirk) { self.quirks.append(quirk) }
    }
}

extension Accepted: Sendable where Value: Sendable {}
extension Accepted: Equatable where Value: Equatable {}
