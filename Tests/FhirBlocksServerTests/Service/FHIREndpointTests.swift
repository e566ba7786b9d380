import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Testing

/// The protected FHIR endpoint: compartments, scopes, and label filtering, where a resource
/// the token may not see answers exactly like an absent one.
@Suite struct FHIREndpointTests {
    static func observation(_ id: String, security: [(String, String)] = []) -> [UInt8] {
        let labels = security.map { #"{"system":"\#($0.0)","code":"\#($0.1)"}"# }.joined(separator: ",")
        let meta = security.isEmpty ? "" : #","meta":{"security":[\#(labels)]}"#
        return Array(#"{"resourceType":"Observation","id":"\#(id)","status":"final","code":{"text":"x"}\#(meta)}"#.utf8)
    }

    static let confidentiality = "http://terminology.hl7.org/CodeSystem/v3-Confidentiality"
    static let actCode = "http://terminology.hl7.org/CodeSystem/v3-ActCode"

    @Test(arguments: TestBackend.available)
    func labelFilteringAndCompartments(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let otherWallet = try await world.register(.wallet("w2", firstName: "B"))
            let app = try await world.register(.app("a"))
            let walletGrant = world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V sens/ETH sens/PSY"))
            let walletToken = try #require(walletGrant["access_token"]?.stringValue)
            let otherToken = try #require(world.json(try await world.clientCredentials(otherWallet,
                                                                                       scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            for (id, labels) in [("normal", []), ("restricted", [(Self.confidentiality, "R")]), ("eth", [(Self.actCode, "ETH")]),
                                 ("psy", [(Self.actCode, "PSY")])] as [(String, [(String, String)])] {
                #expect(await world.fhir("PUT", "Observation/\(id)", token: walletToken, body: Self.observation(id, security: labels)).status == 201)
            }
            #expect(await world.fhir("PUT", "Observation/other", token: otherToken, body: Self.observation("other")).status == 201)
            // A second write of the same id is an update (200, version 2).
            let update = await world.fhir("PUT", "Observation/normal", token: walletToken, body: Self.observation("normal"))
            #expect(update.status == 200 && world.json(update)["meta"]?.objectValue?["versionId"] == .string("2"))
            // Ids are scoped by compartment: another wallet writing the same id creates its own
            // resource (201, as for any absent id) and leaves this one alone.
            #expect(await world.fhir("PUT", "Observation/normal", token: otherToken, body: Self.observation("normal")).status == 201)
            #expect(world.json(await world.fhir("GET", "Observation/normal", token: walletToken))["meta"]?.objectValue?["versionId"] == .string("2"))

            // The app may see Observations up to N, with ETH only.
            #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: ["ETH"]).status == 200)
            let token = try await world.vacaToken(app, scope: "patient/Observation.rs conf/N sens/ETH")
            #expect(await world.fhir("GET", "Observation/normal", token: token).status == 200)
            #expect(await world.fhir("GET", "Observation/eth", token: token).status == 200)
            let restricted = await world.fhir("GET", "Observation/restricted", token: token)
            let psy = await world.fhir("GET", "Observation/psy", token: token)
            let absent = await world.fhir("GET", "Observation/absent", token: token)
            let otherPatient = await world.fhir("GET", "Observation/other", token: token)
            // Hidden, other-compartment and absent resources answer byte for byte alike.
            for hidden in [restricted, psy, otherPatient] {
                #expect(hidden.status == absent.status && hidden.status == 404)
                #expect(String(decoding: hidden.body, as: UTF8.self).replacingOccurrences(of: "restricted", with: "X")
                            .replacingOccurrences(of: "psy", with: "X").replacingOccurrences(of: "other", with: "X")
                            == String(decoding: absent.body, as: UTF8.self).replacingOccurrences(of: "absent", with: "X"))
            }
            // Search returns only what the token may see.
            let bundle = world.json(await world.fhir("GET", "Observation", token: token))
            let ids = Set(bundle["entry"]?.arrayValue?.compactMap { $0.objectValue?["resource"]?.objectValue?["id"]?.stringValue } ?? [])
            #expect(ids == ["normal", "eth"] && bundle["total"] == .number("2"))
            // The app's read scope does not allow writing.
            #expect(await world.fhir("PUT", "Observation/new", token: token, body: Self.observation("new")).status == 403)
            // A writer up to N may not overwrite a restricted resource it cannot see, nor write one.
            let provider = try await world.register(.app("writer"))
            #expect(try await world.grant(from: wallet, to: [provider], resource: "Observation",
                                          access: "cruds", confidentiality: "N", sensitivity: []).status == 200)
            let writer = try await world.vacaToken(provider, scope: "patient/Observation.cruds conf/N")
            // A PUT to a resource it cannot see answers exactly as a PUT to a missing id: a
            // grantee may not create with a client-chosen id (405), so neither tells it anything.
            let hiddenPut = await world.fhir("PUT", "Observation/restricted", token: writer, body: Self.observation("restricted"))
            let missingPut = await world.fhir("PUT", "Observation/missing", token: writer, body: Self.observation("missing"))
            #expect(hiddenPut.status == 405 && missingPut.status == 405)
            #expect(hiddenPut.body == missingPut.body && hiddenPut.headers.map(\.0) == missingPut.headers.map(\.0))
            #expect(await world.fhir("POST", "Observation", token: writer,
                                     body: Self.observation("secret", security: [(Self.confidentiality, "R")])).status == 403)
            let created = await world.fhir("POST", "Observation", token: writer, body: Self.observation("plain"))
            #expect(created.status == 201)
            // It updates what it can see.
            let plainID = try #require(world.json(created)["id"]?.stringValue)
            #expect(await world.fhir("PUT", "Observation/\(plainID)", token: writer, body: Self.observation(plainID)).status == 200)
            #expect(world.json(await world.fhir("GET", "Observation/restricted", token: walletToken))["meta"]?.objectValue?["security"] != nil)
            #expect(await world.fhir("GET", "Observation/missing", token: walletToken).status == 404)
            // Each write is audited with its own action: C for a create, U for an update.
            let entries = try await world.store.auditRecords(from: 0, limit: 10_000).compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }
                .filter { $0.type == .fhirAccess && $0.outcome == .success && $0.resources == ["Observation/\(plainID)"] }
            #expect(entries.map(\.action) == ["C", "U"])
            #expect(entries.map { $0.auditEvent(observer: "x").objectValue?["action"] } == [.string("C"), .string("U")])
            // No token / a bad token: 401 with WWW-Authenticate.
            let noToken = await world.fhir("GET", "Observation/normal", token: nil)
            #expect(noToken.status == 401 && noToken.headers.contains { $0.0 == "WWW-Authenticate" })
            #expect(await world.fhir("GET", "Observation/normal", token: "garbage").status == 401)
            // Invalid FHIR is refused with an OperationOutcome.
            let invalid = await world.fhir("PUT", "Observation/bad", token: walletToken, body: Array(#"{"resourceType":"Observation","status":42}"#.utf8))
            #expect(invalid.status == 422 && world.json(invalid)["resourceType"] == .string("OperationOutcome"))
            #expect(await world.fhir("PUT", "Observation/bad", token: walletToken, body: Array("not json".utf8)).status == 400)
            #expect(await world.fhir("PUT", "Patient/bad", token: walletToken, body: Self.observation("bad")).status == 400)
        }
    }

    @Test func metadataAndDiscovery() async throws {
        try await TestWorld.with(.sqlite) { world in
            let metadata = world.json(await world.fhir("GET", "metadata", token: nil))
            #expect(metadata["resourceType"] == .string("CapabilityStatement"))
            let security = metadata["rest"]?.arrayValue?.first?.objectValue?["security"]?.objectValue
            let oauth = security?["extension"]?.arrayValue?.first?.objectValue
            #expect(oauth?["url"] == .string("http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"))
            var uris: [String: String] = [:]
            for item in oauth?["extension"]?.arrayValue ?? [] {
                if let name = item.objectValue?["url"]?.stringValue, let uri = item.objectValue?["valueUri"]?.stringValue { uris[name] = uri }
            }
            #expect(uris == ["token": "\(TestWorld.base)/oauth/token", "authorize": "\(TestWorld.base)/oauth/authorize",
                             "register": "\(TestWorld.base)/oauth/register", "introspect": "\(TestWorld.base)/oauth/introspect",
                             "revoke": "\(TestWorld.base)/oauth/revoke"])
            // The search parameters a client may rely on, on each stored type: the common ones and
            // the type's own from the generated R4 table (Observation's code, date, category, status).
            func names(_ list: JSONValue?) -> Set<String> { Set((list?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }) }
            let rest = metadata["rest"]?.arrayValue?.first
            let observation = rest?["resource"]?.arrayValue?.first { $0["type"] == .string("Observation") }
            let observationNames = names(observation?["searchParam"])
            #expect(observationNames.isSuperset(of: ["_id", "_lastUpdated", "code", "date", "category", "status", "patient", "subject"]))
            let immunization = rest?["resource"]?.arrayValue?.first { $0["type"] == .string("Immunization") }
            let immunizationNames = names(immunization?["searchParam"])
            #expect(immunizationNames.isSuperset(of: ["date", "patient", "status", "vaccine-code"]))
            #expect(observation?["searchParam"]?.arrayValue?.first { $0["name"] == .string("date") }?["type"] == .string("date"))
            let smart = world.json(world.service.smartConfiguration())
            #expect(smart["token_endpoint"] == .string("\(TestWorld.base)/oauth/token"))
            // Backend services (private_key_jwt) and public clients of standalone launch (none).
            #expect(smart["token_endpoint_auth_methods_supported"] == .array([.string("private_key_jwt"), .string("none")]))
            #expect(smart["revocation_endpoint_auth_methods_supported"] == .array([.string("private_key_jwt"), .string("none")]))
            #expect(smart["code_challenge_methods_supported"] == .array([.string("S256")]))
            #expect(smart["response_types_supported"] == .array([.string("code")]))
        }
    }
}
