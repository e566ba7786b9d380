import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// SMART Backend Services (SMART App Launch 2.x, `backend-services.html`): a client registers a
/// JSON Web Key Set (inline `jwks`, or a `jwks_uri` the server fetches) at `/oauth/register`
/// with `grant_types` `["client_credentials"]`, and asks the token endpoint for a token with a
/// client assertion signed `ES256`, `ES384` or `RS384` by one of those keys (found by `kid`).
///
/// Its token carries `system/` scopes and stands for the client itself (its `patient` is the
/// client's own id, a compartment that holds nothing): what it covers is the patients whose
/// wallets granted the client, as a grant names any app, by its id. A Bulk Data export with it
/// reads each such patient's compartment through that patient's grants (`system/` read as
/// `patient/`, ``BackendServices/patientForm(of:)``), as the read path filters it.
extension SmartAuthorizationController {
    /// Whether a registration body asks for a backend client (`grant_types` holds `client_credentials`).
    static func isBackendRegistration(_ body: [UInt8]) -> Bool {
        guard let object = (try? JSONParser.parse(body, maximumDepth: 16))?.objectValue, let types = object["grant_types"]?.arrayValue else {
            return false
        }
        return types.contains(.string("client_credentials"))
    }

    /// `POST /oauth/register` of a backend client: `grant_types` exactly `["client_credentials"]`,
    /// `token_endpoint_auth_method` `private_key_jwt` (or absent), no `redirect_uris`, and
    /// exactly one of `jwks` (with at least one usable signature key that has a `kid`) and
    /// `jwks_uri` (`https`; `http` to a loopback address only when
    /// ``ServerConfiguration/allowsLoopbackKeySetURLs``). `201` with the `client_id`;
    /// `400 invalid_client_metadata` otherwise; `429` past the per-address registration rate,
    /// and `429` (`too_many_requests`, `Retry-After`) once
    /// ``ServerConfiguration/maximumBackendClients`` are registered.
    func registerBackendClient(_ request: ServiceRequest) async -> ServiceResponse {
        let client: BackendClient
        do {
            client = try backendRegistration(request.body)
        } catch {
            tallyUnverifiedRefusal(.clientRegistration, error: .malformedRequest(error.errorCode))
            return Self.registrationError(error)
        }
        if let retryAfter = rateLimits.registration.take(ClientAddress.current, now: now) {
            metrics.rateLimited(kind: "registration")
            return .error(.rateLimited(retryAfterSeconds: retryAfter))
        }
        do {
            try await store.registerBackendClient(client, limit: configuration.maximumBackendClients)
        } catch .conflict {
            // Full (a random id taken is not to be expected).
            tallyUnverifiedRefusal(.clientRegistration, error: .rateLimited(retryAfterSeconds: 3600))
            return .error(.rateLimited(retryAfterSeconds: 3600))
        } catch {
            return .error(.storageFailure(error.description))
        }
        committer.auditLog.refusals.record(.clientRegistration, reason: "registered", outcome: .success)
        var object = JSONObject()
        object.append("client_id", client.clientID.rawValue)
        object.append("client_id_issued_at", .number(String(client.registeredAt.secondsSince1970)))
        object.append("token_endpoint_auth_method", "private_key_jwt")
        object.append("grant_types", strings: ["client_credentials"])
        if let jwks = client.jwks, let parsed = try? JSONParser.parse(jwks) { object.append("jwks", parsed) }
        object.append("jwks_uri", ifPresent: client.jwksURI)
        object.append("client_name", ifPresent: client.clientName)
        return .json(.object(object), status: 201, headers: [("Cache-Control", "no-store")])
    }

    /// The backend client a registration body describes, with a new `client_id`.
    private func backendRegistration(_ body: [UInt8]) throws(ClientRegistrationError) -> BackendClient {
        guard let object = (try? JSONParser.parse(body, maximumDepth: 16))?.objectValue else {
            throw .invalidClientMetadata("the request is not a JSON object")
        }
        guard object["grant_types"] == .array([.string("client_credentials")]) else {
            throw .invalidClientMetadata("a backend client's grant_types is [\"client_credentials\"]")
        }
        if let method = object["token_endpoint_auth_method"], method != .string("private_key_jwt") {
            throw .invalidClientMetadata("a backend client authenticates with private_key_jwt")
        }
        if let uris = object["redirect_uris"], uris != .array([]) { throw .invalidClientMetadata("a backend client has no redirect_uris") }
        var name: String?
        if let value = object["client_name"] {
            guard let text = value.stringValue, text.count <= ClientRegistrationRequest.maximumNameLength else {
                throw .invalidClientMetadata("client_name must be a string of at most \(ClientRegistrationRequest.maximumNameLength) characters")
            }
            name = text
        }
        let keys = try keySetMetadata(object)
        return BackendClient(clientID: random { CsiGuid.random(using: &$0) }, clientName: name, jwks: keys.jwks, jwksURI: keys.jwksURI,
                             registeredAt: now)
    }

    /// The `jwks` (serialized) or `jwks_uri` of a registration body with a key set: exactly one
    /// of them, `jwks` with at least one usable signature key that has a `kid`, `jwks_uri`
    /// `https` (`http` to a loopback address only when
    /// ``ServerConfiguration/allowsLoopbackKeySetURLs``).
    func keySetMetadata(_ object: JSONObject) throws(ClientRegistrationError) -> (jwks: String?, jwksURI: String?) {
        var jwks: String?
        var jwksURI: String?
        switch (object["jwks"], object["jwks_uri"]) {
        case (let set?, nil):
            let text = JSONWriter.serialize(set)
            guard let keySet = try? BackendKeySet(json: text), keySet.keys.contains(where: { $0.kid != nil }) else {
                throw .invalidClientMetadata("jwks must be a JSON Web Key Set with a P-256, P-384 or RSA (2048 bits or more) signature key that has a kid")
            }
            jwks = String(decoding: text, as: UTF8.self)
        case (nil, let uri?):
            guard let text = uri.stringValue, BackendKeySetResolver.isAcceptableURL(text, allowingLoopback: configuration.allowsLoopbackKeySetURLs) else {
                throw .invalidClientMetadata("jwks_uri must be an https URL")
            }
            jwksURI = text
        default:
            throw .invalidClientMetadata("a client with a key set registers exactly one of jwks and jwks_uri")
        }
        return (jwks, jwksURI)
    }

    /// The backend client a token request's client assertion claims to come from (its `iss`,
    /// unverified), if that is one.
    func claimedBackendClient(_ form: FormBody) async throws(SMOACError) -> BackendClient? {
        guard let text = form["client_assertion"], let jws = try? CompactJWS(Array(text.utf8)),
              let issuer = (try? JSONParser.parse(jws.payload, maximumDepth: 4))?["iss"]?.stringValue, let clientID = CsiGuid(issuer) else {
            return nil
        }
        do {
            return try await store.backendClient(clientID)
        } catch {
            throw .storageFailure(error.description)
        }
    }

    /// `grant_type=client_credentials` of a backend client: the client assertion checked as
    /// the spec says (every refusal `invalid_client`: the signature by the registered key its
    /// `kid` names, `iss` = `sub` = the client, `aud` = this token endpoint, `exp` in the next
    /// five minutes, `jti` not seen before until its `exp`), then `scope`: its `system/` resource
    /// scopes (SMART v2 `system/*.rs`, `system/Observation.rs`…, or v1 `system/*.read`) and
    /// label scopes, granted when at least one patient's wallet granted the client something of
    /// them (`invalid_scope` otherwise). The token lasts the server's token lifetime; no refresh token.
    func backendToken(_ form: FormBody, client: BackendClient, body: [UInt8]) async throws(SMOACError) -> ServiceResponse {
        guard form["client_assertion_type"] == VacaAuthRequest.jwtBearerAssertionType else {
            throw .invalidClient("client_assertion_type must be \(VacaAuthRequest.jwtBearerAssertionType)")
        }
        if let claimed = form["client_id"], claimed != client.clientID.rawValue {
            throw .invalidClient("client_id does not match the assertion's issuer")
        }
        let instant = now
        try await verifyKeySetAssertion(form["client_assertion"] ?? "", client: client)
        // A user-facing app registered with a key set (`+Registration`) uses the authorization code flow.
        let codeFlowApp: SmartClient?
        do {
            codeFlowApp = try await store.smartClient(client.clientID)
        } catch {
            throw .storageFailure(error.description)
        }
        guard codeFlowApp == nil else { throw .invalidClient("this client is an app of the authorization code flow, not a backend service") }
        try requireWithinRate(client.clientID)
        guard let scope = form["scope"], !scope.isEmpty else { throw .invalidScope("\"scope\" is missing") }
        let granted: GrantedScope
        do {
            granted = try backendGrant(scope, client: client.clientID, at: instant)
        } catch {
            await auditFailure(.tokenIssued, agent: client.clientID.rawValue, error: error, quirks: [], body: body)
            throw error
        }
        let token = AccessToken(token: random { VACAAuthorizer.randomToken(using: &$0) }, id: random { VACAAuthorizer.randomToken(using: &$0) },
                                client: client.clientID, patient: client.clientID, scope: granted, permissionIDs: [], issuedAt: instant,
                                expiresAt: instant.adding(seconds: configuration.tokenLifetimeSeconds))
        var change = TrustChange()
        change.tokens = [StoredAccessToken(token)]
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .tokenIssued, recorded: instant, agent: client.clientID.rawValue, tokenID: token.id,
                                                                   scope: granted.text, requestHash: Self.hexSHA256(body)))]
        try await commit(change)
        metrics.tokensIssued.increment()
        var response = token.response(at: instant)
        response.tokenType = "Bearer"
        response.patient = nil
        return ServiceResponse(headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")], body: response.jsonBytes)
    }

    /// Checks a `private_key_jwt` client assertion of a client registered with a key set (a
    /// backend client, or a user-facing app registered with one): every refusal
    /// `invalid_client` — the signature by the registered key its `kid` names (the `jwks_uri`
    /// fetched as ``BackendKeySetResolver`` allows), `iss` = `sub` = the client, `aud` = this
    /// token endpoint, `exp` in the next five minutes, `jti` not seen before until its `exp`.
    func verifyKeySetAssertion(_ text: String, client: BackendClient) async throws(SMOACError) {
        let instant = now
        do {
            let assertion = try BackendAssertion(text)
            try assertion.checkClaims(clientID: client.clientID.rawValue, audience: "\(baseURL)/oauth/token", now: instant.secondsSince1970)
            let keySet = try await BackendKeySetResolver.shared.keySet(of: client, kid: assertion.kid, now: instant.secondsSince1970,
                                                                       allowingLoopback: configuration.allowsLoopbackKeySetURLs)
            try assertion.checkSignature(keySet)
            let key = NonceKey(namespace: .assertionID, owner: client.clientID.rawValue, value: assertion.jti)
            let first: Bool
            do {
                first = try await store.insertIfAbsent(key, expiresAt: Timestamp(secondsSince1970: assertion.expiry), now: instant)
            } catch {
                throw SMOACError.storageFailure("the jti could not be recorded")
            }
            guard first else { throw BackendAssertionError("the client assertion's jti was already used") }
        } catch let error as BackendAssertionError {
            let failure = SMOACError.invalidClient(error.reason)
            tallyUnverifiedRefusal(error: failure)
            throw failure
        } catch let error as SMOACError {
            throw error
        } catch {
            throw .invalidClient("the client assertion cannot be checked")
        }
    }

    /// The `system/` and label scopes of `scope` as granted to `client`: refused unless at
    /// least one patient's permissions in force grant the client something of them.
    private func backendGrant(_ scope: String, client: CsiGuid, at instant: Timestamp) throws(SMOACError) -> GrantedScope {
        let policy = configuration.labelPolicy
        let everything = PermissionScope(permissionType: .system, resource: .all, access: .all, confidentialityCeiling: .V, sensitivities: .all)
        let granted = ScopeRequest(scope).grant(held: [everything], policy: policy)
        guard !granted.grants.isEmpty else { throw .invalidScope("a backend client asks for system/ resource scopes (system/*.rs)") }
        let held = ledger.held(by: client, at: instant).filter { $0.scope != .auditor }
        let perPatient = ScopeRequest(BackendServices.patientForm(of: granted.text))
        let patients = Set(held.map(\.patient))
        guard patients.contains(where: { patient in
            !perPatient.grant(heldPermissions: held.filter { $0.patient == patient }, policy: policy).scope.grants.isEmpty
        }) else {
            throw .invalidScope("no patient's wallet has granted this client anything of the requested scope")
        }
        return granted
    }
}

/// What SMART Backend Services adds to the permission model: `system/` scopes over the patients
/// whose wallets granted a client.
enum BackendServices {
    /// `scope` with every `system/` resource scope read as the same `patient/` scope: what a
    /// backend token's scope grants within one patient's compartment.
    static func patientForm(of scope: String) -> String {
        scope.split(separator: " ", omittingEmptySubsequences: true)
            .map { $0.hasPrefix("system/") ? "patient/" + $0.dropFirst(7) : String($0) }
            .joined(separator: " ")
    }

    /// The grants of a backend client's token (its `patient` is the client, no permission ids,
    /// only `system/` grants) while it is unexpired and some patient's wallet still grants the
    /// client something; empty for any other token.
    static func systemGrants(of token: StoredAccessToken, at instant: Timestamp, ledger: PermissionLedger) -> [PermissionScope] {
        guard token.client == token.patient, token.permissionIDs.isEmpty, !token.revoked, instant < token.expiresAt, token.issuedAt <= instant,
              !token.scope.grants.isEmpty, token.scope.grants.allSatisfy({ $0.permissionType == .system }),
              ledger.held(by: token.client, at: instant).contains(where: { $0.scope != .auditor && $0.patient != token.client }) else { return [] }
        return token.scope.grants
    }
}
