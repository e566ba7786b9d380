/// One stored grant: `grantor` gives `grantee` the `scope` over `patient`'s data during
/// `window`. A wallet's own grants are roots (`parent == nil`, `grantor == patient`); a delegated
/// grant names the permission its grantor relied on, so revoking or expiring any edge of the
/// chain disables everything below it at the next check.
public struct Permission: Sendable, Hashable, Identifiable {
    /// The identifier.
    public var id: PermissionID
    /// The wallet (patient) at the root of the chain.
    public var patient: CsiGuid
    /// Who granted it.
    public var grantor: CsiGuid
    /// Who received it.
    public var grantee: CsiGuid
    /// What it covers.
    public var scope: PermissionScope
    /// When it is valid.
    public var window: TimeWindow
    /// The grantor's own permission this one was delegated from (nil for a wallet's grant).
    public var parent: PermissionID?
    /// When it was written.
    public var grantedAt: Timestamp
    /// When it was revoked, if it was.
    public var revokedAt: Timestamp?

    /// Creates a permission.
    public init(id: PermissionID, patient: CsiGuid, grantor: CsiGuid, grantee: CsiGuid, scope: PermissionScope,
                window: TimeWindow, parent: PermissionID?, grantedAt: Timestamp, revokedAt: Timestamp? = nil) {
        self.id = id
        self.patient = patient
        self.grantor = grantor
        self.grantee = grantee
        self.scope = scope
        self.window = window
        self.parent = parent
        self.grantedAt = grantedAt
        self.revokedAt = revokedAt
    }

    /// Creates the permission an authorization allows.
    public init(id: PermissionID, authorization: GrantAuthorization, grantedAt: Timestamp) {
        self.init(id: id, patient: authorization.patient, grantor: authorization.grantor, grantee: authorization.grantee,
                  scope: authorization.scope, window: authorization.window, parent: authorization.parent, grantedAt: grantedAt)
    }

    /// Whether it was revoked at or before `instant`.
    public func isRevoked(at instant: Timestamp) -> Bool {
        guard let revokedAt else { return false }
        return revokedAt <= instant
    }

    /// The record the listing endpoints return.
    public func record(at instant: Timestamp) -> PermissionRecord {
        PermissionRecord(permissionId: id.rawValue, grantingCsiGuid: grantor.rawValue, permissionedCsiGuids: [grantee.rawValue],
                         startTime: window.notBefore.wireText, endTime: window.notAfter.wireText, heartScope: scope.heartScope,
                         status: isRevoked(at: instant) ? "revoked" : "active", patientCsiGuid: patient.rawValue)
    }
}
