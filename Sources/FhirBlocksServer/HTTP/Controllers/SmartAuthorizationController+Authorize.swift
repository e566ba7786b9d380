import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// SMART App Launch 2.0 standalone launch, `GET /oauth/authorize` (RFC 6749 §4.1 with RFC 7636
/// PKCE S256): the patient approves with their wallet by a short user code, not with a password
/// the server keeps.
extension SmartAuthorizationController {
    /// The FHIR base URL an `/authorize` request's `aud` must name.
    var fhirBaseURL: String { "\(baseURL)/fhir" }

    /// `GET /oauth/authorize`.
    ///
    /// Refusals found before a valid request is stored are shown, never redirected (a page, 400;
    /// `{"error","error_description"}` with `Accept: application/json`): first the client and
    /// its exact redirect URI (RFC 6749 §4.1.2.1), then the request itself (`response_type`,
    /// `aud`, PKCE, scope, sizes) and the rate limits (429). Anyone may register a client with
    /// any redirect URI, so redirecting such errors would make this server an open redirector
    /// (RFC 9700 §4.11.1). A valid request waits for the wallet: an HTML page with the user code
    /// that reloads itself, or with `Accept: application/json` `{"user_code","expires_in","interval"}`.
    /// Its outcome is redirected with `state`: once the wallet decided, `code` (or
    /// `error=access_denied`), and `access_denied` when it expired unanswered.
    func authorize(_ request: ServiceRequest) async -> ServiceResponse {
        let wantsJSON = request.headers["accept"]?.lowercased().contains("application/json") ?? false
        func refuse(_ error: String, _ message: String, status: Int = 400, retryAfter: Int? = nil) -> ServiceResponse {
            countRefusal(error)
            return AuthorizationPage.refusal(message, status: status, error: error, json: wantsJSON, retryAfter: retryAfter)
        }
        let query: FormBody
        do {
            query = try FormBody.parse(Array(request.rawQuery.utf8), mode: .strict).value
        } catch {
            return refuse("invalid_request", "The request's parameters cannot be read: \(error.errorDescription).")
        }
        guard let clientText = query["client_id"], let clientID = CsiGuid(clientText) else {
            return refuse("invalid_client", "The app is not registered with this server (unknown client_id).")
        }
        let client: SmartClient?
        do {
            client = try await store.smartClient(clientID)
        } catch {
            return AuthorizationPage.refusal("The server cannot read its data now; try again.", status: 500, error: "server_error", json: wantsJSON)
        }
        guard let client else {
            return refuse("invalid_client", "The app is not registered with this server (unknown client_id).")
        }
        guard let redirectURI = query["redirect_uri"], client.redirectURIs.contains(redirectURI) else {
            return refuse("invalid_redirect_uri", "The redirect_uri is not one the app registered.")
        }
        let state = query["state"]
        guard query["response_type"] == "code" else { return refuse("unsupported_response_type", "response_type must be code.") }
        guard let audience = query["aud"], audience == fhirBaseURL || audience == fhirBaseURL + "/" else {
            return refuse("invalid_request", "aud must be this server's FHIR base URL.")
        }
        guard query["code_challenge_method"] == PKCE.method else {
            return refuse("invalid_request", "PKCE is required with code_challenge_method S256.")
        }
        guard let challenge = query["code_challenge"], challenge.utf8.count == 43, PKCE.isWellFormed(challenge) else {
            return refuse("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the verifier.")
        }
        guard let scope = query["scope"], scope.contains(where: { $0 != " " }) else { return refuse("invalid_scope", "scope is missing.") }
        guard scope.utf8.count <= 2_000, (state?.utf8.count ?? 0) <= 1_000 else { return refuse("invalid_request", "scope or state is too long.") }

        let id = Self.hexSHA256(Array([clientID.rawValue, redirectURI, scope, state ?? "", challenge, audience].joined(separator: "\n").utf8))
        var found: SmartAuthorization?
        do {
            found = try await store.smartAuthorization(id: id)
            if found == nil {
                // New requests: per address, and per client (whichever addresses it uses).
                for key in ["address " + ClientAddress.current, "client " + clientID.rawValue] {
                    if let retryAfter = rateLimits.authorization.take(key, now: now) {
                        metrics.rateLimited(kind: "authorization")
                        return refuse("temporarily_unavailable", "Too many authorization requests; retry in \(retryAfter) s.", status: 429,
                                      retryAfter: retryAfter)
                    }
                }
                found = try await createAuthorization(id: id, client: client, redirectURI: redirectURI, scope: scope, state: state,
                                                      challenge: challenge)
            }
        } catch {
            return AuthorizationPage.refusal("The server cannot store the request now; try again.", status: 500, error: "server_error", json: wantsJSON)
        }
        guard let authorization = found else {
            return AuthorizationPage.refusal("The server cannot store the request now; try again.", status: 500, error: "server_error", json: wantsJSON)
        }
        func fail(_ error: String, _ description: String) -> ServiceResponse {
            countRefusal(error)
            return Self.redirect(to: redirectURI, [("error", error), ("error_description", description)], state: state)
        }
        let instant = now
        switch authorization.status {
        case .pending:
            guard instant < authorization.expiresAt else { return fail("access_denied", "the patient did not answer in time") }
            let expiresIn = authorization.expiresAt.milliseconds(since: instant) / 1000
            if wantsJSON {
                var object = JSONObject()
                object.append("user_code", UserCode.display(authorization.userCode))
                object.append("expires_in", .number(String(expiresIn)))
                object.append("interval", .number(String(AuthorizationPage.interval)))
                return .json(.object(object), headers: [("Cache-Control", "no-store")])
            }
            return AuthorizationPage.waiting(client: client, authorization: authorization, expiresIn: expiresIn)
        case .declined:
            return fail("access_denied", "the patient declined")
        case .approved:
            return await issueCode(for: authorization)
        case .codeIssued, .redeemed, .refused:
            return AuthorizationPage.refusal("This authorization was already used. Start again from the app.", json: wantsJSON)
        }
    }

    /// Counts a refused `/authorize` request (anonymous: counted, not logged per request; each
    /// checkpoint period writes one audit entry per reason, as for other unverified callers).
    private func countRefusal(_ reason: String) {
        committer.auditLog.refusals.record(.authorizationRequested, reason: reason)
        metrics.unverifiedRefusals(reason: reason)
    }

    /// Stores a new pending authorization with a fresh user code; when another request created
    /// the same one meanwhile, returns that one. Anyone can ask, so the request is counted in
    /// the audit log (``RefusalTally``), not logged; the wallet's decision is logged. Pending
    /// authorizations whose wait ended are deleted with it, the others a day after they ended.
    private func createAuthorization(id: String, client: SmartClient, redirectURI: String, scope: String, state: String?,
                                     challenge: String) async throws(TrustStoreError) -> SmartAuthorization? {
        let instant = now
        let authorization = SmartAuthorization(id: id, userCode: random { UserCode.random(using: &$0) }, client: client.clientID,
                                               redirectURI: redirectURI, requestedScope: scope, state: state, codeChallenge: challenge,
                                               createdAt: instant, expiresAt: instant.adding(seconds: configuration.authorizationLifetimeSeconds))
        var change = TrustChange()
        change.smartAuthorizations = [SmartAuthorizationWrite(authorization, expecting: nil)]
        change.pendingSmartAuthorizationsExpiredBefore = instant
        // Authorizations nobody finished are forgotten a day after they stopped waiting.
        change.smartAuthorizationsExpiringBefore = instant.adding(seconds: -86_400)
        do {
            try await storeCommit(change)
        } catch .conflict {
            return try await store.smartAuthorization(id: id)
        }
        committer.auditLog.refusals.record(.authorizationRequested, reason: "requested", outcome: .success)
        return authorization
    }

    /// Hands the approved authorization's code to the app (once): a single-use code, valid for
    /// the configured code lifetime (≤ 60 s), bound to client, redirect URI and PKCE challenge.
    private func issueCode(for authorization: SmartAuthorization) async -> ServiceResponse {
        let instant = now
        let code = random { VACAAuthorizer.randomToken(using: &$0) }
        var updated = authorization
        updated.status = .codeIssued
        updated.codeHash = AccessToken.hash(of: code)
        updated.codeExpiresAt = instant.adding(seconds: tokens.authorizer.codeLifetimeSeconds)
        var change = TrustChange()
        change.smartAuthorizations = [SmartAuthorizationWrite(updated, expecting: .approved)]
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .codeIssued, recorded: instant, agent: authorization.client.rawValue,
                                                                   patient: authorization.patient?.rawValue,
                                                                   permissionIDs: authorization.permissionIDs.map(\.rawValue),
                                                                   tokenID: AuditDigest.identifier(of: code), scope: authorization.grantedScope?.text))]
        do {
            try await storeCommit(change)
        } catch .conflict {
            return AuthorizationPage.refusal("This authorization was already used. Start again from the app.")
        } catch {
            return AuthorizationPage.refusal("The server cannot store the code now; try again.", status: 500)
        }
        return Self.redirect(to: authorization.redirectURI, [("code", code)], state: authorization.state)
    }

    /// `302` to `uri` with `parameters` (and `state` when the request had one) added to its query.
    static func redirect(to uri: String, _ parameters: [(String, String)], state: String?) -> ServiceResponse {
        var fields = parameters.map { (name: $0.0, value: $0.1) }
        if let state { fields.append((name: "state", value: state)) }
        let query = String(decoding: FormBody(fields: fields).encoded(), as: UTF8.self)
        let location = uri + (uri.contains("?") ? "&" : "?") + query
        return ServiceResponse(status: 302, contentType: "text/plain; charset=utf-8", headers: [("Location", location), ("Cache-Control", "no-store")],
                               body: [])
    }
}
