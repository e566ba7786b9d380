import FhirBlocks
@testable import FhirBlocksServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// ``BearerAuthenticationMiddleware`` on its own routes, through HummingbirdTesting's router
/// mode over a real service and store: what each policy puts into the typed request context
/// (no token, a bad one, a revoked one, an active one) and when the handler runs at all.
@Suite struct BearerAuthenticationMiddlewareTests {
    /// Counts the handler's runs (a final class: the routes' closures are `Sendable`).
    final class Runs: Sendable {
        private let count = Mutex(0)
        func record() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// What a handler read from the context, as text.
    static func describe(_ context: FhirBlocksRequestContext) -> String {
        switch context.authentication {
        case .none: "none"
        case .inactive: "inactive"
        case .active(let access): "active \(access.token.client.rawValue) \(access.token.patient.rawValue) \(access.grants.count)"
        }
    }

    /// A router with one route per policy, each answering what the context holds.
    static func router(_ service: TrustService, runs: Runs) -> Router<FhirBlocksRequestContext> {
        let router = Router(context: FhirBlocksRequestContext.self)
        router.group("optional").add(middleware: BearerAuthenticationMiddleware(service: service, policy: .optional)).get { _, context in
            runs.record()
            return describe(context)
        }
        let required = BearerAuthenticationMiddleware(service: service, policy: .required(refusal: FHIRController.fhirUnauthenticated(), bodyLimit: 16))
        router.group("required").add(middleware: required).post { request, context in
            runs.record()
            // The body the middleware collected reaches the handler whole.
            var request = request
            let body = try await request.collectBody(upTo: 16)
            return describe(context) + " body=" + String(buffer: body)
        }
        router.group("unconfirmed").add(middleware: BearerAuthenticationMiddleware(service: service, policy: .unconfirmed)).get { _, context in
            runs.record()
            guard let resolved = context.unconfirmedBearer else { return "absent" }
            return resolved.access.map { "resolved \($0.token.client.rawValue)" } ?? "resolved nothing"
        }
        return router
    }

    static func send(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, token: String?,
                     body: String = "") async throws -> (status: Int, text: String, challenge: String?) {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: path, method: method, headers: headers, body: body.isEmpty ? nil : ByteBuffer(string: body)) { response in
            (Int(response.status.code), String(buffer: response.body), response.headers[.wwwAuthenticate])
        }
    }

    @Test func eachPolicyFillsTheContextOrRefuses() async throws {
        try await TestWorld.with(.sqlite) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.rs"))["access_token"]?.stringValue)
            let runs = Runs()
            let application = Application(router: Self.router(world.service, runs: runs))
            try await application.test(.router) { client in
                // No token: the optional route runs with `.none`; the required one refuses with the
                // given answer and never runs its handler.
                #expect(try await Self.send(client, .get, "/optional", token: nil).text == "none")
                let missing = try await Self.send(client, .post, "/required", token: nil, body: "x")
                #expect(missing.status == 401 && missing.challenge?.contains("invalid_token") == true)
                #expect(runs.value == 1)
                // A bad token: `.inactive`, and the same refusal.
                #expect(try await Self.send(client, .get, "/optional", token: "nope").text == "inactive")
                #expect(try await Self.send(client, .post, "/required", token: "nope").status == 401)
                #expect(runs.value == 2)
                // A body over the limit is refused as too large before the token is looked at.
                #expect(try await Self.send(client, .post, "/required", token: nil, body: String(repeating: "b", count: 17)).status == 413)
                #expect(try await Self.send(client, .post, "/required", token: token, body: String(repeating: "b", count: 17)).status == 413)
                #expect(runs.value == 2)
                // A good token reaches the handler with the caller's access in the context.
                let expected = "active \(wallet.csi.rawValue) \(wallet.csi.rawValue) "
                let optional = try await Self.send(client, .get, "/optional", token: token)
                #expect(optional.status == 200 && optional.text.hasPrefix(expected))
                let required = try await Self.send(client, .post, "/required", token: token, body: "hello")
                #expect(required.status == 200 && required.text.hasPrefix(expected) && required.text.hasSuffix(" body=hello"))
                // The unconfirmed policy resolves against the installed ledger only.
                #expect(try await Self.send(client, .get, "/unconfirmed", token: nil).text == "absent")
                #expect(try await Self.send(client, .get, "/unconfirmed", token: "nope").text == "resolved nothing")
                #expect(try await Self.send(client, .get, "/unconfirmed", token: token).text == "resolved \(wallet.csi.rawValue)")
                #expect(runs.value == 7)
                // Revoked (through the service, so the store's ledger moved): inactive at once.
                let revoked = try await world.revoke(token, by: wallet)
                #expect(revoked.status == 200)
                #expect(try await Self.send(client, .get, "/optional", token: token).text == "inactive")
                #expect(try await Self.send(client, .post, "/required", token: token, body: "hello").status == 401)
                #expect(runs.value == 8)
            }
        }
    }

    @Test func theApplicationsGroupsAuthenticateBeforeTheirHandlers() async throws {
        try await TestWorld.with(.sqlite) { world in
            let token = try await RoutingTests.walletToken(world)
            // FHIR: 401 with the challenge on every protected route without an active token;
            // 413 before it for a body too large.
            for (method, path) in [("GET", "Observation"), ("POST", "Observation"), ("PUT", "Observation/o2"), ("GET", "Patient/x/$everything")] {
                for presented in [nil, "nope"] as [String?] {
                    let refused = await world.fhir(method, path, token: presented)
                    #expect(refused.status == 401 && refused.headers.contains { $0.0.lowercased() == "www-authenticate" }, "\(method) \(path)")
                }
            }
            let huge = [UInt8](repeating: 0x20, count: world.service.configuration.maximumBodySize + 1)
            #expect(await world.fhir("POST", "Observation", token: nil, body: huge).status == 413)
            #expect(await world.fhir("GET", "Observation", token: token).status == 200)
            // Introspection: invalid_client without an active token; the caller's own token with one.
            let form = TestWorld.form([("token", token)])
            let anonymous = await world.router.send("POST", "/oauth/introspect", body: form)
            #expect(anonymous.status == 401 && RoutingTests.text(anonymous).contains("invalid_client"))
            let introspected = await world.router.send("POST", "/oauth/introspect", headers: [("Authorization", "Bearer \(token)")], body: form)
            #expect(introspected.status == 200 && world.json(introspected)["active"] == .bool(true))
            // The audit log's entries: anonymous without a token, refused with an inactive one.
            #expect(await world.router.send("GET", "/audit/entries").status == 200)
            let inactive = await world.router.send("GET", "/audit/entries", headers: [("Authorization", "Bearer nope")])
            #expect(inactive.status == 401 && RoutingTests.text(inactive).contains("invalid_client"))
            #expect(await world.router.send("GET", "/audit/entries", headers: [("Authorization", "Bearer \(token)")]).status == 200)
        }
    }
}
