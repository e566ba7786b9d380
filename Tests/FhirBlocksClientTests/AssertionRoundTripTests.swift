import ExactJSON
import FhirBlocks
@testable import FhirBlocksClient
import Testing
import TestSupport

/// The assertions the client builds pass the server-side `AssertionValidator` for their purpose
/// and audience, and only there.
@Suite("Client assertions")
struct AssertionRoundTripTests {
    static let base = "http://127.0.0.1:9"

    private func session() throws -> CsiSession {
        var generator = SystemRandomNumberGenerator()
        let identity = CsiIdentity(csiGuid: CsiGuid.random(using: &generator), key: .generate(), deviceId: CsiIdentity.newDeviceId(),
                                   applicationClass: CsiIdentity.appApplicationClass)
        return CsiSession(client: try FhirBlocksClient(baseURL: Self.base), identity: identity)
    }

    private func validate(_ text: String, audience: String, purpose: AssertionPurpose, session: CsiSession,
                          store: InMemoryNonceStore = InMemoryNonceStore()) async throws -> VerifiedAssertion {
        let validator = AssertionValidator(policy: AssertionPolicy(audiences: [audience]), mode: .strict)
        let assertion = try CompactAssertion(text, mode: .strict)
        #expect(try AssertionValidator.claimedIssuer(of: assertion) == session.identity.csiGuid)
        return try await validator.validate(assertion, key: session.identity.key.publicKey, registeredDeviceId: session.identity.deviceId,
                                            purpose: purpose, now: ServerClock.systemTime(), store: store)
    }

    @Test func vacaAuthGrantValidates() async throws {
        let session = try session()
        try await withTeardown({ try? await session.client.shutdown() }) {
            let scope = "patient/Patient.read conf/V"
            let text = try session.assertionNow(for: SMOACEndpoint.vacaAuth.path, scope: scope)
            let verified = try await validate(text, audience: Self.base + "/vaca/auth", purpose: .authorizationGrant, session: session)
            #expect(verified.issuer == session.identity.csiGuid)
            #expect(verified.scope == scope)
            #expect(verified.quirks.isEmpty)
            // The vaca/auth assertion is refused at vaca/access and at the token endpoint.
            await #expect(throws: AssertionError.wrongAudience) {
                try await validate(text, audience: Self.base + "/vaca/access", purpose: .clientAuthentication, session: session)
            }
            await #expect(throws: AssertionError.wrongAudience) {
                try await validate(text, audience: Self.base + "/oauth/token", purpose: .clientAuthentication, session: session)
            }
        }
    }

    @Test func vacaAccessAndTokenEndpointAssertionsValidate() async throws {
        let session = try session()
        try await withTeardown({ try? await session.client.shutdown() }) {
            let access = try session.assertionNow(for: SMOACEndpoint.vacaAccess.path, code: "the-code")
            let verified = try await validate(access, audience: Self.base + "/vaca/access", purpose: .clientAuthentication, session: session)
            #expect(verified.code == "the-code")
            #expect(verified.jti != nil)

            let form = try session.clientCredentialsForm(scope: "patient/*.rs", patient: session.identity.csiGuid)
            #expect(form["grant_type"] == "client_credentials")
            #expect(form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            #expect(form["patient"] == session.identity.csiGuid.rawValue)
            let assertion = try #require(form["client_assertion"])
            let store = InMemoryNonceStore()
            _ = try await validate(assertion, audience: Self.base + "/oauth/token", purpose: .clientAuthentication, session: session, store: store)
            // Single use: the same assertion again is a replay.
            await #expect(throws: AssertionError.replayed) {
                try await validate(assertion, audience: Self.base + "/oauth/token", purpose: .clientAuthentication, session: session, store: store)
            }
            // The form survives strict encoding and parsing (the assertion has no '+' to lose).
            let parsed = try FormBody.parse(form.encoded(), mode: .strict)
            #expect(parsed.value == form)
            #expect(parsed.quirks.isEmpty)
        }
    }

    @Test func headerNamesTheCsiAndLifetimeIsWithinPolicy() async throws {
        let session = try session()
        try await withTeardown({ try? await session.client.shutdown() }) {
            let assertion = try CompactAssertion(try session.assertionNow(for: "oauth/token"), mode: .strict)
            #expect(assertion.header.alg == "ES256")
            #expect(assertion.header.kid == session.identity.csiGuid.rawValue)
            #expect(assertion.claims.sub == session.identity.csiGuid.rawValue)
            let lifetime = try #require(assertion.claims.exp) - (try #require(assertion.claims.iat))
            #expect(lifetime > 0 && lifetime <= 300)
            // Another key cannot pass for this csi.
            let validator = AssertionValidator(policy: AssertionPolicy(audiences: [Self.base + "/oauth/token"]), mode: .strict)
            await #expect(throws: AssertionError.badSignature) {
                try await validator.validate(assertion, key: CsiSigningKey.generate().publicKey, registeredDeviceId: nil,
                                             purpose: .clientAuthentication, now: ServerClock.systemTime(), store: InMemoryNonceStore())
            }
        }
    }

    @Test func requestFormsParseAsTheServerReadsThem() throws {
        let auth = VacaAuthRequest(assertion: "a.b.c", scope: "patient/Patient.read conf/V", patient: "7c5b8363-504b-4f83-9d01-caa4e28a156e")
        let parsedAuth = try VacaAuthRequest.parse(auth.form.encoded(), mode: .strict).value
        #expect(parsedAuth == auth)
        let access = VacaAccessRequest(code: "code+/=", clientAssertion: "x.y.z")
        #expect(try VacaAccessRequest.parse(access.form.encoded(), mode: .strict).value == access)
    }
}
