import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Hummingbird

/// OAuth 2.0 and SMART App Launch: discovery (at the root and under `/fhir`), the token,
/// authorization, registration, introspection and revocation endpoints under `/oauth`, with
/// their handlers (the SMART standalone launch's in `+Authorize`, `+Token` and
/// `+Registration`). The discovery document is the `DiscoveryHandler`'s. Introspection
/// authenticates its caller by bearer token (``BearerAuthenticationMiddleware``, `required`:
/// the handler runs with the caller's access). Given the ledger and token cache, the committer
/// with the audit log, and the rate limits; the backend-services token grant shares the VACA
/// endpoints' ``TokenIssuer``.
struct SmartAuthorizationController: RateLimitedEndpoints {
    /// The parts of the store the handlers read and write themselves (every other write goes
    /// through the committer): SMART apps, authorizations and refresh tokens, and access tokens
    /// introspected or revoked (`TokenStore`), the purge of unapproved apps (`LedgerStore`),
    /// backend clients (`BackendClientStore`), the replay cache of client assertions
    /// (`NonceStore`) and VACA's authorization codes (`AuthorizationCodeStore`).
    typealias Store = LedgerStore & TokenStore & BackendClientStore & NonceStore & AuthorizationCodeStore

    /// The store's parts the handlers read (``Store``).
    let store: any Store
    let trustLedger: TrustLedger
    let committer: ChangeCommitter
    let rateLimits: RateLimits
    let discovery: DiscoveryHandler

    /// The largest form the token, introspection and revocation endpoints read.
    static let formLimit = 64 * 1024

    init(store: any Store, trustLedger: TrustLedger, committer: ChangeCommitter, rateLimits: RateLimits, discovery: DiscoveryHandler) {
        self.store = store
        self.trustLedger = trustLedger
        self.committer = committer
        self.rateLimits = rateLimits
        self.discovery = discovery
    }

    /// The controller over `service`'s components.
    init(service: TrustService) {
        self.init(store: service.store, trustLedger: service.trustLedger, committer: service.committer, rateLimits: service.rateLimits,
                  discovery: service.discovery)
    }

    /// The assertions and tokens the token endpoint shares with the VACA endpoints.
    var tokens: TokenIssuer { TokenIssuer(store: store, trustLedger: trustLedger, committer: committer, rateLimits: rateLimits) }

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let discovery = self.discovery
        for path in [".well-known/smart-configuration", "fhir/.well-known/smart-configuration"] {
            router.get(RouterPath(path)) { _, _ in FhirBlocksRouter.bridge(discovery.smartConfiguration()) }
        }
        let oauth = router.group("oauth")
        oauth.post("token") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: Self.formLimit) { await token($0) }
        }
        oauth.get("authorize") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await authorize($0) }
        }
        oauth.post("register") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: Self.maximumRegistrationBody) { await registerClient($0) }
        }
        oauth.post("revoke") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: Self.formLimit) { await revoke($0) }
        }
        let introspection = BearerAuthenticationMiddleware(
            ledger: trustLedger, policy: .required(refusal: Self.introspectionUnauthenticated(), bodyLimit: Self.formLimit))
        oauth.group("introspect").add(middleware: introspection).post { request, context in
            guard let caller = context.access else { return FhirBlocksRouter.bridge(Self.introspectionUnauthenticated()) }
            return try await FhirBlocksRouter.handle(request, context: context, limit: Self.formLimit) { await introspect($0, caller: caller) }
        }
    }

    // MARK: Handlers

    /// `POST /oauth/token`: `client_credentials` with a `private_key_jwt` client assertion
    /// (SMART backend services), or `authorization_code` (a VACA code) with one; for SMART
    /// public clients `authorization_code` with a PKCE `code_verifier` and `refresh_token`.
    /// Every answer, a refusal included, carries `Cache-Control: no-store` and
    /// `Pragma: no-cache` (RFC 6749 §5.1, §5.2).
    func token(_ request: ServiceRequest) async -> ServiceResponse {
        var response = await tokenAnswer(request)
        for (name, value) in [("Cache-Control", "no-store"), ("Pragma", "no-cache")] {
            response.headers.removeAll { $0.0.lowercased() == name.lowercased() }
            response.headers.append((name, value))
        }
        return response
    }

    /// The token endpoint's answer, before ``token(_:)`` adds its cache headers.
    private func tokenAnswer(_ request: ServiceRequest) async -> ServiceResponse {
        do {
            try await refreshLedger()
            let form = try FormBody.parse(request.body, mode: configuration.mode, literalPlusFields: ["client_assertion"])
            guard let grantType = form.value["grant_type"] else { throw SMOACError.malformedRequest("\"grant_type\" is missing") }
            // SMART Backend Services: a client registered with its key set (`+Backend`).
            if grantType == "client_credentials", let backend = try await claimedBackendClient(form.value) {
                return try await backendToken(form.value, client: backend, body: request.body)
            }
            // SMART clients of /oauth/register (public, or with their own assertion key): a code
            // from /oauth/authorize with its PKCE verifier, or a refresh token.
            if grantType == "refresh_token" || (grantType == "authorization_code" && !assertsRegisteredCsi(form.value)) {
                let response = grantType == "refresh_token" ? try await refresh(form.value, body: request.body)
                    : try await exchangePublicCode(form.value, body: request.body)
                return ServiceResponse(headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: response.jsonBytes)
            }
            guard grantType == "client_credentials" || grantType == "authorization_code" else { throw SMOACError.unsupportedGrantType }
            let verified = try await authenticatedCsi(form.value, quirks: form.quirks, body: request.body)
            let token: AccessToken
            if grantType == "authorization_code" {
                guard let presented = form.value["code"], !presented.isEmpty else { throw SMOACError.malformedRequest("\"code\" is missing") }
                let taken: AuthorizationCode?
                do {
                    taken = try await store.take(presented)
                } catch {
                    throw SMOACError.storageFailure(error.description)
                }
                token = try await tokens.mintToken(code: taken, presentedCode: presented, assertion: verified, quirks: form.quirks, body: request.body)
            } else {
                guard let scope = form.value["scope"], !scope.isEmpty else { throw SMOACError.invalidScope("\"scope\" is missing") }
                var patient: CsiGuid?
                if let text = form.value["patient"] {
                    guard let parsed = CsiGuid(text) else { throw SMOACError.malformedRequest("\"patient\" is not a 36-character UUID") }
                    patient = parsed
                }
                let instant = now
                let code: AuthorizationCode
                do {
                    code = try random { generator throws(SMOACError) in
                        try tokens.authorizer.issueCode(for: verified, requestedScope: scope, patient: patient, ledger: ledger, now: instant, using: &generator)
                    }
                } catch {
                    await auditFailure(.tokenIssued, agent: verified.issuer.rawValue, error: error, quirks: form.quirks, body: request.body)
                    // RFC 6749 §5.2 has no access_denied at the token endpoint: nothing held is invalid_scope.
                    if case .accessDenied(let reason) = error { throw SMOACError.invalidScope(reason) }
                    throw error
                }
                token = try await tokens.mintToken(code: code, presentedCode: code.code, assertion: verified, quirks: form.quirks, body: request.body)
            }
            return ServiceResponse(headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: token.response(at: token.issuedAt).jsonBytes)
        } catch let error as SMOACError {
            return .error(error)
        } catch {
            return .error(.malformedRequest("unreadable request"))
        }
    }

    /// `POST /oauth/introspect` (RFC 7662). The caller authenticates with any active bearer
    /// token, and learns about a token only if it was issued to the caller's own client or the
    /// caller is one of the server's auditors (``ServerConfiguration/auditors``); any other
    /// token is `{"active": false}`, as if unknown (RFC 7662 §2.2: a server may decline to
    /// describe a token to a caller not entitled to it).
    func introspect(_ request: ServiceRequest) async -> ServiceResponse {
        guard let caller = await trustLedger.bearer(authorization: request.headers["authorization"]) else { return Self.introspectionUnauthenticated() }
        return await introspect(request, caller: caller)
    }

    /// The answer to an introspection request without an active bearer token.
    static func introspectionUnauthenticated() -> ServiceResponse {
        .error(.invalidClient("introspection needs an active bearer token"))
    }

    /// `POST /oauth/introspect` for a caller already authenticated (``BearerAuthenticationMiddleware``).
    func introspect(_ request: ServiceRequest, caller: BearerAccess) async -> ServiceResponse {
        let form: FormBody
        do {
            form = try FormBody.parse(request.body, mode: .strict).value
        } catch {
            return .error(error)
        }
        guard let presented = form["token"], !presented.isEmpty else { return .error(.malformedRequest("\"token\" is missing")) }
        var answer = IntrospectionResponse.inactive
        let callerClient = caller.token.client
        if let stored = try? await store.token(hash: AccessToken.hash(of: presented)), !stored.revoked,
           stored.client == callerClient || configuration.auditors.contains(callerClient) {
            answer = stored.accessToken(presented: presented).introspection(at: now, ledger: ledger)
        }
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .tokenIntrospected, recorded: now, agent: callerClient.rawValue,
                                                                   patient: answer.patient, tokenID: caller.token.id,
                                                                   reason: answer.active ? nil : "inactive"))]
        do {
            try await commit(change)
        } catch {
            return .error(error)
        }
        return ServiceResponse(headers: [("Cache-Control", "no-store")], body: answer.jsonBytes)
    }

    /// `POST /oauth/revoke` (RFC 7009): revokes the access or refresh token given in the form.
    /// The client authenticates as at the token endpoint (RFC 7009 §2.1): a confidential client
    /// with its `private_key_jwt` client assertion (a registered csi, a backend client, or an
    /// app of `/oauth/register` with a key), a public client with its `client_id`; without that,
    /// `401 invalid_client` (``authenticateClient(_:quirks:body:)``, the token endpoint's). Only a
    /// token issued to that client is revoked: another client's valid token is refused, 400
    /// `unauthorized_client`, and left alone (§2.1); an unknown or invalid token answers 200 (§2.2).
    /// Revoking a refresh token revokes its family: the permissions its approval wrote, so the
    /// refresh token, every refresh token rotated from it and every access token issued from
    /// that approval stop working at once (RFC 7009 §2.1). `token_type_hint` only orders the
    /// lookups: a missing, unknown or wrong hint still finds the token. Always 200 (an unknown
    /// token included) unless the form has no token, the client is not authenticated, the token
    /// is another client's or the store fails.
    func revoke(_ request: ServiceRequest) async -> ServiceResponse {
        let form: FormBody
        let quirks: [CompatQuirk]
        do {
            let parsed = try FormBody.parse(request.body, mode: configuration.mode, literalPlusFields: ["client_assertion"])
            (form, quirks) = (parsed.value, parsed.quirks)
        } catch {
            return .error(error)
        }
        guard let presented = form["token"], !presented.isEmpty else {
            return .error(.malformedRequest("\"token\" is missing"))
        }
        let hash = AccessToken.hash(of: presented)
        _ = try? await refreshLedger()
        let refreshFirst = form["token_type_hint"] == "refresh_token"
        do {
            let client = try await authenticateClient(form, quirks: quirks, body: request.body)
            let found: RevocationLookup
            if refreshFirst {
                let refresh = try await revokeRefreshToken(hash: hash, of: client)
                found = refresh == .unknown ? try await revokeAccessToken(hash: hash, of: client) : refresh
            } else {
                let access = try await revokeAccessToken(hash: hash, of: client)
                found = access == .unknown ? try await revokeRefreshToken(hash: hash, of: client) : access
            }
            if found == .anotherClients {
                // RFC 7009 §2.1: a token not issued to the requesting client is refused with an error.
                let body = ErrorBody(error: "unauthorized_client", errorDescription: "the token was not issued to this client")
                return ServiceResponse(status: 400, headers: [("Cache-Control", "no-store")], body: body.jsonBytes)
            }
        } catch {
            return .error(error)
        }
        return ServiceResponse(body: Array("{}".utf8))
    }

    /// What a revocation found under a hash: nothing, a token of the requesting client, or another client's.
    enum RevocationLookup { case unknown, revoked, anotherClients }

    /// The client of a token or revocation request whose `client_assertion` names a registered
    /// csi (VACA and backend-services clients): its assertion verified (with the form's compat
    /// `quirks`, so both endpoints accept the same assertions), and `client_id`, when given, its issuer.
    func authenticatedCsi(_ form: FormBody, quirks: [CompatQuirk], body: [UInt8]) async throws(SMOACError) -> VerifiedAssertion {
        guard form["client_assertion_type"] == VacaAuthRequest.jwtBearerAssertionType else {
            throw .invalidClient("client_assertion_type must be \(VacaAuthRequest.jwtBearerAssertionType)")
        }
        guard let assertionText = form["client_assertion"], !assertionText.isEmpty else {
            throw .invalidClient("\"client_assertion\" is missing")
        }
        let verified = try await tokens.verifyAssertion(assertionText, purpose: .clientAuthentication, body: body, quirks: quirks)
        if let clientID = form["client_id"], CsiGuid(clientID) != verified.issuer {
            throw .invalidClient("client_id does not match the assertion's issuer")
        }
        return verified
    }

    /// The client of a request, authenticated as the token endpoint authenticates it: a backend
    /// client's assertion (checked against its key set), a registered csi's
    /// (``authenticatedCsi(_:quirks:body:)``), else a SMART client of `/oauth/register` (its
    /// assertion when it has a key, its `client_id` when public; `smartClient(_:)`).
    func authenticateClient(_ form: FormBody, quirks: [CompatQuirk], body: [UInt8]) async throws(SMOACError) -> CsiGuid {
        if let assertionText = form["client_assertion"] {
            guard form["client_assertion_type"] == VacaAuthRequest.jwtBearerAssertionType else {
                throw .invalidClient("client_assertion_type must be \(VacaAuthRequest.jwtBearerAssertionType)")
            }
            if let backend = try await claimedBackendClient(form) {
                let app: SmartClient?
                do {
                    app = try await store.smartClient(backend.clientID)
                } catch {
                    throw .storageFailure(error.description)
                }
                if app == nil {
                    if let claimed = form["client_id"], claimed != backend.clientID.rawValue {
                        throw .invalidClient("client_id does not match the assertion's issuer")
                    }
                    try await verifyKeySetAssertion(assertionText, client: backend)
                    return backend.clientID
                }
            } else if assertsRegisteredCsi(form) {
                return try await authenticatedCsi(form, quirks: quirks, body: body).issuer
            }
        }
        return try await smartClient(form).clientID
    }

    /// Revokes the access token whose SHA-256 is `hash` when it was issued to `client`; returns
    /// what it found (another client's token is left alone).
    private func revokeAccessToken(hash: String, of client: CsiGuid) async throws(SMOACError) -> RevocationLookup {
        let found: StoredAccessToken?
        do {
            found = try await store.token(hash: hash)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let stored = found else { return .unknown }
        guard stored.client == client else { return .anotherClients }
        guard !stored.revoked else { return .revoked }
        var change = TrustChange()
        change.revokedTokenHashes = [hash]
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionRevoke, recorded: now, agent: stored.client.rawValue,
                                                                   patient: stored.patient.rawValue, tokenID: stored.id, reason: "token-revoked"))]
        try await commit(change)
        return .revoked
    }

    /// Revokes the family of the refresh token whose SHA-256 is `hash` (the permissions it rests
    /// on) when it was issued to `client`; returns what it found (another client's is left alone).
    private func revokeRefreshToken(hash: String, of client: CsiGuid) async throws(SMOACError) -> RevocationLookup {
        let found: StoredRefreshToken?
        do {
            found = try await store.refreshToken(hash: hash)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let stored = found else { return .unknown }
        guard stored.client == client else { return .anotherClients }
        try await revokeFamily(of: stored.permissionIDs, client: stored.client, patient: stored.patient, reason: "refresh-token-revoked",
                               outcome: .success)
        return .revoked
    }
}
