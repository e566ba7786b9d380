import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import Testing

/// Issue 33: a label in a variant spelling of a system the server understands is read as that
/// system's (an `R` in `HTTPS://…/V3-CONFIDENTIALITY/` is above an N ceiling), and a label in a
/// system it does not understand hides the resource from every grantee: an N-ceiling app can
/// neither read nor find by search what such labels cover, while the patient's wallet still can.
/// Over loopback HTTP.
@Suite struct SecurityLabelVariantTests {
    /// Observation id and its `meta.security` codings (system, code); `visibleToApp` is what an
    /// N-ceiling app without sensitivities may see.
    static let labelled: [(id: String, security: [(String, String)], visibleToApp: Bool)] = [
        ("plain", [], true),
        ("variant-n", [("https://terminology.hl7.org/codesystem/v3-confidentiality/", "N")], true),
        ("integrity", [("HTTP://TERMINOLOGY.HL7.ORG/CODESYSTEM/V3-OBSERVATIONVALUE", "MASKED")], true),
        ("variant-r-https", [("https://terminology.hl7.org/CodeSystem/v3-Confidentiality", "R")], false),
        ("variant-r-slash", [("http://terminology.hl7.org/CodeSystem/v3-Confidentiality/", "R")], false),
        ("variant-r-upper", [("HTTP://TERMINOLOGY.HL7.ORG/CODESYSTEM/V3-CONFIDENTIALITY", "R")], false),
        ("variant-hiv", [("https://terminology.hl7.org/CodeSystem/v3-ActCode//", "HIV")], false),
        ("unknown-system", [("http://example.org/our-labels", "N")], false),
        ("unknown-beside-n", [("http://terminology.hl7.org/CodeSystem/v3-Confidentiality", "N"), ("urn:example:restricted", "R")], false),
        ("purpose-of-use", [("http://terminology.hl7.org/CodeSystem/v3-ActReason", "HTRT")], false),
        ("near-miss", [("http://www.terminology.hl7.org/CodeSystem/v3-Confidentiality", "R")], false),
    ]

    static func observation(_ id: String, security: [(String, String)]) -> [UInt8] {
        let labels = security.map { #"{"system":"\#($0.0)","code":"\#($0.1)"}"# }.joined(separator: ",")
        let meta = security.isEmpty ? "" : #","meta":{"security":[\#(labels)]}"#
        return Array(#"""
            {"resourceType":"Observation","id":"\#(id)","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},
             "effectiveDateTime":"2021-02-18","valueQuantity":{"value":60,"unit":"/min"}\#(meta)}
            """#.utf8)
    }

    static func get(_ server: RunningServer, _ path: String, token: String) async throws -> (status: Int, json: JSONObject) {
        let response = try await HTTPExchange.send(.GET, "\(server.baseURL)/fhir/\(path)", headers: [("Authorization", "Bearer \(token)")])
        return (response.status, (try? JSONParser.parse(response.body))?.objectValue ?? JSONObject())
    }

    static func ids(_ bundle: JSONObject) -> Set<String> {
        Set(bundle["entry"]?.arrayValue?.compactMap { $0["resource"]?["id"]?.stringValue } ?? [])
    }

    @Test(arguments: TestBackend.available)
    func variantAndUnknownLabelsHideFromGrantees(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet,
                                                                                        scope: "patient/*.cruds conf/V sens/HIV"))["access_token"]?.stringValue)
            let app = try await world.register(.app("reader"))
            #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            let appToken = try await world.vacaToken(app, scope: "patient/Observation.rs conf/N")
            let server = try await RunningServer.start(world.service)
            do {
                for item in Self.labelled {
                    let stored = try await HTTPExchange.send(.PUT, "\(server.baseURL)/fhir/Observation/\(item.id)",
                                                             headers: [("Authorization", "Bearer \(walletToken)"), ("Content-Type", "application/fhir+json")],
                                                             body: Self.observation(item.id, security: item.security))
                    try #require(stored.status == 201, "\(item.id): \(String(decoding: stored.body, as: UTF8.self))")
                }
                let shown = Set(Self.labelled.filter(\.visibleToApp).map(\.id))
                for item in Self.labelled {
                    #expect(try await Self.get(server, "Observation/\(item.id)", token: appToken).status == (item.visibleToApp ? 200 : 404), "\(item.id)")
                    #expect(try await Self.get(server, "Observation/\(item.id)", token: walletToken).status == 200, "\(item.id)")
                }
                // Searches through the index's labels: the same rule.
                for query in ["", "?code=8867-4", "?_sort=-date", "?date=2021-02-18"] {
                    var found: Set<String> = []
                    // Pages of 3, so hidden resources cannot hide behind a page boundary.
                    var next: String? = "Observation\(query.isEmpty ? "?" : query + "&")_count=3"
                    while let path = next {
                        let page = try await Self.get(server, path, token: appToken)
                        #expect(page.status == 200, "\(query)")
                        found.formUnion(Self.ids(page.json))
                        next = page.json["link"]?.arrayValue?.first { $0["relation"] == .string("next") }?["url"]?.stringValue
                            .map { String($0.dropFirst("\(TestWorld.base)/fhir/".count)) }
                    }
                    #expect(found == shown, "\(query)")
                    let total = try await Self.get(server, "Observation\(query)", token: appToken).json["total"]
                    #expect(total == nil || total == .number(String(shown.count)), "\(query)")
                    let own = try await Self.get(server, "Observation\(query.isEmpty ? "?_count=100" : query + "&_count=100")", token: walletToken)
                    #expect(Self.ids(own.json) == Set(Self.labelled.map(\.id)), "\(query)")
                }
                // A label search names the system exactly as stored; what it finds is filtered the same way.
                let bySecurity = try await Self.get(server, "Observation?_security=R", token: appToken)
                #expect(bySecurity.status == 200 && Self.ids(bySecurity.json).isEmpty)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }
}
