import FhirBlocks

/// An access token as stored: everything but the token itself, which is kept only as its
/// SHA-256 (a database leak does not leak usable tokens).
public struct StoredAccessToken: Sendable, Hashable {
    /// Lowercase hex SHA-256 of the bearer token.
    public var tokenHash: String
    /// The token's audit identifier.
    public var id: String
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
    /// Expires.
    public var expiresAt: Timestamp
    /// Revoked through RFC 7009, if it was.
    public var revoked: Bool

    /// Creates a record.
    public init(tokenHash: String, id: String, client: CsiGuid, patient: CsiGuid, scope: GrantedScope, permissionIDs: [PermissionID],
                issuedAt: Timestamp, expiresAt: Timestamp, revoked: Bool = false) {
        self.tokenHash = tokenHash
        self.id = id
        self.client = client
        self.patient = patient
        self.scope = scope
        self.permissionIDs = permissionIDs
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.revoked = revoked
    }

    /// The record of a freshly issued token.
    public init(_ token: AccessToken) {
        self.init(tokenHash: token.tokenHash, id: token.id, client: token.client, patient: token.patient, scope: token.scope,
                  permissionIDs: token.permissionIDs, issuedAt: token.issuedAt, expiresAt: token.expiresAt)
    }

    /// The token's claims as the core's `AccessToken` (with `token` set to the presented one).
    public func accessToken(presented token: String) -> AccessToken {
        AccessToken(token: token, id: id, client: client, patient: patient, scope: scope, permissionIDs: permissionIDs,
                    issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
