/// A permission that is in force at some instant, after checking its whole chain: the scope and
/// window a holder may use or pass on, and the permission it comes from (nil for a wallet over
/// its own data).
public struct HeldPermission: Sendable, Hashable {
    /// Whose data.
    public var patient: CsiGuid
    /// Who holds it.
    public var holder: CsiGuid
    /// What it covers.
    public var scope: PermissionScope
    /// When it is valid.
    public var window: TimeWindow
    /// The permission (nil: the wallet's ownership of its own data).
    public var permissionID: PermissionID?
    /// The chain from this permission up to the wallet's grant.
    public var chain: [PermissionID]

    /// Creates a held permission.
    public init(patient: CsiGuid, holder: CsiGuid, scope: PermissionScope, window: TimeWindow, permissionID: PermissionID?, chain: [PermissionID]) {
        self.patient = patient
        self.holder = holder
        self.scope = scope
        self.window = window
        self.permissionID = permissionID
        self.chain = chain
    }
}
