/// Checks a decoded assertion against the issuer's registered key and the policy (§1.6, §1.7,
/// §2.2): signature, `kid`, `sub`, `aud`, `exp`/`iat`/`nbf`, `sta`, and single use of `jti`
/// through a ``NonceStore``.
///
/// Compat mode accepts, and reports: a `jti` equal to the registered deviceId (replay is then
/// checked on iss + jti + iat, ``CompatQuirk/constantJTI``), a `sub` naming a wallet
/// (``CompatQuirk/subjectIsWallet``), a missing `kid` (``CompatQuirk/missingKeyID``), and for
/// client authentication the legacy `{"code","iss"}` assertion without `aud`/`exp`/`jti`
/// (``CompatQuirk/codeBoundAssertion``; its single use comes from the code).
public struct AssertionValidator: Sendable {
    /// The policy.
    public var policy: AssertionPolicy
    /// The mode.
    public var mode: ProtocolMode

    /// Creates a validator.
    public init(policy: AssertionPolicy, mode: ProtocolMode = .default) {
        self.policy = policy
        self.mode = mode
    }

    /// The issuer an assertion claims, to look up its key before ``validate(_:key:registeredDeviceId:purpose:now:store:)``.
    public static func claimedIssuer(of assertion: CompactAssertion) throws(AssertionError) -> CsiGuid {
        guard let iss = assertion.claims.iss else { throw .missingClaim("iss") }
        guard let issuer = CsiGuid(iss) else { throw .invalidClaim("iss") }
        return issuer
    }

    /// Validates `assertion`, signed by the holder of `key` (registered for its `iss`), whose
    /// csi registered `registeredDeviceId`.
    public func validate(_ assertion: CompactAssertion, key: CsiPublicKey, registeredDeviceId: String?, purpose: AssertionPurpose,
                         now: Timestamp, store: some NonceStore) async throws(AssertionError) -> VerifiedAssertion {
        let issuer = try Self.claimedIssuer(of: assertion)
        var quirks = assertion.quirks
        quirks += try assertion.verifySignature(with: key, mode: mode)
        let claims = assertion.claims

        // kid
        if let kid = assertion.header.kid {
            guard CsiGuid(kid) == issuer || kid == key.thumbprint else { throw .wrongKeyID }
        } else {
            guard mode == .compat else { throw .missingClaim("kid") }
            quirks.append(.missingKeyID)
        }

        // The legacy vaca/access assertion: {"code","iss"} only.
        let codeBound = purpose == .clientAuthentication && mode == .compat && claims.code != nil
            && claims.aud.isEmpty && claims.exp == nil && claims.jti == nil
        if codeBound {
            quirks.append(.codeBoundAssertion)
            return VerifiedAssertion(issuer: issuer, subject: claims.sub ?? issuer.rawValue, subjectWallet: nil, scope: claims.scope,
                                     jti: nil, code: claims.code, issuedAt: claims.iat.map(Timestamp.init(secondsSince1970:)),
                                     expiresAt: nil, quirks: Accepted((), quirks: quirks).quirks)
        }

        // sub
        let subject = claims.sub ?? ""
        var subjectWallet: CsiGuid?
        if CsiGuid(subject) != issuer {
            guard mode == .compat, purpose == .authorizationGrant, let wallet = CsiGuid(subject) else {
                throw claims.sub == nil ? .missingClaim("sub") : .subjectMismatch
            }
            subjectWallet = wallet
            quirks.append(.subjectIsWallet)
        }

        // aud
        guard !claims.aud.isEmpty else { throw .missingClaim("aud") }
        guard claims.aud.contains(where: policy.audiences.contains) else { throw .wrongAudience }

        // times
        guard let exp = claims.exp else { throw .missingClaim("exp") }
        let nowSeconds = now.secondsSince1970
        let skew = policy.clockSkewSeconds
        guard exp > nowSeconds &- skew else { throw .expired }
        guard exp <= nowSeconds &+ policy.maximumLifetimeSeconds &+ skew else { throw .lifetimeTooLong }
        if let iat = claims.iat {
            guard iat <= nowSeconds &+ skew else { throw .issuedInFuture }
            let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
            guard !overflow, lifetime <= policy.maximumLifetimeSeconds else { throw .lifetimeTooLong }
        }
        if let nbf = claims.nbf, nbf > nowSeconds &+ skew { throw .notYetValid }

        // sta
        if let sta = claims.sta, let registeredDeviceId, sta != registeredDeviceId { throw .deviceMismatch }

        // jti
        guard let jti = claims.jti, !jti.isEmpty else { throw .missingClaim("jti") }
        guard jti.utf8.count <= 256 else { throw .invalidClaim("jti") }
        var replayValue = jti
        if jti == registeredDeviceId {
            guard mode == .compat else { throw .replayed }
            replayValue = "\(jti)@\(claims.iat ?? exp)"
            quirks.append(.constantJTI)
        }
        let key = NonceKey(namespace: .assertionID, owner: issuer.rawValue, value: replayValue)
        let fresh: Bool
        do {
            fresh = try await store.insertIfAbsent(key, expiresAt: Timestamp(secondsSince1970: exp).adding(seconds: skew), now: now)
        } catch {
            throw .storage(error.reason)
        }
        guard fresh else { throw .replayed }

        return VerifiedAssertion(issuer: issuer, subject: subject, subjectWallet: subjectWallet, scope: claims.scope, jti: jti,
                                 code: claims.code, issuedAt: claims.iat.map(Timestamp.init(secondsSince1970:)),
                                 expiresAt: Timestamp(secondsSince1970: exp), quirks: Accepted((), quirks: quirks).quirks)
    }
}
