import FhirBlocks

/// One SMART standalone-launch authorization, from the app's `/authorize` request to the code
/// exchange: the request (client, exact redirect URI, scope, `state`, PKCE challenge), the user
/// code the patient approves with, the wallet's decision (patient, granted scope, the
/// permissions written) and the authorization code, kept only as its SHA-256.
///
/// The ``id`` is the SHA-256 of the request's parameters, so loading the same `/authorize` URL
/// again finds the same authorization.
public struct SmartAuthorization: Sendable, Hashable {
    /// Where an authorization is.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Waiting for the wallet.
        case pending
        /// Approved; the code is issued when the app's page is loaded next.
        case approved
        /// Declined: the page redirects with `access_denied`.
        case declined
        /// The code was handed to the app.
        case codeIssued = "code-issued"
        /// The code was exchanged for tokens; presenting it again revokes them.
        case redeemed
        /// An exchange failed (wrong verifier, redirect URI or client): the code is dead.
        case refused
    }

    /// Lowercase hex SHA-256 of the request parameters.
    public var id: String
    /// The user code (stored form, see `UserCode`).
    public var userCode: String
    /// The client.
    public var client: CsiGuid
    /// The redirect URI of the request (one of the client's, exactly).
    public var redirectURI: String
    /// The requested scope string.
    public var requestedScope: String
    /// The `state` to echo, if any.
    public var state: String?
    /// The PKCE S256 challenge.
    public var codeChallenge: String
    /// When the request arrived.
    public var createdAt: Timestamp
    /// When the wallet can no longer decide (and the page stops waiting).
    public var expiresAt: Timestamp
    /// Where it is.
    public var status: Status
    /// The approving wallet (the patient), once decided.
    public var patient: CsiGuid?
    /// The granted scope, once approved.
    public var grantedScope: GrantedScope?
    /// The permissions the approval wrote.
    public var permissionIDs: [PermissionID]
    /// Whether `offline_access` was granted (a refresh token comes with the access token).
    public var offline: Bool
    /// Lowercase hex SHA-256 of the authorization code, once issued.
    public var codeHash: String?
    /// When the code stops being redeemable.
    public var codeExpiresAt: Timestamp?

    /// Creates a record.
    public init(id: String, userCode: String, client: CsiGuid, redirectURI: String, requestedScope: String, state: String?,
                codeChallenge: String, createdAt: Timestamp, expiresAt: Timestamp, status: Status = .pending, patient: CsiGuid? = nil,
                grantedScope: GrantedScope? = nil, permissionIDs: [PermissionID] = [], offline: Bool = false, codeHash: String? = nil,
                codeExpiresAt: Timestamp? = nil) {
        self.id = id
        self.userCode = userCode
        self.client = client
        self.redirectURI = redirectURI
        self.requestedScope = requestedScope
        self.state = state
        self.codeChallenge = codeChallenge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.status = status
        self.patient = patient
        self.grantedScope = grantedScope
        self.permissionIDs = permissionIDs
        self.offline = offline
        self.codeHash = codeHash
        self.codeExpiresAt = codeExpiresAt
    }
}

/// A conditional write of a ``SmartAuthorization``: inserted when ``expectedStatus`` is nil
/// (the id must be new), otherwise replaced only if the stored one still has that status, so
/// of two concurrent decisions or code exchanges exactly one commits (the other gets
/// ``TrustStoreError/conflict(_:)`` and the whole change is rolled back).
public struct SmartAuthorizationWrite: Sendable, Hashable {
    /// The new state.
    public var authorization: SmartAuthorization
    /// The status it must have now (nil: it must not exist yet).
    public var expectedStatus: SmartAuthorization.Status?

    /// Creates a write.
    public init(_ authorization: SmartAuthorization, expecting expectedStatus: SmartAuthorization.Status?) {
        self.authorization = authorization
        self.expectedStatus = expectedStatus
    }
}
