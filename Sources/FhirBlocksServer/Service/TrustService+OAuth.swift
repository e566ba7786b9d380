import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// VACA (`vaca/auth`, `vaca/access`, §1.4/§1.8) and the standard OAuth 2.0 endpoints over the
/// same decisions: the SMART backend-services token endpoint, RFC 7662 introspection and
/// RFC 7009 revocation (§2.2, §2.6).
extension TrustService {
    /// The audiences an assertion may name: this server's VACA and token endpoints.
    var audiences: Set<String> {
        let base = baseURL
        var result: Set<String> = []
        for path in ["vaca/auth", "vaca/access", "oauth/token"] {
            result.insert("\(base)/\(path)")
            result.insert("\(base)/smoac/\(path)")
        }
        return result
    }

    var authorizer: VACAAuthorizer {
        VACAAuthorizer(codeLifetimeSeconds: configuration.codeLifetimeSeconds, tokenLifetimeSeconds: configuration.tokenLifetimeSeconds,
                       labelPolicy: configuration.labelPolicy)
    }

    /// Verifies an assertion against its issuer's registered key.
    func verifyAssertion(_ text: String, purpose: AssertionPurpose, body: [UInt8], quirks: [CompatQuirk]) async throws(SMOACError) -> VerifiedAssertion {
        let mode = configuration.mode
        let assertion: CompactAssertion
        let issuer: CsiGuid
        do {
            assertion = try CompactAssertion(text, mode: mode)
            issuer = try AssertionValidator.claimedIssuer(of: assertion)
        } catch {
            throw error.smoacError(purpose: purpose)
        }
        guard let registration = registration(issuer) else {
            tallyUnverifiedRefusal(error: .invalidClient("unknown client"))
            throw purpose == .clientAuthentication ? .invalidClient("unknown client") : .invalidGrant("assertion: unknown issuer")
        }
        let verified: VerifiedAssertion
        do {
            verified = try await AssertionValidator(policy: AssertionPolicy(audiences: audiences), mode: mode)
                .validate(assertion, key: registration.publicKey, registeredDeviceId: registration.deviceId, purpose: purpose, now: now, store: store)
        } catch {
            let failure = error.smoacError(purpose: purpose)
            tallyUnverifiedRefusal(error: failure)
            throw failure
        }
        try requireWithinRate(issuer)
        return verified
    }

    // MARK: VACA

    func vacaAuth(_ body: [UInt8]) async throws(SMOACError) -> ServiceResponse {
        let parsed = try VacaAuthRequest.parse(body, mode: configuration.mode)
        let verified = try await verifyAssertion(parsed.value.assertion, purpose: .authorizationGrant, body: body, quirks: parsed.quirks)
        let instant = now
        let code: AuthorizationCode
        do {
            code = try random { generator throws(SMOACError) in
                try authorizer.issueCode(for: verified, requestedScope: parsed.value.scope, patient: parsed.value.patient.flatMap(CsiGuid.init),
                                         ledger: ledger, now: instant, using: &generator)
            }
        } catch {
            await auditFailure(.codeIssued, agent: verified.issuer.rawValue, error: error, quirks: parsed.quirks + verified.quirks, body: body)
            throw error
        }
        do {
            try await store.put(code)
        } catch {
            throw .storageFailure(error.description)
        }
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .codeIssued, recorded: instant, agent: code.client.rawValue,
                                                                   patient: code.patient.rawValue, permissionIDs: code.permissionIDs.map(\.rawValue),
                                                                   tokenID: Self.identifier(of: code.code), scope: code.scope.text,
                                                                   quirks: (parsed.quirks + verified.quirks).sortedUnique,
                                                                   requestHash: Self.hexSHA256(body)))]
        try await commit(change)
        return .message(code.response(at: instant))
    }

    func vacaAccess(_ body: [UInt8]) async throws(SMOACError) -> ServiceResponse {
        let parsed = try VacaAccessRequest.parse(body, mode: configuration.mode)
        let verified = try await verifyAssertion(parsed.value.clientAssertion, purpose: .clientAuthentication, body: body, quirks: parsed.quirks)
        let taken: AuthorizationCode?
        do {
            taken = try await store.take(parsed.value.code)
        } catch {
            throw .storageFailure(error.description)
        }
        let token = try await mintToken(code: taken, presentedCode: parsed.value.code, assertion: verified, quirks: parsed.quirks, body: body)
        let bare = configuration.mode == .compat && verified.quirks.contains(.codeBoundAssertion)
        let response = token.response(at: token.issuedAt).body(bareToken: bare)
        return ServiceResponse(contentType: bare ? "text/plain; charset=utf-8" : "application/json",
                               headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: response.value)
    }

    /// Redeems a code (taken from the store, or minted on the spot for client credentials),
    /// stores the token and audits it.
    func mintToken(code: AuthorizationCode?, presentedCode: String, assertion: VerifiedAssertion, quirks: [CompatQuirk], body: [UInt8]) async throws(SMOACError) -> AccessToken {
        let instant = now
        let token: AccessToken
        do {
            token = try random { generator throws(SMOACError) in
                try authorizer.redeem(code, presentedCode: presentedCode, clientAssertion: assertion, ledger: ledger, now: instant, using: &generator)
            }
        } catch {
            await auditFailure(.tokenIssued, agent: assertion.issuer.rawValue, error: error, quirks: quirks + assertion.quirks, body: body)
            throw error
        }
        var change = TrustChange()
        change.tokens = [StoredAccessToken(token)]
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .tokenIssued, recorded: instant, agent: token.client.rawValue,
                                                                   patient: token.patient.rawValue, permissionIDs: token.permissionIDs.map(\.rawValue),
                                                                   tokenID: token.id, scope: token.scope.text,
                                                                   quirks: (quirks + assertion.quirks).sortedUnique, requestHash: Self.hexSHA256(body)))]
        try await commit(change)
        metrics.tokensIssued.increment()
        return token
    }

    // MARK: OAuth 2.0

    /// `POST /oauth/token`: `client_credentials` with a `private_key_jwt` client assertion
    /// (SMART backend services), or `authorization_code` (a VACA code) with one; for SMART
    /// public clients `authorization_code` with a PKCE `code_verifier` and `refresh_token`.
    public func token(_ request: ServiceRequest) async -> ServiceResponse {
        do {
            try await refreshLedger()
            let form = try FormBody.parse(request.body, mode: configuration.mode, literalPlusFields: ["client_assertion"])
            guard let grantType = form.value["grant_type"] else { throw SMOACError.malformedRequest("\"grant_type\" is missing") }
            // SMART clients of /oauth/register (public, or with their own assertion key): a code
            // from /oauth/authorize with its PKCE verifier, or a refresh token.
            if grantType == "refresh_token" || (grantType == "authorization_code" && !assertsRegisteredCsi(form.value)) {
                let response = grantType == "refresh_token" ? try await refresh(form.value, body: request.body)
                    : try await exchangePublicCode(form.value, body: request.body)
                return ServiceResponse(headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: response.jsonBytes)
            }
            guard grantType == "client_credentials" || grantType == "authorization_code" else { throw SMOACError.unsupportedGrantType }
            guard form.value["client_assertion_type"] == VacaAuthRequest.jwtBearerAssertionType else {
                throw SMOACError.invalidClient("client_assertion_type must be \(VacaAuthRequest.jwtBearerAssertionType)")
            }
            guard let assertionText = form.value["client_assertion"], !assertionText.isEmpty else {
                throw SMOACError.invalidClient("\"client_assertion\" is missing")
            }
            let verified = try await verifyAssertion(assertionText, purpose: .clientAuthentication, body: request.body, quirks: form.quirks)
            if let clientID = form.value["client_id"], CsiGuid(clientID) != verified.issuer {
                throw SMOACError.invalidClient("client_id does not match the assertion's issuer")
            }
            let token: AccessToken
            if grantType == "authorization_code" {
                guard let presented = form.value["code"], !presented.isEmpty else { throw SMOACError.malformedRequest("\"code\" is missing") }
                let taken: AuthorizationCode?
                do {
                    taken = try await store.take(presented)
                } catch {
                    throw SMOACError.storageFailure(error.description)
                }
                token = try await mintToken(code: taken, presentedCode: presented, assertion: verified, quirks: form.quirks, body: request.body)
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
                        try authorizer.issueCode(for: verified, requestedScope: scope, patient: patient, ledger: ledger, now: instant, using: &generator)
                    }
                } catch {
                    await auditFailure(.tokenIssued, agent: verified.issuer.rawValue, error: error, quirks: form.quirks, body: request.body)
                    // RFC 6749 §5.2 has no access_denied at the token endpoint: nothing held is invalid_scope.
                    if case .accessDenied(let reason) = error { throw SMOACError.invalidScope(reason) }
                    throw error
                }
                token = try await mintToken(code: code, presentedCode: code.code, assertion: verified, quirks: form.quirks, body: request.body)
            }
            return ServiceResponse(headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: token.response(at: token.issuedAt).jsonBytes)
        } catch let error as SMOACError {
            return .error(error)
        } catch {
            return .error(.malformedRequest("unreadable request"))
        }
    }

    /// Authenticates an `Authorization` header value (``BearerAuthenticationMiddleware`` does, once
    /// per request): `.none` without one, `.inactive` when its token is not active, else the
    /// access it grants, confirmed against the store's ledger version.
    func authenticate(authorization header: String?) async -> BearerAuthentication {
        guard let header else { return .none }
        guard let access = await bearer(authorization: header) else { return .inactive }
        return .active(access)
    }

    /// Resolves an `Authorization` header value to its token's stored record and the grants
    /// still usable now, after bringing the ledger up to the store's; nil when missing,
    /// unknown, expired, revoked, or no longer backed by a permission.
    func bearer(authorization header: String?) async -> BearerAccess? {
        guard let header, let presented = BearerCredential.token(fromAuthorization: header, mode: configuration.mode) else { return nil }
        let version: Int64
        do {
            version = try await refreshLedger()
        } catch {
            return nil
        }
        return await access(presented, ledgerVersion: version, ledger: ledger)
    }

    /// Resolves an `Authorization` header value against the ledger installed now, without
    /// reading the store's version (see ``BearerResolution``): the middleware's answer, which
    /// the endpoint confirms.
    func provisionalBearer(authorization header: String) async -> BearerResolution {
        let (version, ledger) = ledgerCache.snapshot
        guard let presented = BearerCredential.token(fromAuthorization: header, mode: configuration.mode) else {
            return BearerResolution(header: header, access: nil, ledgerVersion: version)
        }
        return BearerResolution(header: header, access: await access(presented, ledgerVersion: version, ledger: ledger), ledgerVersion: version)
    }

    /// The presented token's record and the grants `ledger` (of version `version`) backs now.
    private func access(_ presented: Accepted<String>, ledgerVersion version: Int64, ledger: PermissionLedger) async -> BearerAccess? {
        guard let cached = await token(presented: presented.value, ledgerVersion: version), !cached.stored.revoked else { return nil }
        let grants = cached.stored.accessToken(presented: presented.value).grants(at: now, ledger: ledger)
        guard !grants.isEmpty else { return nil }
        return BearerAccess(token: cached.stored, grants: grants, quirks: presented.quirks, scopeText: cached.scopeText)
    }

    /// The stored token presented as `presented`: from memory when it was read while the
    /// ledger's version was `ledgerVersion` (the version this request read; a revocation raises
    /// it and empties the cache), else from the store by its hash, kept for the next request if
    /// that version is still the one installed. Unknown tokens are not kept (one may be issued
    /// at any time). The token's hash (SHA-256, the store's key) is remembered by the token's
    /// text, so a token presented again costs a dictionary lookup, not a hash.
    func token(presented: String, ledgerVersion version: Int64) async -> CachedAccessToken? {
        let (known, cached) = ledgerCache.token(presented: presented, version: version)
        if let cached { return cached }
        let hash = known ?? AccessToken.hash(of: presented)
        guard let stored = try? await store.token(hash: hash) else { return nil }
        let read = CachedAccessToken(stored)
        if !stored.revoked { ledgerCache.keep(read, presented: presented, hash: hash, version: version) }
        return read
    }

    /// `POST /oauth/introspect` (RFC 7662). The caller authenticates with any active bearer
    /// token, and learns about a token only if it was issued to the caller's own client or the
    /// caller is one of the server's auditors (``ServerConfiguration/auditors``); any other
    /// token is `{"active": false}`, as if unknown (RFC 7662 §2.2: a server may decline to
    /// describe a token to a caller not entitled to it).
    public func introspect(_ request: ServiceRequest) async -> ServiceResponse {
        guard let caller = await bearer(authorization: request.headers["authorization"]) else { return Self.introspectionUnauthenticated() }
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
    /// Revoking a refresh token revokes its family: the permissions its approval wrote, so the
    /// refresh token, every refresh token rotated from it and every access token issued from
    /// that approval stop working at once (RFC 7009 §2.1). `token_type_hint` only orders the
    /// lookups: a missing, unknown or wrong hint still finds the token. Always 200 (an unknown
    /// token included) unless the form has no token or the store fails.
    public func revoke(_ request: ServiceRequest) async -> ServiceResponse {
        guard let form = try? FormBody.parse(request.body, mode: .strict).value, let presented = form["token"], !presented.isEmpty else {
            return .error(.malformedRequest("\"token\" is missing"))
        }
        let hash = AccessToken.hash(of: presented)
        _ = try? await refreshLedger()
        let refreshFirst = form["token_type_hint"] == "refresh_token"
        do {
            if refreshFirst {
                if try await revokeRefreshToken(hash: hash) == false { try await revokeAccessToken(hash: hash) }
            } else {
                if try await revokeAccessToken(hash: hash) == false { try await revokeRefreshToken(hash: hash) }
            }
        } catch {
            return .error(error)
        }
        return ServiceResponse(body: Array("{}".utf8))
    }

    /// Revokes the access token whose SHA-256 is `hash`; returns whether one is stored.
    @discardableResult
    private func revokeAccessToken(hash: String) async throws(SMOACError) -> Bool {
        let found: StoredAccessToken?
        do {
            found = try await store.token(hash: hash)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let stored = found else { return false }
        guard !stored.revoked else { return true }
        var change = TrustChange()
        change.revokedTokenHashes = [hash]
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionRevoke, recorded: now, agent: stored.client.rawValue,
                                                                   patient: stored.patient.rawValue, tokenID: stored.id, reason: "token-revoked"))]
        try await commit(change)
        return true
    }

    /// Revokes the family of the refresh token whose SHA-256 is `hash` (the permissions it rests
    /// on); returns whether one is stored.
    @discardableResult
    private func revokeRefreshToken(hash: String) async throws(SMOACError) -> Bool {
        let found: StoredRefreshToken?
        do {
            found = try await store.refreshToken(hash: hash)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let stored = found else { return false }
        try await revokeFamily(of: stored.permissionIDs, client: stored.client, patient: stored.patient, reason: "refresh-token-revoked",
                               outcome: .success)
        return true
    }

    /// A short identifier of a secret (the first 16 hex digits of its SHA-256), for audit
    /// entries that must name a code without revealing it.
    static func identifier(of secret: String) -> String {
        String(hexSHA256(Array(secret.utf8)).prefix(16))
    }
}
