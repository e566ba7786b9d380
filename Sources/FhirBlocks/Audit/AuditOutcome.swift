/// The R4 `AuditEvent.outcome` codes.
public enum AuditOutcome: Int, Sendable, Hashable, CaseIterable {
    /// Success.
    case success = 0
    /// Minor failure (the request was refused).
    case minorFailure = 4
    /// Serious failure.
    case seriousFailure = 8
    /// Major failure.
    case majorFailure = 12
}
