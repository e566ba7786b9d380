import Crypto

/// An opaque access token and the claims the server keeps for it (§1.8): client, patient,
/// granted scope and the permission ids it rests on, so every use re-checks revocation.
/// Lifetime at most 300 s.
public struct AccessToken: Sendable, Hashable {
    /// The bearer token (base64url of 32 random bytes). Store ``tokenHash``, not this.
    public var token: String
    /// A random identifier for audit entries (never the token).
    public var id: String
    /// The client.
    public var client: CsiGuid
    /// Whose data.
    public var patient: CsiGuid
    /// The granted scope.
    public var scope: GrantedScope
    /// The permissions the grant rests on.
    public var permissionIDs: [PermissionID]
    /// When it was issued.
    public var issuedAt: Timestamp
    /// When it expires.
    public var expiresAt: Timestamp

    /// Creates a token.
    public init(token: String, id: String, client: CsiGuid, patient: CsiGuid, scope: GrantedScope, permissionIDs: [PermissionID],
                issuedAt: Timestamp, expiresAt: Timestamp) {
        self.token = token
        self.id = id
        self.client = client
        self.patient = patient
        self.scope = scope
        self.permissionIDs = permissionIDs
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// Lowercase hex SHA-256 of a token: the storage key.
    public static func hash(of token: String) -> String {
        Hex.encode(SHA256.hash(data: Array(token.utf8)))
    }

    /// Lowercase hex SHA-256 of the token.
    public var tokenHash: String { Self.hash(of: token) }

    /// The RFC 6749 token response.
    public func response(at now: Timestamp) -> TokenResponse {
        TokenResponse(accessToken: token, expiresIn: max(0, expiresAt.milliseconds(since: now) / 1000), scope: scope.text, patient: patient.rawValue)
    }

    /// The grants still usable at `now`: none once expired; otherwise those the ledger still
    /// backs (a revoked permission removes its grants at the next request).
    public func grants(at now: Timestamp, ledger: PermissionLedger) -> [PermissionScope] {
        guard now < expiresAt, issuedAt <= now else { return [] }
        return ledger.tokenGrants(scope.grants, permissionIDs: permissionIDs, client: client, patient: patient, at: now)
    }

    /// The RFC 7662 introspection answer at `now`: active with the token's scope, client, patient
    /// and times while it has usable grants, else only `{"active": false}`.
    public func introspection(at now: Timestamp, ledger: PermissionLedger) -> IntrospectionResponse {
        let usable = grants(at: now, ledger: ledger)
        guard !usable.isEmpty else { return .inactive }
        return IntrospectionResponse(active: true, scope: scope.text, clientID: client.rawValue, exp: expiresAt.secondsSince1970,
                                     iat: issuedAt.secondsSince1970, sub: client.rawValue, patient: patient.rawValue, tokenType: "Bearer")
    }
}
