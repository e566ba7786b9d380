/// A half-open validity interval `[notBefore, notAfter)`.
public struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// The first instant of validity.
    public var notBefore: Timestamp
    /// The first instant after validity.
    public var notAfter: Timestamp

    /// Creates a window (empty when `notAfter <= notBefore`).
    public init(notBefore: Timestamp, notAfter: Timestamp) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Every instant.
    public static let always = TimeWindow(notBefore: Timestamp(millisecondsSince1970: .min), notAfter: Timestamp(millisecondsSince1970: .max))

    /// Whether the window contains no instant.
    public var isEmpty: Bool { notAfter <= notBefore }

    /// Whether `instant` is inside.
    public func contains(_ instant: Timestamp) -> Bool { notBefore <= instant && instant < notAfter }

    /// Whether this window lies entirely inside `other`.
    public func isWithin(_ other: TimeWindow) -> Bool { other.notBefore <= notBefore && notAfter <= other.notAfter }

    /// The overlap of two windows (possibly empty).
    public func intersection(_ other: TimeWindow) -> TimeWindow {
        TimeWindow(notBefore: max(notBefore, other.notBefore), notAfter: min(notAfter, other.notAfter))
    }

    public var description: String { "[\(notBefore.wireText), \(notAfter.wireText))" }
}
