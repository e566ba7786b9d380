import ExactJSON
import FhirBlocks

/// A registered csi talking to its server: every SMOAC and OAuth call that needs its identity.
/// ``WalletClient`` and ``AppClient`` expose the calls that fit their role.
///
/// Each signed request gets a fresh envelope (`dateTime` from the server-adjusted clock, a
/// random nonce) and is signed with `RequestSigner` in the client's style; the first call
/// synchronises the clock with `util/getTime`.
public struct CsiSession: Sendable {
    /// The `client_assertion_type` of RFC 7523 client authentication.
    public static let jwtBearerClientAssertionType = VacaAuthRequest.jwtBearerAssertionType

    /// The server connection.
    public let client: FhirBlocksClient
    /// Who is calling.
    public let identity: CsiIdentity

    /// Creates a session.
    public init(client: FhirBlocksClient, identity: CsiIdentity) {
        self.client = client
        self.identity = identity
    }

    // MARK: Registration

    /// A signed `csi/requestCsiRegistration` binding `guid` (from
    /// `util/getGloballyUniqueIdentifier`) to `key`, dated by the client's clock.
    public static func registrationRequest(client: FhirBlocksClient, guid: CsiGuid, applicationClass: String, claims: PatientClaims,
                                           key: CsiSigningKey, deviceId: String) throws(FhirBlocksClientError) -> CsiRegistrationRequest {
        for (name, value) in [("applicationClass", applicationClass), ("deviceId", deviceId)] + claims.publicClaims.map({ ($0.key, $0.value) })
        where value.utf8.contains(UInt8(ascii: "|")) {
            throw .invalidRequest("\(name) may not contain '|'")
        }
        guard !deviceId.isEmpty else { throw .invalidRequest("deviceId is empty") }
        guard !applicationClass.isEmpty else { throw .invalidRequest("applicationClass is empty") }
        var request = CsiRegistrationRequest(applicationClass: applicationClass, envelope: client.envelope(csiGuid: guid, cipherField: .cipherSpec),
                                             deviceId: deviceId, publicClaims: claims.publicClaims, publicKey: key.publicKey.spkiBase64)
        try client.sign(&request, with: key)
        return request
    }

    /// Registers a new csi: `util/getGloballyUniqueIdentifier`, then a signed
    /// `csi/requestCsiRegistration` binding that GUID to `key`. Returns the identity to save.
    public static func register(client: FhirBlocksClient, applicationClass: String, claims: PatientClaims,
                                key: CsiSigningKey = .generate(),
                                deviceId: String = CsiIdentity.newDeviceId()) async throws(FhirBlocksClientError) -> CsiIdentity {
        try await client.synchronizeClockIfNeeded()
        let guid = try await client.newGloballyUniqueIdentifier()
        let request = try registrationRequest(client: client, guid: guid, applicationClass: applicationClass, claims: claims,
                                              key: key, deviceId: deviceId)
        let response = try await client.send(request, expecting: GuidResponse.self)
        guard let registered = CsiGuid(response.guid) else {
            throw .malformedResponse(endpoint: request.endpoint.path, reason: "guid is not a UUID")
        }
        return CsiIdentity(csiGuid: registered, key: key, deviceId: deviceId, applicationClass: applicationClass)
    }

    // MARK: Building signed requests

    private static var blankEnvelope: SMOACEnvelope {
        SMOACEnvelope(csiGuid: "", dateTime: "", nonce: "", signature: "")
    }

    /// `request` with a fresh envelope for this identity (the client clock's `dateTime`, a new
    /// nonce), signed. The clock is used as it is (see ``FhirBlocksClient/synchronizeClock()``).
    public func signed<Request: SignedRequest>(_ request: Request) throws(FhirBlocksClientError) -> Request {
        var signed = request
        signed.envelope = client.envelope(csiGuid: identity.csiGuid, cipherField: request.envelope.cipherField)
        try client.sign(&signed, with: identity.key)
        return signed
    }

    /// A signed `csi/fetchPublicClaims` for `target`.
    public func fetchPublicClaimsRequest(of target: CsiGuid) throws(FhirBlocksClientError) -> FetchPublicClaimsRequest {
        try signed(FetchPublicClaimsRequest(envelope: Self.blankEnvelope, desiredCsiGuid: target.rawValue))
    }

    /// A signed `permission/writePermission` granting each grantee `scope` during `window`
    /// (`accessType` included, as strict mode requires), over `patient`'s data (nil: the
    /// caller's own, for a wallet).
    public func writePermissionRequest(to grantees: [CsiGuid], scope: PermissionScope, window: TimeWindow,
                                       patient: CsiGuid? = nil) throws(FhirBlocksClientError) -> WritePermissionRequest {
        guard !grantees.isEmpty else { throw .invalidRequest("no grantee") }
        guard !window.isEmpty else { throw .invalidRequest("the time window is empty (the end must be after the start)") }
        let body = PermissionGrantBody(startTime: window.notBefore.wireText, endTime: window.notAfter.wireText,
                                       timeStamp: client.clock.now().wireText, grantees: grantees.map(\.rawValue),
                                       heartScope: scope.heartScope, patientCsiGuid: patient?.rawValue)
        return try signed(WritePermissionRequest(envelope: Self.blankEnvelope, permission: body))
    }

    /// A signed `permission/deletePermission` for `grantee`.
    public func deletePermissionRequest(grantee: CsiGuid) throws(FhirBlocksClientError) -> DeletePermissionRequest {
        try signed(DeletePermissionRequest(envelope: Self.blankEnvelope, permissionedGuidBeingDeleted: grantee.rawValue))
    }

    /// A signed `permission/fetchPermissionsPreviouslyGrantedByMe`.
    public func permissionsGrantedByMeRequest() throws(FhirBlocksClientError) -> FetchPermissionsGrantedByMeRequest {
        try signed(FetchPermissionsGrantedByMeRequest(envelope: Self.blankEnvelope))
    }

    /// A signed `permission/fetchPermissionsGivenToMe`.
    public func permissionsGivenToMeRequest() throws(FhirBlocksClientError) -> FetchPermissionsGivenToMeRequest {
        try signed(FetchPermissionsGivenToMeRequest(envelope: Self.blankEnvelope))
    }

    /// A signed `permission/decideAuthorization` for the user code an app's authorization page
    /// shows: approve (with the chosen scope, empty for all requested, until `end`, nil for the
    /// server's default) or decline.
    public func decideAuthorizationRequest(userCode: String, decision: DecideAuthorizationRequest.Decision, scope: String = "",
                                           end: Timestamp? = nil) throws(FhirBlocksClientError) -> DecideAuthorizationRequest {
        for (name, value) in [("user code", userCode), ("scope", scope)] where value.utf8.contains(UInt8(ascii: "|")) {
            throw .invalidRequest("the \(name) may not contain '|'")
        }
        return try signed(DecideAuthorizationRequest(envelope: Self.blankEnvelope, userCode: userCode, decision: decision, scope: scope,
                                                     endTime: end?.wireText ?? ""))
    }

    // MARK: Signed SMOAC calls

    /// `permission/decideAuthorization`: answers an app's SMART authorization request.
    public func decideAuthorization(userCode: String, decision: DecideAuthorizationRequest.Decision, scope: String = "",
                                    end: Timestamp? = nil) async throws(FhirBlocksClientError) -> AuthorizationDecisionResponse {
        try await client.synchronizeClockIfNeeded()
        return try await client.send(try decideAuthorizationRequest(userCode: userCode, decision: decision, scope: scope, end: end),
                                     expecting: AuthorizationDecisionResponse.self)
    }

    /// `csi/fetchPublicClaims`: another csi's public claims (the server answers only when a
    /// permission links the two, or for the caller itself).
    public func fetchPublicClaims(of target: CsiGuid) async throws(FhirBlocksClientError) -> [PublicClaim] {
        try await client.synchronizeClockIfNeeded()
        return try await client.send(try fetchPublicClaimsRequest(of: target), expecting: PublicClaimsResponse.self).claims
    }

    /// `permission/writePermission`: grants each grantee `scope` during `window` over
    /// `patient`'s data (nil: the caller's own, for a wallet). Returns the new permission ids.
    public func writePermission(to grantees: [CsiGuid], scope: PermissionScope, window: TimeWindow,
                                patient: CsiGuid? = nil) async throws(FhirBlocksClientError) -> [String] {
        try await client.synchronizeClockIfNeeded()
        return try await client.send(try writePermissionRequest(to: grantees, scope: scope, window: window, patient: patient),
                                     expecting: WritePermissionResponse.self).permissionIds
    }

    /// `permission/deletePermission`: revokes every grant from this csi to `grantee`. Returns
    /// the revoked permission ids.
    public func deletePermission(grantee: CsiGuid) async throws(FhirBlocksClientError) -> [String] {
        try await client.synchronizeClockIfNeeded()
        return try await client.send(try deletePermissionRequest(grantee: grantee), expecting: DeletePermissionResponse.self).revokedPermissionIds
    }

    /// `permission/fetchPermissionsPreviouslyGrantedByMe`.
    public func permissionsGrantedByMe() async throws(FhirBlocksClientError) -> [PermissionRecord] {
        try await client.synchronizeClockIfNeeded()
        return try await client.send(try permissionsGrantedByMeRequest(), expecting: PermissionsResponse.self).permissions
    }

    /// `permission/fetchPermissionsGivenToMe`.
    public func permissionsGivenToMe() async throws(FhirBlocksClientError) -> [PermissionRecord] {
        try await client.synchronizeClockIfNeeded()
        return try await client.send(try permissionsGivenToMeRequest(), expecting: PermissionsResponse.self).permissions
    }

    // MARK: OAuth

    /// A client assertion for the endpoint at `path` (its URL is the audience), dated by the
    /// client's clock as it is.
    public func assertionNow(for path: String, scope: String? = nil, code: String? = nil) throws(FhirBlocksClientError) -> String {
        try ClientAssertion.make(identity: identity, audience: client.baseURL.audience(path), now: client.clock.now(),
                                 lifetimeSeconds: client.configuration.assertionLifetimeSeconds, scope: scope, code: code)
    }

    /// A client assertion for the endpoint at `path`, after synchronising the clock if needed.
    public func assertion(for path: String, scope: String? = nil, code: String? = nil) async throws(FhirBlocksClientError) -> String {
        try await client.synchronizeClockIfNeeded()
        return try assertionNow(for: path, scope: scope, code: code)
    }

    /// The form of a `client_credentials` token request with a client assertion for
    /// `BASE/oauth/token`, dated by the client's clock as it is.
    public func clientCredentialsForm(scope: String, patient: CsiGuid? = nil) throws(FhirBlocksClientError) -> FormBody {
        var fields: [(name: String, value: String)] = [
            ("grant_type", "client_credentials"),
            ("scope", scope),
            ("client_assertion_type", Self.jwtBearerClientAssertionType),
            ("client_assertion", try assertionNow(for: Self.tokenPath)),
        ]
        if let patient { fields.append(("patient", patient.rawValue)) }
        return FormBody(fields: fields)
    }

    /// The token endpoint's path.
    public static let tokenPath = "oauth/token"

    /// `POST oauth/token` with `grant_type=client_credentials` and an ES256 client assertion
    /// (SMART Backend Services). `patient` selects whose data (a wallet csiGuid).
    public func clientCredentialsToken(scope: String, patient: CsiGuid? = nil) async throws(FhirBlocksClientError) -> TokenResponse {
        try await client.synchronizeClockIfNeeded()
        return try await client.postForm(Self.tokenPath, form: try clientCredentialsForm(scope: scope, patient: patient), as: TokenResponse.self)
    }

    /// `POST vaca/auth`: an RFC 7523 JWT-bearer grant for `scope` (over `patient`'s data when
    /// given) → a single-use code.
    public func vacaAuthorize(scope: String, patient: CsiGuid? = nil) async throws(FhirBlocksClientError) -> VacaAuthResponse {
        let path = SMOACEndpoint.vacaAuth.path
        let request = VacaAuthRequest(assertion: try await assertion(for: path, scope: scope), scope: scope, patient: patient?.rawValue)
        return try await client.postForm(path, form: request.form, as: VacaAuthResponse.self)
    }

    /// `POST vaca/access`: the code and a client assertion bound to it → an access token.
    public func vacaAccess(code: String) async throws(FhirBlocksClientError) -> TokenResponse {
        let path = SMOACEndpoint.vacaAccess.path
        let request = VacaAccessRequest(code: code, clientAssertion: try await assertion(for: path, code: code))
        return try await client.postForm(path, form: request.form, as: TokenResponse.self)
    }

    /// `vaca/auth` then `vaca/access`.
    public func vacaToken(scope: String, patient: CsiGuid? = nil) async throws(FhirBlocksClientError) -> TokenResponse {
        let code = try await vacaAuthorize(scope: scope, patient: patient)
        return try await vacaAccess(code: code.code)
    }
}
