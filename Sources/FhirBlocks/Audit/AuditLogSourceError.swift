/// A log source could not be read (unreachable server, unreadable database). Not a finding
/// about the log's integrity: the verification did not take place.
public struct AuditLogSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, without patient data.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
