import AsyncHTTPClient
import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// The Hummingbird application: the compat quirks that live in HTTP (bare token body,
/// `Bearer<token>`) through its router (HummingbirdTesting, no socket); routes, both path
/// prefixes, size limits, errors, metrics and graceful shutdown on loopback.
@Suite struct FhirBlocksApplicationTests {
    @Test(arguments: TestBackend.available)
    func legacyClientOverHTTP(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, mode: .compat)
        // Through the router: the quirks live in the routes and the service, not the socket.
        try await withTeardown({ await world.close() }) {
            try await RouterExchange.with(world.service) { exchange in
                // No socket: requests carry the path alone. This world has a public URL
                // (https://fb.test), which the legacy assertions name as their audience.
                let base = ""
                #expect(try await exchange.send(.POST, "\(base)/util/ping").status == 200)     // compat: POST on a GET endpoint
                #expect(try await exchange.send(.GET, "\(base)/smoac/util/getTime").status == 200)
                let wallet = try await world.register(.wallet("w", firstName: "A"))
                // A legacy app: registration signed with the legacy payload (hand-built claims text).
                var app = TestParty.app("legacy")
                let guidBody = try await exchange.send(.GET, "\(base)/util/getGloballyUniqueIdentifier").body
                let guidText = world.json(ServiceResponse(body: guidBody))["guid"]?.stringValue ?? ""
                app.csi = try #require(CsiGuid(guidText))
                let registration = CsiRegistrationRequest(applicationClass: app.applicationClass, envelope: world.envelope(app, cipherField: .cipherSpec),
                                                          deviceId: app.deviceId, publicClaims: app.claims, publicKey: app.key.publicKey.spkiBase64)
                let registered = try await exchange.send(.POST, "\(base)/csi/requestCsiRegistration", headers: [("Content-Type", "application/json")],
                                                             body: try world.signed(registration, by: app, style: .legacy))
                #expect(registered.status == 200)
                #expect(try await world.grant(from: wallet, to: [app]).status == 200)
                // Legacy VACA: the non-JWS assertion, unencoded in the form body; then vaca/access with
                // a code-bound legacy client assertion, answered with the bare token.
                let iat = world.now.secondsSince1970
                let payload = #"{"iss":"\#(app.csi.rawValue)","sub":"\#(app.csi.rawValue)","aud":"\#(TestWorld.base)/vaca/auth","iat":"\#(iat)","# +
                    #""exp":"\#(iat + 300)","jti":"\#(app.deviceId)","scope":"patient/Patient.read sens/ETH sens/SOC conf/V","sta":"\#(app.deviceId)"}"#
                let assertion = try AssertionBuilder.legacy(payloadJSON: payload, key: app.key)
                let authBody = Array(("grant_type=authorization_code&assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer" +
                                      "&assertion=\(assertion)").utf8)
                let auth = try await exchange.send(.POST, "\(base)/smoac/vaca/auth", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   body: authBody)
                #expect(auth.status == 200, "\(String(decoding: auth.body, as: UTF8.self))")
                let code = try #require(world.json(ServiceResponse(body: auth.body))["code"]?.stringValue)
                let accessAssertion = try AssertionBuilder.legacy(headerJSON: #"{"kid":"\#(app.csi.rawValue)","alg":"ES256"}"#,
                                                                  payloadJSON: #"{"code":"\#(code)","iss":"\#(app.csi.rawValue)"}"#, key: app.key)
                let accessForm = FormBody(fields: [(name: "grant_type", value: "authorization_code"), (name: "code", value: code),
                                                   (name: "client_assertion_type", value: VacaAuthRequest.jwtBearerAssertionType),
                                                   (name: "client_assertion", value: accessAssertion)]).encoded()
                let access = try await exchange.send(.POST, "\(base)/smoac/vaca/access", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                     body: accessForm)
                #expect(access.status == 200)
                let bareToken = String(decoding: access.body, as: UTF8.self)
                #expect(!bareToken.contains("{") && bareToken.utf8.count == 43)
                // The wallet stores its Patient; the legacy client reads Patient/fbcFhirId with "Bearer<token>".
                let walletToken = try #require(world.json(try await world.clientCredentials(wallet,
                                                                                            scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
                let put = try await exchange.send(.PUT, "\(base)/fhir/Patient/p1",
                                                  headers: [("Authorization", "Bearer \(walletToken)"),
                                                            ("Content-Type", "application/fhir+json")],
                                                      body: Array(#"{"resourceType":"Patient","id":"p1","gender":"female"}"#.utf8))
                #expect(put.status == 201)
                let read = try await exchange.send(.GET, "\(base)/fhir/Patient/fbcFhirId/?_format=json", headers: [("Authorization", "Bearer\(bareToken)")])
                #expect(read.status == 200 && world.json(ServiceResponse(body: read.body))["id"] == .string("p1"))
                // The quirks accepted are in the audit log.
                let quirks = try await world.store.auditRecords(from: 0, limit: 1000)
                    .compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }.flatMap(\.quirks)
                for quirk in [CompatQuirk.handBuiltClaimsText, .legacyJWTEncoding, .legacyJWTSignature, .stringTimeClaims, .constantJTI, .codeBoundAssertion,
                              .bearerWithoutSpace, .fbcFhirIdAlias] {
                    #expect(quirks.contains(quirk), "\(quirk) not audited")
                }
            }
        }
    }

    @Test func limitsErrorsMetricsAndShutdown() async throws {
        let world = try await TestWorld.make(.sqlite)
        let server = try await RunningServer.start(world.service)
        let base = server.baseURL
        // Strict: POST on a GET endpoint is refused with the JSON error body.
        let refused = try await HTTPExchange.send(.POST, "\(base)/util/ping")
        #expect(refused.status == 400 && world.json(ServiceResponse(body: refused.body))["error"] == .string("invalid_request"))
        // Bodies over the limit: 413.
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: (1 << 20) + 1)
        #expect(try await HTTPExchange.send(.POST, "\(base)/permission/writePermission", body: huge).status == 413)
        // Unknown paths: 404.
        #expect(try await HTTPExchange.send(.GET, "\(base)/nowhere").status == 404)
        // Discovery at both places, with CORS.
        let smart = try await HTTPExchange.send(.GET, "\(base)/fhir/.well-known/smart-configuration")
        #expect(smart.status == 200 && smart.headers.contains { $0.0.lowercased() == "access-control-allow-origin" })
        // Metrics: Prometheus text counting the requests above.
        let metrics = String(decoding: try await HTTPExchange.send(.GET, "\(base)/metrics").body, as: UTF8.self)
        #expect(metrics.contains("fhirblocks_http_requests_total") && metrics.contains("status=\"413\""))
        // Graceful shutdown: the task ends, and the port is closed.
        await server.stop()
        let client = HTTPClient(configuration: HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(5))))
        await #expect(throws: (any Error).self) {
            _ = try await client.execute(HTTPClientRequest(url: "\(base)/health"), timeout: .seconds(5))
        }
        try await client.shutdown()
        await world.close()
    }
}
