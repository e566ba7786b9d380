import CommonSupport
import ExactJSON
import Testing
@testable import FhirBlocks

/// JWT assertions: audience, expiry, algorithms, replay, signature (§1.4, §1.6, §1.7, §2.2).
@Suite struct AssertionValidatorTests {
    static let key = AppendixA.signingKey
    static let issuer = AppendixA.granter
    static let strict = AssertionValidator(policy: AssertionPolicy(audiences: [AppendixA.standardAudience, AppendixA.legacyAudience]), mode: .strict)
    static let compat = AssertionValidator(policy: AssertionPolicy(audiences: [AppendixA.standardAudience, AppendixA.legacyAudience]), mode: .compat)

    static func claims(aud: String = AppendixA.standardAudience, iat: Int64 = 1_515_776_601, exp: Int64? = 1_515_776_901,
                       jti: String? = "3f0c1e9a-7f55-4a43-9c0e-2d8f7b1c5e11", sub: String? = AppendixA.granter) -> JWTClaims {
        JWTClaims(iss: issuer, sub: sub, aud: [aud], exp: exp, iat: iat, jti: jti, scope: "patient/Patient.read", sta: AppendixA.deviceId)
    }

    static func jws(_ claims: JWTClaims, kid: String? = AppendixA.granter) throws -> CompactAssertion {
        try CompactAssertion(AssertionBuilder.jws(header: JWTHeader(kid: kid), claims: claims, key: key), mode: .strict)
    }

    static func validate(_ assertion: CompactAssertion, with validator: AssertionValidator = strict, now: Timestamp = at(10),
                         store: InMemoryNonceStore = InMemoryNonceStore(),
                         purpose: AssertionPurpose = .authorizationGrant) async throws(AssertionError) -> VerifiedAssertion {
        try await validator.validate(assertion, key: AppendixA.publicKey, registeredDeviceId: AppendixA.deviceId, purpose: purpose, now: now, store: store)
    }

    @Test func appendixStandardJWSValidates() async throws {
        let verified = try await Self.validate(try CompactAssertion(AppendixA.standardJWS, mode: .strict))
        #expect(verified.issuer == csi(AppendixA.granter) && verified.quirks.isEmpty)
        #expect(verified.scope == "patient/Patient.read sens/ETH sens/SOC conf/V")
    }

    @Test func appendixLegacyAssertionValidatesInCompatWithQuirks() async throws {
        let store = InMemoryNonceStore()
        let assertion = try CompactAssertion(AppendixA.legacyAssertion, mode: .compat)
        let verified = try await Self.validate(assertion, with: Self.compat, store: store)
        #expect(Set(verified.quirks) == [.legacyJWTEncoding, .stringTimeClaims, .legacyJWTSignature, .missingKeyID, .constantJTI])
        await #expect(throws: AssertionError.replayed) { try await Self.validate(assertion, with: Self.compat, store: store) }
        // Strict mode refuses the payload-only DER signature before looking at any claim.
        await #expect(throws: AssertionError.badSignature) { try await Self.validate(assertion, with: Self.strict) }
    }

    @Test func wrongAudienceIsRejected() async throws {
        await #expect(throws: AssertionError.wrongAudience) {
            try await Self.validate(try Self.jws(Self.claims(aud: "https://evil.example/vaca/auth")))
        }
    }

    @Test func expiredIsRejected() async throws {
        let assertion = try Self.jws(Self.claims())
        await #expect(throws: AssertionError.expired) { try await Self.validate(assertion, now: at(300 + 61)) }
        _ = try await Self.validate(assertion, now: at(300 + 59))
    }

    @Test func lifetimeOver300SecondsIsRejected() async throws {
        await #expect(throws: AssertionError.lifetimeTooLong) {
            try await Self.validate(try Self.jws(Self.claims(exp: 1_515_776_601 + 301)))
        }
        await #expect(throws: AssertionError.lifetimeTooLong) {
            try await Self.validate(try Self.jws(Self.claims(iat: 1_515_777_000 - 200, exp: 1_515_777_000)), now: at(0))
        }
        await #expect(throws: AssertionError.issuedInFuture) {
            try await Self.validate(try Self.jws(Self.claims(iat: 1_515_776_601 + 200, exp: 1_515_776_601 + 300)), now: at(0))
        }
        await #expect(throws: AssertionError.missingClaim("exp")) { try await Self.validate(try Self.jws(Self.claims(exp: nil))) }
        // Extreme times are refused, never trap.
        await #expect(throws: AssertionError.lifetimeTooLong) { try await Self.validate(try Self.jws(Self.claims(iat: .min))) }
        await #expect(throws: AssertionError.lifetimeTooLong) { try await Self.validate(try Self.jws(Self.claims(exp: .max))) }
        await #expect(throws: AssertionError.expired) { try await Self.validate(try Self.jws(Self.claims(iat: .min, exp: .min))) }
    }

    @Test func algNoneAndHS256AreRejected() throws {
        for alg in ["none", "HS256", "RS256", "ES384", "es256"] {
            let header = Base64URL.encode(Array("{\"alg\":\"\(alg)\",\"typ\":\"JWT\"}".utf8))
            let payload = Base64URL.encode(JSONWriter.serialize(Self.claims().json))
            for mode in ProtocolMode.allCases {
                #expect(throws: AssertionError.unsupportedAlgorithm(alg)) { try CompactAssertion("\(header).\(payload).c2ln", mode: mode) }
            }
        }
        // An ES256 header with an empty signature part is malformed.
        let header = Base64URL.encode(Array("{\"alg\":\"ES256\"}".utf8))
        #expect(throws: AssertionError.self) { try CompactAssertion("\(header).e30.", mode: .compat) }
    }

    @Test func reusedJTIIsRejected() async throws {
        let store = InMemoryNonceStore()
        let first = try Self.jws(Self.claims())
        _ = try await Self.validate(first, store: store)
        await #expect(throws: AssertionError.replayed) { try await Self.validate(first, store: store) }
        // A new assertion with the same jti (another signature) is a replay too.
        await #expect(throws: AssertionError.replayed) { try await Self.validate(try Self.jws(Self.claims()), store: store) }
        // The device id as jti is only accepted in compat.
        await #expect(throws: AssertionError.replayed) { try await Self.validate(try Self.jws(Self.claims(jti: AppendixA.deviceId))) }
        let constant = try await Self.validate(try Self.jws(Self.claims(jti: AppendixA.deviceId)), with: Self.compat)
        #expect(constant.quirks == [.constantJTI])
    }

    @Test func badSignatureIsRejected() async throws {
        let other = CsiSigningKey.generate()
        let text = try AssertionBuilder.jws(header: JWTHeader(kid: AppendixA.granter), claims: Self.claims(), key: other)
        await #expect(throws: AssertionError.badSignature) { try await Self.validate(try CompactAssertion(text, mode: .strict)) }
        // A legacy assertion (standard base64, DER signature over the payload) is refused in strict
        // mode: by its encoding when a part is padded or has `+` or `/` (always here: the header
        // below is 28 bytes, so padded), and otherwise by its signature. (Without padding or those
        // characters, standard base64 is also base64url: rare for a random signature, not impossible.)
        let padded = try AssertionBuilder.legacy(headerJSON: "{\"alg\":\"ES256\", \"typ\":\"jwt\"}",
                                                 payloadJSON: JSONWriter.string(Self.claims().json), key: Self.key)
        #expect(throws: AssertionError.self) { try CompactAssertion(padded, mode: .strict) }
        let legacy = try AssertionBuilder.legacy(payloadJSON: JSONWriter.string(Self.claims().json), key: Self.key)
        if let readAnyway = try? CompactAssertion(legacy, mode: .strict) {
            await #expect(throws: AssertionError.badSignature) { try await Self.validate(readAnyway, with: Self.strict) }
        }
        let parsed = try CompactAssertion(legacy, mode: .compat)
        await #expect(throws: AssertionError.badSignature) { try await Self.validate(parsed, with: Self.strict) }
        #expect(try await Self.validate(parsed, with: Self.compat).quirks.contains(.legacyJWTSignature))
    }

    @Test func subjectKidAndDeviceChecks() async throws {
        await #expect(throws: AssertionError.subjectMismatch) { try await Self.validate(try Self.jws(Self.claims(sub: AppendixA.grantee))) }
        let wallet = try await Self.validate(try Self.jws(Self.claims(sub: AppendixA.grantee)), with: Self.compat)
        #expect(wallet.subjectWallet == csi(AppendixA.grantee) && wallet.quirks == [.subjectIsWallet])
        await #expect(throws: AssertionError.subjectMismatch) {
            try await Self.validate(try Self.jws(Self.claims(sub: AppendixA.grantee)), with: Self.compat, purpose: .clientAuthentication)
        }
        await #expect(throws: AssertionError.wrongKeyID) { try await Self.validate(try Self.jws(Self.claims(), kid: AppendixA.grantee)) }
        await #expect(throws: AssertionError.missingClaim("kid")) { try await Self.validate(try Self.jws(Self.claims(), kid: nil)) }
        _ = try await Self.validate(try Self.jws(Self.claims(), kid: AppendixA.publicKey.thumbprint))
        var wrongDevice = Self.claims()
        wrongDevice.sta = "OTHER-DEVICE"
        await #expect(throws: AssertionError.deviceMismatch) { try await Self.validate(try Self.jws(wrongDevice)) }
    }

    @Test func legacyCodeBoundAccessAssertion() async throws {
        let code = "abc"
        let text = try AssertionBuilder.legacy(headerJSON: "{\"kid\":\"\(AppendixA.granter)\",\"alg\":\"ES256\"}",
                                               payloadJSON: "{\"code\":\"\(code)\",\"iss\":\"\(AppendixA.granter)\"}", key: Self.key)
        let parsed = try CompactAssertion(text, mode: .compat)
        let verified = try await Self.validate(parsed, with: Self.compat, purpose: .clientAuthentication)
        #expect(verified.code == code && verified.quirks.contains(.codeBoundAssertion))
        await #expect(throws: AssertionError.self) { try await Self.validate(parsed, with: Self.compat, purpose: .authorizationGrant) }
    }

    @Test func errorsMapToOAuthCodes() {
        #expect(AssertionError.expired.smoacError(purpose: .authorizationGrant).errorCode == "invalid_grant")
        #expect(AssertionError.expired.smoacError(purpose: .clientAuthentication).errorCode == "invalid_client")
        #expect(AssertionError.storage("x").smoacError(purpose: .clientAuthentication).httpStatus == 500)
    }
}
