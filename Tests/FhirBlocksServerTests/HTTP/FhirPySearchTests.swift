import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import Testing
import TestSupport

/// FHIR search by Python `fhirpy` (scripts/fhirpy-search.py) against the server over loopback:
/// a code and date-range search read through the server's `next` links, its total, and the
/// refusals outside the token's compartment and of an unknown parameter under strict handling.
@Suite(.enabled(if: FhirClientPeer.hasFhirpy,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with fhirpy (scripts/test.sh installs it when PyPI is reachable) to run the fhirpy search test"))
struct FhirPySearchTests {
    @Test func fhirpySearchesWithPaging() async throws {
        let world = try await TestWorld.make(.sqlite, clock: .system, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "Alice"))
            let otherWallet = try await world.register(.wallet("w2", firstName: "Bob"))
            let app = try await world.register(.app("a"))
            let audience = "\(server.baseURL)/oauth/token"
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V",
                                                                                        audience: audience))["access_token"]?.stringValue)
            let days = ["2020-05-01", "2020-01-02", "2019-12-31", "2020-03-03", "2020-07-07", "2021-02-02", "2020-02-02"]
            for (index, day) in days.enumerated() {
                let code = index == 3 ? "8310-5" : "8867-4"
                #expect(await world.fhir("PUT", "Observation/o\(index)", token: walletToken,
                                         body: FHIRSearchTests.observation("o\(index)", code: code, date: day)).status == 201)
            }
            #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            let token = try #require(world.json(try await world.clientCredentials(app, scope: "patient/Observation.rs conf/N", patient: wallet,
                                                                                  audience: audience))["access_token"]?.stringValue)

            let output = try await FhirClientPeer.run(["\(server.baseURL)/fhir", token, wallet.csi.rawValue, otherWallet.csi.rawValue],
                                                      scriptPath: FhirClientPeer.script(named: "fhirpy-search.py"))
            #expect(output.status == 0, "\(output.error)")
            let result = try #require(try JSONParser.parse(Array(output.output.utf8)).objectValue)
            // In 2020, code 8867-4, by date: o1 (01-02), o6 (02-02), o0 (05-01), o4 (07-07).
            #expect(result["ids"] == .array(["o1", "o6", "o0", "o4"].map(JSONValue.string)))
            #expect(result["first_page"] == .array(["o1", "o6"].map(JSONValue.string)))
            #expect(result["total"] == .number("4"))
            #expect(result["outside"] == .array([]))
            #expect(result["everything"] == .array((0..<7).map { JSONValue.string("o\($0)") }))
            #expect(result["everything_outside"] == .string("ResourceNotFound"))
            #expect(result["strict_unknown"] == .string("OperationOutcome"))
        }
    }
}
