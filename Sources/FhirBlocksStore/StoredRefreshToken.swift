import FhirBlocks

/// A refresh token as stored (only its SHA-256): the grant it renews, the authorization it
/// descends from (its family) and whether it was used. Each use rotates it: the presented token
/// is marked used and a new one issued; presenting a used one again revokes the family's
/// permissions. It dies with the permissions it rests on, and at the end of their window.
public struct StoredRefreshToken: Sendable, Hashable {
    /// Lowercase hex SHA-256 of the token.
    public var tokenHash: String
    /// The ``SmartAuthorization/id`` it descends from.
    public var authorizationID: String
    /// The client.
    public var client: CsiGuid
    /// Whose data.
    public var patient: CsiGuid
    /// The granted scope.
    public var scope: GrantedScope
    /// The permissions it rests on.
    public var permissionIDs: [PermissionID]
    /// Issued.
    public var issuedAt: Timestamp
    /// Expires (the end of the approved window).
    public var expiresAt: Timestamp
    /// Whether it was already exchanged.
    public var used: Bool

    /// Creates a record.
    public init(tokenHash: String, authorizationID: String, client: CsiGuid, patient: CsiGuid, scope: GrantedScope, permissionIDs: [PermissionID],
                issuedAt: Timestamp, expiresAt: Timestamp, used: Bool = false) {
        self.tokenHash = tokenHash
        self.authorizationID = authorizationID
        self.client = client
        self.patient = patient
        self.scope = scope
        self.permissionIDs = permissionIDs
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.used = used
    }
}
