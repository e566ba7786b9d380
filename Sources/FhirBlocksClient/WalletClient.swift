import ExactJSON
import FhirBlocks

/// The wallet role (the patient's CSA, §1.1): registers with the patient's claims, grants and
/// revokes permissions over its own data, approves or declines apps' SMART authorization
/// requests, lists permissions, gets tokens over its own data, stores
/// FHIR resources in its compartment and reads who saw what (`AuditEvent`) and its `Consent`s.
public struct WalletClient: Sendable {
    /// The scope a wallet asks for over its own data by default: everything, every level.
    public static let ownerScope = "patient/*.cruds conf/V"

    /// The identity-bound calls.
    public let session: CsiSession

    /// A wallet for a saved identity.
    public init(client: FhirBlocksClient, identity: CsiIdentity) {
        session = CsiSession(client: client, identity: identity)
    }

    /// Registers a new wallet (`applicationClass` `org.fhirblocks.csa`) with the patient's claims.
    /// Save ``identity`` afterwards.
    public static func register(client: FhirBlocksClient, claims: PatientClaims, key: CsiSigningKey = .generate(),
                                deviceId: String = CsiIdentity.newDeviceId()) async throws(FhirBlocksClientError) -> WalletClient {
        let identity = try await CsiSession.register(client: client, applicationClass: CsiIdentity.walletApplicationClass,
                                                     claims: claims, key: key, deviceId: deviceId)
        return WalletClient(client: client, identity: identity)
    }

    /// The wallet's identity.
    public var identity: CsiIdentity { session.identity }

    /// Grants `scope` over the patient's data to each grantee during `window`; returns the permission ids.
    public func grant(to grantees: [CsiGuid], scope: PermissionScope, window: TimeWindow) async throws(FhirBlocksClientError) -> [String] {
        try await session.writePermission(to: grantees, scope: scope, window: window)
    }

    /// Revokes every grant to `grantee`; returns the revoked permission ids.
    public func revoke(grantee: CsiGuid) async throws(FhirBlocksClientError) -> [String] {
        try await session.deletePermission(grantee: grantee)
    }

    /// Approves an app's SMART authorization request by the user code its page shows: grants
    /// the requested scopes ∩ `scopes` (all requested when empty) until `until` (the server's
    /// default window when nil). The app's page then returns it to the app with a code.
    public func approve(userCode: String, scopes: [String] = [], until: Timestamp? = nil) async throws(FhirBlocksClientError) -> AuthorizationDecisionResponse {
        try await session.decideAuthorization(userCode: userCode, decision: .approve, scope: scopes.joined(separator: " "), end: until)
    }

    /// Declines an app's SMART authorization request: its page returns it to the app with
    /// `access_denied`.
    public func decline(userCode: String) async throws(FhirBlocksClientError) -> AuthorizationDecisionResponse {
        try await session.decideAuthorization(userCode: userCode, decision: .decline)
    }

    /// The permissions this wallet granted.
    public func permissionsGrantedByMe() async throws(FhirBlocksClientError) -> [PermissionRecord] {
        try await session.permissionsGrantedByMe()
    }

    /// The permissions granted to this wallet.
    public func permissionsGivenToMe() async throws(FhirBlocksClientError) -> [PermissionRecord] {
        try await session.permissionsGivenToMe()
    }

    /// A token over the wallet's own data (`oauth/token`, client credentials, `patient` = itself).
    public func token(scope: String = WalletClient.ownerScope) async throws(FhirBlocksClientError) -> TokenResponse {
        try await session.clientCredentialsToken(scope: scope, patient: identity.csiGuid)
    }

    /// FHIR access with a fresh token over the wallet's own data.
    public func fhir(scope: String = WalletClient.ownerScope) async throws(FhirBlocksClientError) -> FhirResourceClient {
        FhirResourceClient(client: session.client, token: try await token(scope: scope))
    }

    /// Stores a FHIR resource in the wallet's compartment (`PUT /fhir/Type/id`, or `POST` without an id).
    public func store(_ resource: JSONValue) async throws(FhirBlocksClientError) -> JSONValue {
        try await fhir().store(resource)
    }

    /// `GET /fhir/AuditEvent`: who did what with the patient's data (a `searchset` Bundle).
    public func auditEvents() async throws(FhirBlocksClientError) -> JSONValue {
        try await fhir().search(type: "AuditEvent")
    }

    /// `GET /fhir/Consent`: the patient's permissions as R4 `Consent`s (a `searchset` Bundle).
    public func consents() async throws(FhirBlocksClientError) -> JSONValue {
        try await fhir().search(type: "Consent")
    }
}
