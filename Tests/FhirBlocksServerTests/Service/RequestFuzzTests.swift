import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Testing
import TestSupport

/// Mutated request bodies on every endpoint that reads one: the service answers each with a
/// client error (4xx) or, rarely, success — never a crash, never a 5xx — and keeps working.
@Suite struct RequestFuzzTests {

    static func mutate(_ bytes: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
        var result = bytes
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where !result.isEmpty: result[Int.random(in: 0..<result.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1 where !result.isEmpty: result.removeSubrange(Int.random(in: 0..<result.count, using: &generator)...)
            case 2: result.insert(contentsOf: Array(["{", "}", "[", "\"", "\\", ",", ":",
                                                     "null", "1e999", "%", "+", "&", "="].randomElement(using: &generator)!.utf8),
                                  at: Int.random(in: 0...result.count, using: &generator))
            case 3 where result.count > 2: result.remove(at: Int.random(in: 0..<result.count, using: &generator))
            case 4: result += result.prefix(Int.random(in: 0...min(64, result.count), using: &generator))
            default: result.reverse()
            }
        }
        return result
    }

    @Test func mutatedBodiesNeverCrashOrFail500() async throws {
        try await TestWorld.with(.sqlite) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            #expect(try await world.grant(from: wallet, to: [app]).status == 200)
            let token = try await world.vacaToken(app, scope: "patient/Patient.read")
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)

            let seeds: [(String, [UInt8])] = [
                ("csi/requestCsiRegistration", try world.signed(CsiRegistrationRequest(applicationClass: "org.fhirblocks.dapp",
                                                                                       envelope: world.envelope(app, cipherField: .cipherSpec),
                                                                                       deviceId: app.deviceId, publicClaims: app.claims,
                                                                                       publicKey: app.key.publicKey.spkiBase64), by: app)),
                ("csi/fetchPublicClaims", try world.signed(FetchPublicClaimsRequest(envelope: world.envelope(app),
                                                                                    desiredCsiGuid: wallet.csi.rawValue), by: app)),
                ("permission/writePermission", try world.signed(world.writePermissionRequest(from: wallet, to: [app]), by: wallet)),
                ("permission/fetchPermissionsGivenToMe", try world.signed(FetchPermissionsGivenToMeRequest(envelope: world.envelope(app)), by: app)),
                ("permission/deletePermission", try world.signed(DeletePermissionRequest(envelope: world.envelope(wallet),
                                                                                         permissionedGuidBeingDeleted: app.csi.rawValue), by: wallet)),
                ("vaca/auth", TestWorld.form([("grant_type", VacaAuthRequest.jwtBearerGrantType),
                                              ("assertion", try world.assertion(app, audience: "\(TestWorld.base)/vaca/auth",
                                                                                scope: "patient/Patient.read"))])),
                ("vaca/access", TestWorld.form([("grant_type", "authorization_code"), ("code", "abc"),
                                                ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                                                ("client_assertion", try world.assertion(app, audience: "\(TestWorld.base)/vaca/access"))])),
            ]
            var generator = SplitMix64(seed: 0x5EED)
            var statuses: [Int: Int] = [:]
            for (path, seed) in seeds {
                for _ in 0..<150 {
                    let response = await world.smoac(path, body: Self.mutate(seed, using: &generator))
                    statuses[response.status, default: 0] += 1
                    #expect(response.status < 500, "\(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
                    #expect((try? JSONParser.parse(response.body)) != nil, "\(path): the error body is not JSON")
                }
            }
            let tokenForm = TestWorld.form([("grant_type", "client_credentials"), ("scope", "patient/Patient.read"),
                                            ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                                            ("client_assertion", try world.assertion(app, audience: "\(TestWorld.base)/oauth/token"))])
            let resource = Array(#"{"resourceType":"Patient","id":"p","name":[{"family":"X","given":["Y"]}],"birthDate":"1970-01-01"}"#.utf8)
            for _ in 0..<150 {
                let tokenResponse = await world.service.token(ServiceRequest(method: "POST", path: "/oauth/token",
                                                                             body: Self.mutate(tokenForm, using: &generator)))
                #expect(tokenResponse.status < 500)
                let introspection = await world.service.introspect(ServiceRequest(method: "POST", path: "/oauth/introspect",
                                                                                  headers: ["authorization": "Bearer \(token)"],
                                                                                  body: Self.mutate(TestWorld.form([("token", token)]), using: &generator)))
                #expect(introspection.status < 500)
                let put = await world.fhir("PUT", "Patient/p", token: walletToken, body: Self.mutate(resource, using: &generator))
                #expect(put.status < 500, "\(String(decoding: put.body, as: UTF8.self))")
                let validate = await world.router.send("POST", "/audit/validate",
                                                       body: Self.mutate(Array(#"{"csiGuid":"\#(app.csi.rawValue)","signature":"MEUC"}"#.utf8),
                                                                         using: &generator))
                #expect(validate.status < 500)
            }
            // Most mutations are refused; the service still works.
            #expect((statuses[400] ?? 0) + (statuses[401] ?? 0) > 500)
            #expect(world.json(await world.smoac("util/ping", method: "GET"))["name"] == .string("fhirblocks-smoac"))
            #expect(await world.fhir("GET", "Patient", token: token).status == 200)
        }
    }

    /// The shapes that made parsing quadratic before authentication: forms of many fields, a
    /// repeat at the very end, long scope strings, many grantees, JSON with many (escaped) keys.
    /// Each is answered with a client error (or a refusal) and the service keeps working.
    @Test func adversarialShapesAreRefused() async throws {
        try await TestWorld.with(.sqlite) { world in
            let app = try await world.register(.app("a"))
            let manyFields = Array((0..<20_000).map { "f\($0)=x" }.joined(separator: "&").utf8)
            let repeatAtEnd = manyFields + Array("&f0=again".utf8)
            let longScope = TestWorld.form([("grant_type", "client_credentials"),
                                            ("scope", (0..<8_000).map { $0 % 2 == 0 ? "patient/Patient.read" : "conf/X" }.joined(separator: " ")),
                                            ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                                            ("client_assertion", try world.assertion(app, audience: "\(TestWorld.base)/oauth/token"))])
            let manyKeys = Array(("{" + (0..<20_000).map { "\"\\u006b\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
            for body in [manyFields, repeatAtEnd] {
                let auth = await world.smoac("vaca/auth", body: body)
                #expect((400..<500).contains(auth.status))
                let token = await world.service.token(ServiceRequest(method: "POST", path: "/oauth/token", body: body))
                #expect((400..<500).contains(token.status))
            }
            let scoped = await world.service.token(ServiceRequest(method: "POST", path: "/oauth/token", body: longScope))
            #expect(scoped.status < 500)
            for path in ["csi/requestCsiRegistration", "permission/writePermission", "csi/fetchPublicClaims"] {
                #expect((400..<500).contains(await world.smoac(path, body: manyKeys).status), "\(path)")
            }
            #expect(world.json(await world.smoac("util/ping", method: "GET"))["name"] == .string("fhirblocks-smoac"))
        }
    }
}
