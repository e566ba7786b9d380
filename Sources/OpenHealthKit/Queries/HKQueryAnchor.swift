import Foundation

/// An opaque position in a store's change history (HealthKit's `HKQueryAnchor`).
///
/// Persist it with `NSKeyedArchiver` (it is `NSSecureCoding`) or with ``data`` and
/// ``init(data:)``. An anchor names the store it came from; using it with another store fails
/// with `HealthStoreError.invalidAnchor`.
public final class HKQueryAnchor: NSObject, NSSecureCoding, @unchecked Sendable {
    let storeID: String
    let sequence: Int64

    init(storeID: String, sequence: Int64) {
        self.storeID = storeID
        self.sequence = sequence
    }

    /// A legacy integer anchor (HealthKit's `anchorFromValue:`), valid with any store.
    public convenience init(fromValue value: Int) {
        self.init(storeID: "", sequence: Int64(value))
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(storeID as NSString, forKey: "store")
        coder.encode(sequence, forKey: "sequence")
        coder.encode(1, forKey: "version")
    }

    public init?(coder: NSCoder) {
        guard let store = coder.decodeObject(of: NSString.self, forKey: "store") else { return nil }
        self.storeID = store as String
        self.sequence = coder.decodeInt64(forKey: "sequence")
    }

    /// A compact, versioned serialisation: `ohk1:<store>:<sequence>`.
    public var data: Data { Data("ohk1:\(storeID):\(sequence)".utf8) }

    /// Restores an anchor from ``data``; nil when the bytes are not an anchor.
    public convenience init?(data: Data) {
        let parts = String(decoding: data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ohk1", let sequence = Int64(parts[2]), sequence >= 0 else { return nil }
        self.init(storeID: String(parts[1]), sequence: sequence)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKQueryAnchor else { return false }
        return other.storeID == storeID && other.sequence == sequence
    }

    public override var hash: Int { sequence.hashValue }

    public override var description: String { "HKQueryAnchor(\(sequence))" }

    /// The change number to read after, checked against the store; nil for the legacy
    /// `HKAnchoredObjectQueryNoAnchor` value, which means "from the beginning".
    func position(in database: HealthDatabase) throws -> Int64? {
        guard storeID.isEmpty || storeID == database.storeID else {
            throw HealthStoreError(.invalidAnchor, "the anchor belongs to another store")
        }
        if storeID.isEmpty, sequence == Int64(HKAnchoredObjectQueryNoAnchor) { return nil }
        return sequence
    }
}

/// HealthKit's "no anchor" value for legacy integer anchors.
public let HKAnchoredObjectQueryNoAnchor = 0
