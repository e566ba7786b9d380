/// A single-use code issued by `vaca/auth`, bound to the client, the patient and the granted
/// scope (with the permission ids it rests on), valid for at most 60 s.
public struct AuthorizationCode: Sendable, Hashable {
    /// The code (base64url of 32 random bytes).
    public var code: String
    /// The client it was issued to.
    public var client: CsiGuid
    /// Whose data.
    public var patient: CsiGuid
    /// The granted scope.
    public var scope: GrantedScope
    /// The permissions the grant rests on.
    public var permissionIDs: [PermissionID]
    /// When it was issued.
    public var issuedAt: Timestamp
    /// When it stops being redeemable.
    public var expiresAt: Timestamp

    /// Creates a code.
    public init(code: String, client: CsiGuid, patient: CsiGuid, scope: GrantedScope, permissionIDs: [PermissionID], issuedAt: Timestamp,
                expiresAt: Timestamp) {
        self.code = code
        self.client = client
        self.patient = patient
        self.scope = scope
        self.permissionIDs = permissionIDs
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// The `vaca/auth` response.
    public func response(at now: Timestamp) -> VacaAuthResponse {
        VacaAuthResponse(code: code, scope: scope.text, expiresIn: max(0, expiresAt.milliseconds(since: now) / 1000))
    }
}
