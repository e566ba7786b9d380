import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TestSupport

/// Each area's route collection mounted alone on a bare router, given only the components it
/// is built from (the ledger and token cache, the committer with the audit log, the rate
/// limits, keys), and reached through HummingbirdTesting's router mode: the handlers answer
/// from their own controller, not through `TrustService` or another area's routes.
@Suite struct AreaControllerTests {
    /// Runs `body` with a router-mode client of a router holding only what `mount` adds.
    static func exchange<Value: Sendable>(_ mount: (Router<FhirBlocksRequestContext>) -> Void,
                                          _ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        var logger = Logger(label: "fhirblocks-test")
        logger.logLevel = .warning
        let router = Router(context: FhirBlocksRequestContext.self)
        mount(router)
        return try await Application(router: router, logger: logger).test(.router) { client in try await body(client) }
    }

    static func send(_ client: any TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, body: String? = nil,
                     headers: HTTPFields = [:]) async throws -> (status: Int, headers: HTTPFields, json: JSONObject, text: String) {
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let bytes = Array(response.body.readableBytesView)
        return (Int(response.status.code), response.headers, (try? JSONParser.parse(bytes))?.objectValue ?? JSONObject(),
                String(decoding: bytes, as: UTF8.self))
    }

    @Test(arguments: TestBackend.available)
    func auditRoutesAnswerFromTheLogAlone(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            let service = world.service
            let index = try await service.appendAuditEntry(AuditEntry(type: .registration, recorded: world.now, agent: "area-test"))
            let audit = AuditController(store: service.store, trustLedger: service.trustLedger, committer: service.committer, auditKey: service.auditKey)
            try await Self.exchange({ router in
                router.addRoutes(audit.routes, atPath: "audit")
                router.addRoutes(audit.validateRoutes)
            }) { client in
                let key = try await Self.send(client, .get, "/audit/key")
                #expect(key.status == 200)
                // The log's URL without its scheme (C2SP tlog-checkpoint's schema-less origin).
                let origin = ChangeCommitter.checkpointOrigin(publicBaseURL: TestWorld.base)
                #expect(!origin.contains("://") && key.json["origin"] == .string(origin))
                let checkpoint = try await Self.send(client, .get, "/audit/checkpoint")
                #expect(checkpoint.status == 200)
                #expect(checkpoint.text.hasPrefix(origin + "\n"))
                let proof = try await Self.send(client, .get, "/audit/proof/inclusion?index=\(index)")
                #expect(proof.status == 200)
                #expect(proof.json["leafIndex"] == .number(String(index)))
                // Without a token the reader is anonymous: leaf hashes, no entry.
                let entries = try await Self.send(client, .get, "/audit/entries?from=\(index)&count=1")
                let first = entries.json["entries"]?.arrayValue?.first?.objectValue
                #expect(first?["leafHash"] != nil)
                #expect(first?["entry"] == nil)
                // An inactive token is refused, not treated as anonymous.
                let inactive = try await Self.send(client, .get, "/audit/entries", headers: [.authorization: "Bearer not-a-token"])
                #expect(inactive.status == 401)
                #expect(try await Self.send(client, .post, "/audit/validate", body: "{}").status == 400)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func smoacAndSmartRoutesAnswerFromTheirControllers(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            let service = world.service
            let smoac = SMOACController(store: service.store, trustLedger: service.trustLedger, committer: service.committer, rateLimits: service.rateLimits)
            let smart = SmartAuthorizationController(store: service.store, trustLedger: service.trustLedger, committer: service.committer,
                                                     rateLimits: service.rateLimits, discovery: service.discovery)
            try await Self.exchange({ router in
                router.addRoutes(smoac.routes, atPath: "smoac")
                smart.addRoutes(to: router)
            }) { client in
                #expect(try await Self.send(client, .get, "/smoac/util/ping").json["name"] == .string("fhirblocks-smoac"))
                #expect(try await Self.send(client, .post, "/smoac/util/ping").status == 400)
                let guid = try await Self.send(client, .get, "/smoac/util/getGloballyUniqueIdentifier")
                #expect(guid.status == 200)
                #expect(guid.json["guid"]?.stringValue.flatMap(CsiGuid.init) != nil)
                let registered = try await Self.send(client, .post, "/oauth/register", body: #"{"redirect_uris":["https://app.example/cb"]}"#)
                #expect(registered.status == 201)
                #expect(registered.json["token_endpoint_auth_method"] == .string("none"))
                let unsupported = try await Self.send(client, .post, "/oauth/token", body: "grant_type=password",
                                                      headers: [.contentType: "application/x-www-form-urlencoded"])
                #expect(unsupported.json["error"] == .string("unsupported_grant_type"))
                let introspection = try await Self.send(client, .post, "/oauth/introspect", body: "token=x")
                #expect(introspection.status == 401)
                #expect(try await Self.send(client, .get, "/.well-known/smart-configuration").json["token_endpoint"]
                    == .string(TestWorld.base + "/oauth/token"))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func fhirRoutesAuthenticateBeforeTheirHandlers(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            let service = world.service
            let fhir = FHIRController(store: service.store, historyStore: service.store as? any ResourceHistoryStore, trustLedger: service.trustLedger,
                                      committer: service.committer, cardIssuerKey: service.cardIssuerKey, discovery: service.discovery)
            try await Self.exchange({ router in router.addRoutes(fhir.routes, atPath: "fhir") }) { client in
                #expect(try await Self.send(client, .get, "/fhir/metadata").json["resourceType"] == .string("CapabilityStatement"))
                for (method, path) in [(HTTPRequest.Method.get, "/fhir/Observation"), (.post, "/fhir/Observation"), (.get, "/fhir/Patient/p1"),
                                       (.delete, "/fhir/Observation/o1"), (.get, "/fhir/Patient/p1/$everything")] {
                    let answer = try await Self.send(client, method, path, headers: [.authorization: "Bearer unknown"])
                    #expect(answer.status == 401, "\(method) \(path)")
                    #expect(answer.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "\(method) \(path)")
                }
            }
        }
    }
}
