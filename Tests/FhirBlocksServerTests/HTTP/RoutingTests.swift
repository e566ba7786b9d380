import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Testing

/// The routes are registered once, concretely, and routed by Hummingbird alone (HummingbirdTesting's
/// router mode): methods a path does not take, paths nobody serves, path parameters with odd
/// characters, the `/smoac` prefix, and the route patterns the metrics are labelled with.
@Suite struct RoutingTests {
    static func text(_ response: ServiceResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// A wallet's token for its own compartment, with `Observation/o1` stored.
    static func walletToken(_ world: TestWorld) async throws -> String {
        let wallet = try await world.register(.wallet("w", firstName: "A"))
        let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
        let put = await world.fhir("PUT", "Observation/o1", token: token, body: FHIREndpointTests.observation("o1"))
        try #require(put.status == 201)
        return token
    }

    @Test func aMethodAPathDoesNotTakeIsRefusedByItsRoute() async throws {
        try await TestWorld.with(.sqlite) { world in
            let token = try await Self.walletToken(world)
            // The instance route takes PATCH only to refuse it: 405 for a caller with a token, and
            // 401 (nothing about the path) without one; DELETE deletes (401 without a token).
            let refused = await world.fhir("PATCH", "Observation/o1", token: token)
            #expect(refused.status == 405 && Self.text(refused).contains("does not patch"))
            for method in ["DELETE", "PATCH"] { #expect(await world.fhir(method, "Observation/o1", token: nil).status == 401) }
            #expect(await world.fhir("GET", "Observation/o1", token: token).status == 200)
            #expect(await world.fhir("DELETE", "Observation/o1", token: token).status == 204)
            #expect(await world.fhir("GET", "Observation/o1", token: token).status == 410)
            // POST on an instance (but `$validate`) and DELETE on a type: the FHIR 404.
            for (method, path) in [("POST", "Observation/o1"), ("DELETE", "Observation"),
                                   ("GET", "Patient/x/$health-cards-issue"), ("POST", "Patient/x/$everything")] {
                let unknown = await world.fhir(method, path, token: token)
                #expect(unknown.status == 404 && Self.text(unknown).contains("unknown FHIR path"), "\(method) \(path)")
            }
            // The CapabilityStatement needs no token for GET; POST there is a create of an unknown type.
            #expect(await world.fhir("GET", "metadata", token: nil).status == 200)
            let created = await world.fhir("POST", "metadata", token: token, body: Array(#"{"resourceType":"metadata"}"#.utf8))
            #expect(created.status == 404 && Self.text(created).contains("unknown resource type"))
            // A SMOAC endpoint called with the method it does not take: 400 naming the one it takes.
            let wrong = await world.smoac("csi/requestCsiRegistration", method: "GET")
            #expect(wrong.status == 400 && Self.text(wrong).contains("csi/requestCsiRegistration takes POST"))
            // The audit log's routes take GET only, `audit/validate` POST only: Hummingbird's 404.
            #expect(await world.router.send("POST", "/audit/checkpoint").status == 404)
            #expect(await world.router.send("GET", "/audit/validate").status == 404)
            #expect(await world.router.send("DELETE", "/oauth/token").status == 404)
        }
    }

    @Test func pathsNobodyServesAnswerAsBefore() async throws {
        try await TestWorld.with(.sqlite) { world in
            let token = try await Self.walletToken(world)
            for path in ["/nothing", "/fhirx", "/smoac/nothing", "/util/nothing", "/audit", "/audit/proof", "/oauth"] {
                let response = await world.router.send("GET", path, headers: [("Authorization", "Bearer \(token)")])
                #expect(response.status == 404 && response.body.isEmpty, "\(path)")
            }
            // Under /fhir the catch-all route answers: 401 without a token, else the FHIR 404.
            for path in ["Observation/o1/_history/1/x", "a/b/c/d", "metadata/x/y", "Patient/x/y/z", "Patient/x/$everything/y"] {
                #expect(await world.fhir("GET", path, token: nil).status == 401, "\(path)")
                let unknown = await world.fhir("GET", path, token: token)
                #expect(unknown.status == 404 && world.json(unknown)["resourceType"] == .string("OperationOutcome")
                            && Self.text(unknown).contains("unknown FHIR path"), "\(path)")
            }
            // Two segments are a type and an id, whatever they say.
            let unknownType = await world.fhir("GET", ".well-known/other", token: token)
            #expect(unknownType.status == 404 && Self.text(unknownType).contains("unknown resource"))
            // The discovery document under /fhir is its own route, GET only.
            #expect(await world.fhir("GET", ".well-known/smart-configuration", token: nil).status == 200)
            #expect(await world.fhir("POST", ".well-known/smart-configuration", token: token).status == 404)
        }
    }

    @Test func pathParametersArePassedAsSent() async throws {
        try await TestWorld.with(.sqlite) { world in
            let token = try await Self.walletToken(world)
            // Percent-escapes are not decoded into the id: `o%31` is not `o1`, and `a%2Fb` is one
            // segment that is no FHIR id.
            for path in ["Observation/o%31", "Observation/a%2Fb", "Observation/%C3%A9", "Observation/o1%00", "Observation/o1;x=1"] {
                let response = await world.fhir("GET", path, token: token)
                #expect(response.status == 404 && world.json(response)["resourceType"] == .string("OperationOutcome"), "\(path)")
            }
            let badID = await world.fhir("PUT", "Observation/a%2Fb", token: token, body: FHIREndpointTests.observation("x"))
            #expect(badID.status == 400 && Self.text(badID).contains("not a FHIR id"))
            // An unknown type, or one spelled in another case, is no resource type.
            #expect(await world.fhir("GET", "observation/o1", token: token).status == 404)
            #expect(await world.fhir("GET", "Observation%2Fo1", token: token).status == 404)
            // The operation's `$` may be sent as `%24` (in either case of its hex): the same route.
            for operation in ["$health-cards-issue", "%24health-cards-issue", "%24Health-Cards-Issue"] {
                let response = await world.fhir("POST", "Patient/\(UUIDs.zero)/\(operation)", token: token, body: Array("{}".utf8))
                #expect(!Self.text(response).contains("unknown FHIR path"), "\(operation)")
            }
            #expect(Self.text(await world.fhir("POST", "Patient/x/%24other", token: token)).contains("unknown FHIR path"))
        }
    }

    @Test func smoacAndAuditValidateAnswerAtTheRootAndUnderSmoac() async throws {
        try await TestWorld.with(.sqlite) { world in
            for prefix in ["", "/smoac"] {
                let ping = await world.router.send("GET", prefix + "/util/ping")
                #expect(ping.status == 200 && world.json(ping)["name"] == .string("fhirblocks-smoac"), "\(prefix)")
                let guid = await world.router.send("GET", prefix + "/util/getGUID")
                #expect(guid.status == 200 && world.json(guid)["guid"]?.stringValue.flatMap { CsiGuid($0) } != nil, "\(prefix)")
                let validate = await world.router.send("POST", prefix + "/audit/validate",
                                                       body: Array(#"{"csiGuid":"\#(UUIDs.zero)","signature":"MEUC"}"#.utf8))
                #expect(validate.status == 200 && world.json(validate)["valid"] == .bool(false), "\(prefix)")
            }
            // The prefix is not a prefix of everything: the FHIR, OAuth and audit-log routes are not under it.
            for path in ["/smoac/fhir/metadata", "/smoac/oauth/token", "/smoac/audit/key", "/smoac/smoac/util/ping"] {
                #expect(await world.router.send("GET", path).status == 404, "\(path)")
            }
        }
    }

    @Test func requestsAreCountedByTheirRoutePattern() async throws {
        try await TestWorld.with(.sqlite) { world in
            let token = try await Self.walletToken(world)
            _ = await world.fhir("GET", "Observation/o1", token: token)
            _ = await world.fhir("GET", "Patient/\(UUIDs.zero)/$everything", token: token)
            _ = await world.fhir("GET", "a/b/c", token: token)
            _ = await world.router.send("GET", "/smoac/util/ping")
            let exposition = Self.text(await world.router.send("GET", "/metrics"))
            // The pattern, never the concrete path (which may carry identifiers).
            for route in ["/fhir/{type}/{id}", "/fhir/Patient/{id}/$everything", "/fhir/{type}/{id}/**", "/smoac/util/ping"] {
                #expect(exposition.contains("route=\"\(route)\",method=\"GET\""), "\(route)")
            }
            #expect(!exposition.contains("Observation/o1"))
        }
    }
}

/// A syntactically valid csiGuid that names nobody.
enum UUIDs {
    static let zero = "00000000-0000-4000-8000-000000000000"
}
