import ExactJSON
import FhirBlocks
@testable import FhirBlocksClient
import Testing
import TestSupport

/// What the client builds and signs is what the server-side core accepts: every signed request
/// verifies with `SignedRequestVerifier` in strict mode, also after a trip through JSON.
@Suite("Signed requests")
struct SignedRequestRoundTripTests {
    static let base = "http://127.0.0.1:9"

    private func makeClient(offsetMilliseconds: Int64? = nil) throws -> FhirBlocksClient {
        let client = try FhirBlocksClient(baseURL: Self.base + "/")
        if let offsetMilliseconds { client.clock.setOffset(milliseconds: offsetMilliseconds) }
        return client
    }

    private func identity(applicationClass: String = CsiIdentity.appApplicationClass) -> CsiIdentity {
        var generator = SystemRandomNumberGenerator()
        return CsiIdentity(csiGuid: CsiGuid.random(using: &generator), key: .generate(), deviceId: CsiIdentity.newDeviceId(),
                           applicationClass: applicationClass)
    }

    /// Parses the JSON the client would send, as the server does.
    private func reparsed<Request: SignedRequest>(_ request: Request) throws -> Request {
        try Request(jsonBytes: request.jsonBytes)
    }

    @Test func registrationVerifiesAsProofOfPossession() async throws {
        let client = try makeClient()
        try await withTeardown({ try? await client.shutdown() }) {
            var generator = SystemRandomNumberGenerator()
            let guid = CsiGuid.random(using: &generator)
            let key = CsiSigningKey.generate()
            let claims = PatientClaims(dateOfBirth: "1970-01-31", firstName: "Ada", lastName: "Example", gender: "female")
            let request = try CsiSession.registrationRequest(client: client, guid: guid, applicationClass: CsiIdentity.walletApplicationClass,
                                                             claims: claims, key: key, deviceId: "65073A24-A6B4-4FF6-93CA-5C8DCC857862")
            #expect(request.envelope.cipherField == .cipherSpec)
            #expect(request.envelope.csiGuid == guid.rawValue)
            #expect(ProtocolNonce.isValid(request.envelope.nonce))
            #expect(Timestamp(wireText: request.envelope.dateTime) != nil)
            #expect(request.publicClaims.map(\.key) == ["DateofBirth", "FirstName", "MiddleName", "LastName", "Gender"])
            let accepted = try SignedRequestVerifier.verifyRegistration(try reparsed(request), mode: .strict)
            #expect(accepted.value == key.publicKey)
            #expect(accepted.quirks.isEmpty)

            // The signature covers the claims and the application class.
            var altered = request
            altered.publicClaims[1].value = "Eve"
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verifyRegistration(altered, mode: .strict) }
            altered = request
            altered.applicationClass = CsiIdentity.appApplicationClass
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verifyRegistration(altered, mode: .strict) }
        }
    }

    @Test func pipesInSignedValuesAreRefused() async throws {
        let client = try makeClient()
        try await withTeardown({ try? await client.shutdown() }) {
            var generator = SystemRandomNumberGenerator()
            #expect(throws: FhirBlocksClientError.self) {
                try CsiSession.registrationRequest(client: client, guid: CsiGuid.random(using: &generator), applicationClass: "org.fhirblocks.csa",
                                                   claims: PatientClaims(firstName: "A|B"), key: .generate(), deviceId: "D")
            }
        }
    }

    @Test func permissionRequestsVerifyWithTheRegisteredKey() async throws {
        let client = try makeClient()
        try await withTeardown({ try? await client.shutdown() }) {
            let me = identity(applicationClass: CsiIdentity.walletApplicationClass)
            let session = CsiSession(client: client, identity: me)
            var generator = SystemRandomNumberGenerator()
            let grantees = [CsiGuid.random(using: &generator), CsiGuid.random(using: &generator)]
            let scope = PermissionScope(permissionType: .patient, resource: .type("Observation"), access: .v1Read, confidentialityCeiling: .N,
                                        sensitivities: SensitivitySet(Set([SensitivityCode("ETH"), SensitivityCode("SOC")].compactMap { $0 })))
            let window = TimeWindow(notBefore: Timestamp(secondsSince1970: 1_800_000_000), notAfter: Timestamp(secondsSince1970: 1_900_000_000))

            let write = try reparsed(try session.writePermissionRequest(to: grantees, scope: scope, window: window))
            #expect(try SignedRequestVerifier.verify(write, publicKey: me.key.publicKey, mode: .strict).isEmpty)
            let grant = try GrantRequest(write, quirks: [])
            #expect(grant.grantor == me.csiGuid)
            #expect(grant.grantees == grantees)
            #expect(grant.scope == scope)
            #expect(grant.window == window)
            #expect(grant.accessIsSigned)

            // accessType is signed in strict mode: changing it breaks the signature.
            var escalated = write
            escalated.permission.heartScope.accessType = "cruds"
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(escalated, publicKey: me.key.publicKey, mode: .strict) }

            let delete = try reparsed(try session.deletePermissionRequest(grantee: grantees[0]))
            #expect(try SignedRequestVerifier.verify(delete, publicKey: me.key.publicKey, mode: .strict).isEmpty)
            #expect(delete.grantee == grantees[0])

            let claims = try reparsed(try session.fetchPublicClaimsRequest(of: grantees[1]))
            #expect(try SignedRequestVerifier.verify(claims, publicKey: me.key.publicKey, mode: .strict).isEmpty)

            let byMe = try reparsed(try session.permissionsGrantedByMeRequest())
            #expect(try SignedRequestVerifier.verify(byMe, publicKey: me.key.publicKey, mode: .strict).isEmpty)
            let toMe = try reparsed(try session.permissionsGivenToMeRequest())
            #expect(try SignedRequestVerifier.verify(toMe, publicKey: me.key.publicKey, mode: .strict).isEmpty)

            // Another key does not verify, and two requests never share a nonce.
            #expect(throws: SMOACError.self) { try SignedRequestVerifier.verify(toMe, publicKey: CsiSigningKey.generate().publicKey, mode: .strict) }
            #expect(try session.permissionsGivenToMeRequest().envelope.nonce != toMe.envelope.nonce)
            // The empty window and the empty grantee list are refused before signing.
            #expect(throws: FhirBlocksClientError.self) {
                try session.writePermissionRequest(to: grantees, scope: scope, window: TimeWindow(notBefore: window.notAfter, notAfter: window.notBefore))
            }
            #expect(throws: FhirBlocksClientError.self) { try session.writePermissionRequest(to: [], scope: scope, window: window) }
        }
    }

    @Test func envelopesAreDatedByTheServerAdjustedClock() async throws {
        // The server is one hour ahead: the envelope's dateTime must be an hour ahead of local time.
        let hour: Int64 = 3_600_000
        let client = try makeClient(offsetMilliseconds: hour)
        try await withTeardown({ try? await client.shutdown() }) {
            let session = CsiSession(client: client, identity: identity())
            let request = try session.permissionsGivenToMeRequest()
            let dated = try #require(Timestamp(wireText: request.envelope.dateTime))
            let local = ServerClock.systemTime()
            #expect(abs(dated.milliseconds(since: local) - hour) < 5_000)
        }
    }

    @Test func clockOffsetIsServerMinusLocal() {
        let local = Timestamp(secondsSince1970: 1_700_000_000)
        let clock = ServerClock(localClock: { local })
        #expect(!clock.isSynchronized)
        #expect(clock.now() == local)
        // Sent at local, answered 200 ms later; the server read 10 minutes ahead at the midpoint.
        let offset = clock.record(serverTime: local.adding(milliseconds: 100 + 600_000), sentAt: local, receivedAt: local.adding(milliseconds: 200))
        #expect(offset == 600_000)
        #expect(clock.now() == local.adding(milliseconds: 600_000))
        // A server behind the local clock gives a negative offset.
        clock.record(serverTime: local.adding(seconds: -30), sentAt: local, receivedAt: local)
        #expect(clock.offsetMilliseconds == -30_000)
        #expect(clock.now() == local.adding(seconds: -30))
    }
}
