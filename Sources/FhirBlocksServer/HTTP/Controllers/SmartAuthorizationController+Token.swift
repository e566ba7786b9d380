import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The token endpoint's grants for SMART clients of `/oauth/register`: `authorization_code`
/// with the PKCE `code_verifier` (a code from `/oauth/authorize`), and `refresh_token`
/// (rotating). A public client names itself with `client_id`; a confidential one
/// authenticates with a `private_key_jwt` client assertion signed with its registered key.
extension SmartAuthorizationController {
    /// `grant_type=authorization_code`: the client (see `smartClient(_:)`), `code`,
    /// `redirect_uri` and `code_verifier`. The code is single use and bound to the client, the
    /// redirect URI and the PKCE challenge; a failed exchange (another client's included) kills
    /// it, and presenting a code
    /// that was already exchanged revokes the permissions (so every token) issued from it.
    func exchangePublicCode(_ form: FormBody, body: [UInt8]) async throws(SMOACError) -> TokenResponse {
        let client = try await smartClient(form)
        guard let code = form["code"], !code.isEmpty else { throw .malformedRequest("\"code\" is missing") }
        let found: SmartAuthorization?
        do {
            found = try await store.smartAuthorization(codeHash: AccessToken.hash(of: code))
        } catch {
            throw .storageFailure(error.description)
        }
        guard let authorization = found else {
            tallyUnverifiedRefusal(.tokenIssued, error: .invalidGrant("unknown code"))
            throw .invalidGrant("unknown or already used code")
        }
        guard authorization.client == client.clientID else {
            // Another client's code: it is used up all the same (whoever holds it is not to be
            // trusted with it), and the refusal is counted, not blamed on either client.
            if authorization.status == .codeIssued {
                var dead = authorization
                dead.status = .refused
                var change = TrustChange()
                change.smartAuthorizations = [SmartAuthorizationWrite(dead, expecting: .codeIssued)]
                _ = try? await storeCommit(change)
            }
            tallyUnverifiedRefusal(.tokenIssued, error: .invalidGrant("code of another client"))
            throw .invalidGrant("unknown or already used code")
        }
        switch authorization.status {
        case .codeIssued:
            break
        case .redeemed:
            await revokeReusedFamily(of: authorization.permissionIDs, client: authorization.client, patient: authorization.patient, reason: "code-reused")
            throw .invalidGrant("the code was already used; the tokens issued from it are revoked")
        default:
            throw .invalidGrant("unknown or already used code")
        }
        let instant = now
        var failure: SMOACError?
        if let expiry = authorization.codeExpiresAt, instant >= expiry {
            failure = .invalidGrant("the code has expired")
        } else if form["redirect_uri"] != authorization.redirectURI {
            failure = .invalidGrant("redirect_uri differs from the authorization request's")
        } else if !PKCE.verify(verifier: form["code_verifier"] ?? "", challenge: authorization.codeChallenge) {
            failure = .invalidGrant("code_verifier does not match the code_challenge")
        }
        guard let patient = authorization.patient, let granted = authorization.grantedScope else {
            throw .storageFailure("the authorization has no patient")
        }
        if failure == nil, !grantsStillHeld(granted, permissionIDs: authorization.permissionIDs, client: authorization.client, patient: patient) {
            failure = .invalidGrant("the approval was revoked or has expired")
        }
        var updated = authorization
        if let failure {
            updated.status = .refused
            var change = TrustChange()
            change.smartAuthorizations = [SmartAuthorizationWrite(updated, expecting: .codeIssued)]
            change.auditEntries = [Self.refusalEntry(.tokenIssued, client: authorization.client, patient: patient, error: failure, body: body, at: instant)]
            _ = try? await storeCommit(change)
            throw failure
        }
        updated.status = .redeemed
        var change = TrustChange()
        change.smartAuthorizations = [SmartAuthorizationWrite(updated, expecting: .codeIssued)]
        let response = mintSmartTokens(into: &change, authorizationID: authorization.id, client: authorization.client, patient: patient,
                                       scope: granted, permissionIDs: authorization.permissionIDs, offline: authorization.offline,
                                       refreshExpiry: nil, type: .tokenIssued, body: body)
        do {
            try await storeCommit(change)
        } catch .conflict {
            // Another exchange of the same code won: this one is the reuse.
            await revokeReusedFamily(of: authorization.permissionIDs, client: authorization.client, patient: patient, reason: "code-reused")
            throw .invalidGrant("the code was already used; the tokens issued from it are revoked")
        } catch {
            throw .storageFailure("the token could not be stored")
        }
        metrics.tokensIssued.increment()
        return response
    }

    /// `grant_type=refresh_token`: the client (see `smartClient(_:)`) and `refresh_token`. The
    /// presented token is used up and a new one returned with the new access token; a used one
    /// presented again revokes the family's permissions. Refused once the permissions behind it
    /// were revoked or expired. With a `scope` (RFC 6749 §6), the access token carries only
    /// that scope, which must lie within the refresh token's (`invalid_scope` otherwise, and the
    /// refresh token stays unused); the new refresh token keeps the refresh token's scope.
    func refresh(_ form: FormBody, body: [UInt8]) async throws(SMOACError) -> TokenResponse {
        let client = try await smartClient(form)
        guard let presented = form["refresh_token"], !presented.isEmpty else { throw .malformedRequest("\"refresh_token\" is missing") }
        let hash = AccessToken.hash(of: presented)
        var accessScope: GrantedScope?
        if let requested = form["scope"] {
            // Checked before the token is used up: a refused narrowing leaves it usable.
            let peeked: StoredRefreshToken?
            do {
                peeked = try await store.refreshToken(hash: hash)
            } catch {
                throw .storageFailure(error.description)
            }
            if let peeked, peeked.client == client.clientID, !peeked.used {
                do {
                    accessScope = try narrowedScope(requested, of: peeked.scope)
                } catch {
                    var change = TrustChange()
                    change.auditEntries = [Self.refusalEntry(.tokenRefreshed, client: peeked.client, patient: peeked.patient, error: error, body: body,
                                                             at: now)]
                    _ = try? await storeCommit(change)
                    throw error
                }
            }
        }
        let found: StoredRefreshToken?
        do {
            found = try await store.useRefreshToken(hash: hash)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let stored = found, stored.client == client.clientID else {
            tallyUnverifiedRefusal(.tokenRefreshed, error: .invalidGrant("unknown refresh token"))
            throw .invalidGrant("unknown refresh token")
        }
        guard !stored.used else {
            await revokeReusedFamily(of: stored.permissionIDs, client: stored.client, patient: stored.patient, reason: "refresh-token-reused")
            throw .invalidGrant("the refresh token was already used; its family is revoked")
        }
        let instant = now
        var failure: SMOACError?
        if instant >= stored.expiresAt {
            failure = .invalidGrant("the refresh token has expired")
        } else if !grantsStillHeld(stored.scope, permissionIDs: stored.permissionIDs, client: stored.client, patient: stored.patient) {
            failure = .invalidGrant("the permission behind the refresh token was revoked or has expired")
        }
        if let failure {
            var change = TrustChange()
            change.auditEntries = [Self.refusalEntry(.tokenRefreshed, client: stored.client, patient: stored.patient, error: failure, body: body, at: instant)]
            _ = try? await storeCommit(change)
            throw failure
        }
        if let requested = form["scope"], accessScope == nil { accessScope = try narrowedScope(requested, of: stored.scope) }
        var change = TrustChange()
        let response = mintSmartTokens(into: &change, authorizationID: stored.authorizationID, client: stored.client, patient: stored.patient,
                                       scope: accessScope ?? stored.scope, refreshScope: stored.scope, permissionIDs: stored.permissionIDs,
                                       offline: true, refreshExpiry: stored.expiresAt, type: .tokenRefreshed, body: body)
        try await commit(change)
        metrics.tokensIssued.increment()
        return response
    }

    /// The scope of an access token refreshed with `requested` (RFC 6749 §6: no scope the
    /// resource owner did not grant): each requested resource scope must lie within one grant
    /// of `original` (context, types and interactions; a granular query only narrows it, and a
    /// granular grant allows only its own query), each `conf/` level within a grant's
    /// ceiling, each `sens/` code within a grant's set, and any other scope (`launch/patient`,
    /// `offline_access`…) must have been asked for originally; then requested ∩ `original`'s
    /// grants. `invalid_scope` for anything wider, unreadable, or naming no resource.
    func narrowedScope(_ requested: String, of original: GrantedScope) throws(SMOACError) -> GrantedScope {
        let request = ScopeRequest(requested)
        if let unreadable = request.malformed.first { throw .invalidScope("the scope \"\(unreadable)\" cannot be read") }
        let asked = Set(original.scopes.map(\.description) + original.dropped)
        for scope in request.scopes {
            let within: Bool
            switch scope {
            case .resource(let wanted):
                // A granular scope is within a plain grant, or one of the same query.
                let filter = wanted.parameters.flatMap(ScopeFilter.init)
                within = (wanted.parameters == nil || filter != nil) && original.grants.contains { grant in
                    grant.permissionType == wanted.context && grant.resource.covers(wanted.resource) && grant.access.isSuperset(of: wanted.access)
                        && (grant.filter == nil || grant.filter == filter)
                }
            case .confidentiality(let level):
                within = original.grants.contains { level <= $0.confidentialityCeiling }
            case .sensitivity(let code):
                within = original.grants.contains { $0.sensitivities.contains(code) }
            case .breakTheGlass, .other:
                within = asked.contains(scope.description)
            }
            guard within else { throw .invalidScope("\(scope.description) is not within the refresh token's scope") }
        }
        let narrowed = request.grant(held: original.grants, policy: configuration.labelPolicy)
        guard !narrowed.isEmpty else { throw .invalidScope("the scope names no resource of the refresh token's") }
        return narrowed
    }

    /// Whether a token request carries a client assertion whose issuer is a registered csi (the
    /// VACA and backend-services clients), rather than a client of `/oauth/register`.
    func assertsRegisteredCsi(_ form: FormBody) -> Bool {
        guard let text = form["client_assertion"], let assertion = try? CompactAssertion(text, mode: configuration.mode),
              let issuer = try? AssertionValidator.claimedIssuer(of: assertion) else { return false }
        return registration(issuer) != nil
    }

    /// The client of a SMART token request: with a `client_assertion`, the confidential client
    /// that signed it with its registered key (`private_key_jwt`, checked like every assertion:
    /// audience, expiry, single-use `jti`; an app registered with a key set is checked as a
    /// backend client's assertion is, `RS384`, `ES384` or `ES256` by the key its `kid` names);
    /// without, the public client `client_id` names. A confidential client without its
    /// assertion, or a public one with one, is `invalid_client`.
    func smartClient(_ form: FormBody) async throws(SMOACError) -> SmartClient {
        let unknown = SMOACError.invalidClient("\"client_id\" is missing or unknown")
        let assertionText = form["client_assertion"]
        var claimed = form["client_id"].flatMap(CsiGuid.init)
        var assertion: CompactAssertion?
        if let assertionText {
            guard form["client_assertion_type"] == VacaAuthRequest.jwtBearerAssertionType else {
                throw .invalidClient("client_assertion_type must be \(VacaAuthRequest.jwtBearerAssertionType)")
            }
            if let keyed = try await claimedBackendClient(form) {
                let app: SmartClient?
                do {
                    app = try await store.smartClient(keyed.clientID)
                } catch {
                    throw .storageFailure(error.description)
                }
                if let app {
                    if let claimed, claimed != app.clientID { throw .invalidClient("client_id does not match the assertion's issuer") }
                    try await verifyKeySetAssertion(assertionText, client: keyed)
                    try requireWithinRate(app.clientID)
                    return app
                }
            }
            let issuer: CsiGuid
            do {
                let parsed = try CompactAssertion(assertionText, mode: configuration.mode)
                issuer = try AssertionValidator.claimedIssuer(of: parsed)
                assertion = parsed
            } catch {
                tallyUnverifiedRefusal(error: .invalidClient("bad client assertion"))
                throw .invalidClient("the client assertion cannot be read")
            }
            if let claimed, claimed != issuer { throw .invalidClient("client_id does not match the assertion's issuer") }
            claimed = issuer
        }
        guard let clientID = claimed else {
            tallyUnverifiedRefusal(error: unknown)
            throw unknown
        }
        let found: SmartClient?
        do {
            found = try await store.smartClient(clientID)
        } catch {
            throw .storageFailure(error.description)
        }
        guard let client = found else {
            tallyUnverifiedRefusal(error: unknown)
            throw unknown
        }
        switch (client.publicKey, assertion) {
        case (nil, nil):
            // An app registered with a key set is confidential all the same.
            let keyed: BackendClient?
            do {
                keyed = try await store.backendClient(client.clientID)
            } catch {
                throw .storageFailure(error.description)
            }
            guard keyed == nil else {
                tallyUnverifiedRefusal(error: .invalidClient("confidential client without an assertion"))
                throw .invalidClient("this client authenticates with a private_key_jwt client assertion")
            }
            return client
        case (let key?, let assertion?):
            do {
                _ = try await AssertionValidator(policy: AssertionPolicy(audiences: tokens.audiences), mode: configuration.mode)
                    .validate(assertion, key: key, registeredDeviceId: nil, purpose: .clientAuthentication, now: now, store: store)
            } catch {
                let failure = error.smoacError(purpose: .clientAuthentication)
                tallyUnverifiedRefusal(error: failure)
                throw failure
            }
            try requireWithinRate(client.clientID)
            return client
        case (nil, _?):
            tallyUnverifiedRefusal(error: .invalidClient("public client with an assertion"))
            throw .invalidClient("a public client has no key: send client_id without client_assertion")
        case (_?, nil):
            tallyUnverifiedRefusal(error: .invalidClient("confidential client without an assertion"))
            throw .invalidClient("this client authenticates with a private_key_jwt client assertion")
        }
    }

    /// Whether every grant is still backed by a permission in force now.
    private func grantsStillHeld(_ scope: GrantedScope, permissionIDs: [PermissionID], client: CsiGuid, patient: CsiGuid) -> Bool {
        ledger.tokenGrants(scope.grants, permissionIDs: permissionIDs, client: client, patient: patient, at: now).count == scope.grants.count
    }

    /// A new access token of `scope` (and, when `offline`, a new refresh token of
    /// `refreshScope`, else `scope`, lasting until `refreshExpiry`, else until the end of the
    /// permissions' window) added to `change` with its audit entry; returns the token response.
    private func mintSmartTokens(into change: inout TrustChange, authorizationID: String, client: CsiGuid, patient: CsiGuid, scope: GrantedScope,
                                 refreshScope: GrantedScope? = nil, permissionIDs: [PermissionID], offline: Bool, refreshExpiry: Timestamp?,
                                 type: AuditEventType, body: [UInt8]) -> TokenResponse {
        let instant = now
        let token = AccessToken(token: random { VACAAuthorizer.randomToken(using: &$0) }, id: random { VACAAuthorizer.randomToken(using: &$0) },
                                client: client, patient: patient, scope: scope, permissionIDs: permissionIDs, issuedAt: instant,
                                expiresAt: instant.adding(seconds: tokens.authorizer.tokenLifetimeSeconds))
        change.tokens.append(StoredAccessToken(token))
        var refreshToken: String?
        if offline {
            let ledger = self.ledger
            let windowEnd = permissionIDs.compactMap { ledger.permissions[$0]?.window.notAfter }.min() ?? instant
            let refresh = random { VACAAuthorizer.randomToken(using: &$0) }
            change.refreshTokens.append(StoredRefreshToken(tokenHash: AccessToken.hash(of: refresh), authorizationID: authorizationID, client: client,
                                                           patient: patient, scope: refreshScope ?? scope, permissionIDs: permissionIDs,
                                                           issuedAt: instant, expiresAt: refreshExpiry ?? windowEnd))
            refreshToken = refresh
        }
        change.auditEntries.append(PendingAuditEntry(entry: AuditEntry(type: type, recorded: instant, agent: client.rawValue, patient: patient.rawValue,
                                                                       permissionIDs: permissionIDs.map(\.rawValue), tokenID: token.id,
                                                                       scope: scope.text, requestHash: Self.hexSHA256(body))))
        var response = token.response(at: instant)
        response.tokenType = "Bearer"
        response.refreshToken = refreshToken
        return response
    }

    /// Revokes the permissions an authorization wrote (so every access and refresh token issued
    /// from it stops working at its next use), audited with `reason`: a reuse (`minorFailure`,
    /// best effort, logged when it cannot be stored) or an RFC 7009 revocation (`success`,
    /// whose storage failure is thrown). A family already revoked writes nothing more: a
    /// revocation again is a no-op, a reuse again is counted (``RefusalTally``), so presenting a
    /// dead code or token over and over does not grow the log.
    func revokeFamily(of permissionIDs: [PermissionID], client: CsiGuid, patient: CsiGuid?, reason: String,
                      outcome: AuditOutcome = .minorFailure) async throws(SMOACError) {
        let instant = now
        let ledger = self.ledger
        let live = permissionIDs.filter { ledger.permissions[$0]?.revokedAt == nil }
        guard !live.isEmpty else {
            if outcome != .success { committer.auditLog.refusals.record(.permissionRevoke, reason: reason) }
            return
        }
        var change = TrustChange()
        change.revocations = live.map { PermissionRevocation(id: $0, revokedAt: instant) }
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: .permissionRevoke, recorded: instant, outcome: outcome,
                                                                   agent: client.rawValue, patient: patient?.rawValue,
                                                                   permissionIDs: live.map(\.rawValue), reason: reason))]
        do {
            try await storeCommit(change)
        } catch {
            logger.error("revoking a grant's permissions failed", metadata: ["reason": "\(error.description)"])
            if outcome == .success { throw .storageFailure("the revocation could not be stored") }
        }
    }

    /// ``revokeFamily(of:client:patient:reason:outcome:)`` of a reused code or refresh token
    /// (best effort: the reuse is refused whether or not the revocation was stored).
    private func revokeReusedFamily(of permissionIDs: [PermissionID], client: CsiGuid, patient: CsiGuid?, reason: String) async {
        _ = try? await revokeFamily(of: permissionIDs, client: client, patient: patient, reason: reason)
    }

    /// The audit entry of a refused exchange by a known client.
    private static func refusalEntry(_ type: AuditEventType, client: CsiGuid, patient: CsiGuid, error: SMOACError,
                                     body: [UInt8], at instant: Timestamp) -> PendingAuditEntry {
        PendingAuditEntry(entry: AuditEntry(type: type, recorded: instant, outcome: .minorFailure, agent: client.rawValue, patient: patient.rawValue,
                                            requestHash: hexSHA256(body), reason: error.errorCode))
    }
}
