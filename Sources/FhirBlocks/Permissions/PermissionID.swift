/// The identifier of one stored permission (granter → grantee edge).
public struct PermissionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The identifier text.
    public let rawValue: String

    /// Wraps an identifier.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A random identifier (a UUID).
    public static func random(using generator: inout some RandomNumberGenerator) -> PermissionID {
        PermissionID(CsiGuid.random(using: &generator).rawValue)
    }

    public static func < (lhs: PermissionID, rhs: PermissionID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
