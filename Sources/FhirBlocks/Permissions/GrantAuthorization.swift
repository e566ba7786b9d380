/// One permission the decision function allows a grantor to write: the server stores it as a
/// ``Permission`` with a fresh identifier.
public struct GrantAuthorization: Sendable, Hashable {
    /// Whose data.
    public var patient: CsiGuid
    /// Who grants.
    public var grantor: CsiGuid
    /// Who receives.
    public var grantee: CsiGuid
    /// The scope granted (for an unsigned `accessType`, already reduced).
    public var scope: PermissionScope
    /// The window granted.
    public var window: TimeWindow
    /// The grantor's permission it is delegated from (nil for a wallet's own grant).
    public var parent: PermissionID?

    /// Creates an authorization.
    public init(patient: CsiGuid, grantor: CsiGuid, grantee: CsiGuid, scope: PermissionScope, window: TimeWindow, parent: PermissionID?) {
        self.patient = patient
        self.grantor = grantor
        self.grantee = grantee
        self.scope = scope
        self.window = window
        self.parent = parent
    }
}
