import FhirBlocks

/// The app role (a DApp, §1.1): registers with empty claims, reads the public claims of a
/// wallet that linked it, passes permissions on to providers and caregivers, and gets tokens
/// through VACA (`vaca/auth` then `vaca/access`) or the token endpoint to read FHIR data.
public struct AppClient: Sendable {
    /// The identity-bound calls.
    public let session: CsiSession

    /// An app for a saved identity.
    public init(client: FhirBlocksClient, identity: CsiIdentity) {
        session = CsiSession(client: client, identity: identity)
    }

    /// Registers a new app (`applicationClass` `org.fhirblocks.dapp`, empty claims). Save
    /// ``identity`` afterwards.
    public static func register(client: FhirBlocksClient, key: CsiSigningKey = .generate(),
                                deviceId: String = CsiIdentity.newDeviceId()) async throws(FhirBlocksClientError) -> AppClient {
        let identity = try await CsiSession.register(client: client, applicationClass: CsiIdentity.appApplicationClass,
                                                     claims: .empty, key: key, deviceId: deviceId)
        return AppClient(client: client, identity: identity)
    }

    /// The app's identity.
    public var identity: CsiIdentity { session.identity }

    /// A wallet's public claims (needs a permission linking the two).
    public func publicClaims(of wallet: CsiGuid) async throws(FhirBlocksClientError) -> [PublicClaim] {
        try await session.fetchPublicClaims(of: wallet)
    }

    /// Passes permissions on: grants each grantee `scope` over `patient`'s data during `window`
    /// (within what the app itself holds from that patient; the server refuses escalation).
    /// Returns the permission ids.
    public func grant(to grantees: [CsiGuid], scope: PermissionScope, window: TimeWindow, patient: CsiGuid) async throws(FhirBlocksClientError) -> [String] {
        try await session.writePermission(to: grantees, scope: scope, window: window, patient: patient)
    }

    /// Revokes every grant from this app to `grantee`.
    public func revoke(grantee: CsiGuid) async throws(FhirBlocksClientError) -> [String] {
        try await session.deletePermission(grantee: grantee)
    }

    /// The permissions this app granted.
    public func permissionsGrantedByMe() async throws(FhirBlocksClientError) -> [PermissionRecord] {
        try await session.permissionsGrantedByMe()
    }

    /// The permissions granted to this app.
    public func permissionsGivenToMe() async throws(FhirBlocksClientError) -> [PermissionRecord] {
        try await session.permissionsGivenToMe()
    }

    /// `vaca/auth`: a single-use code for `scope` (over `wallet`'s data when given).
    public func authorize(scope: String, wallet: CsiGuid? = nil) async throws(FhirBlocksClientError) -> VacaAuthResponse {
        try await session.vacaAuthorize(scope: scope, patient: wallet)
    }

    /// `vaca/access`: redeems a code for a token.
    public func redeem(code: String) async throws(FhirBlocksClientError) -> TokenResponse {
        try await session.vacaAccess(code: code)
    }

    /// VACA end to end: `vaca/auth` then `vaca/access`.
    public func token(scope: String, wallet: CsiGuid? = nil) async throws(FhirBlocksClientError) -> TokenResponse {
        try await session.vacaToken(scope: scope, patient: wallet)
    }

    /// `oauth/token` with client credentials (SMART Backend Services).
    public func clientCredentialsToken(scope: String, wallet: CsiGuid? = nil) async throws(FhirBlocksClientError) -> TokenResponse {
        try await session.clientCredentialsToken(scope: scope, patient: wallet)
    }

    /// FHIR access with `token`.
    public func fhir(token: TokenResponse) -> FhirResourceClient {
        FhirResourceClient(client: session.client, token: token)
    }
}
