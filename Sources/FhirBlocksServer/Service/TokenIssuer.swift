import FhirBlocks
import FhirBlocksStore

/// What the SMOAC VACA endpoints (``SMOACController``) and the OAuth token endpoint
/// (``SmartAuthorizationController``) share: the audiences an assertion may name, assertions
/// verified against their issuer's registered key, and codes redeemed into stored, audited
/// access tokens.
struct TokenIssuer: RateLimitedEndpoints {
    /// The replay cache an assertion's `jti` is claimed in.
    let store: any NonceStore
    let trustLedger: TrustLedger
    let committer: ChangeCommitter
    let rateLimits: RateLimits

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

    /// Redeems a code (taken from the store, or minted on the spot for client credentials),
    /// stores the token and audits it.
    func mintToken(code: AuthorizationCode?, presentedCode: String, assertion: VerifiedAssertion, quirks: [CompatQuirk],
                   body: [UInt8]) async throws(SMOACError) -> AccessToken {
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
}
