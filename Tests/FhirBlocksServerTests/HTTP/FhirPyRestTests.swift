import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// The REST a FHIR client expects, done by Python `fhirpy` (scripts/fhirpy-rest.py) against the
/// server over loopback, on every store: a transaction with `urn:uuid` references, one with a
/// bad entry (nothing stored), `_include`/`_revinclude`, an update, a delete and the histories;
/// what fhirpy got must equal what the server's own answers hold.
@Suite(.enabled(if: FhirClientPeer.hasFhirpy,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with fhirpy (scripts/test.sh installs it when PyPI is reachable) to run the fhirpy REST test"))
struct FhirPyRestTests {
    static func get(_ server: RunningServer, _ path: String, token: String) async throws -> JSONObject {
        let response = try await HTTPExchange.send(.GET, "\(server.baseURL)/fhir/\(path)", headers: [("Authorization", "Bearer \(token)")])
        #expect(response.status == 200, "\(path): \(response.status)")
        return try #require(try JSONParser.parse(response.body).objectValue)
    }

    /// `Type/id|mode` of each entry, sorted (as the script prints them).
    static func named(_ bundle: JSONObject) -> [String] {
        (bundle["entry"]?.arrayValue ?? []).compactMap { entry -> String? in
            guard let object = entry.objectValue, let resource = object["resource"]?.objectValue else { return nil }
            let mode = object["search"]?.objectValue?["mode"]?.stringValue ?? ""
            return "\(resource["resourceType"]?.stringValue ?? "")/\(resource["id"]?.stringValue ?? "")|\(mode)"
        }.sorted()
    }

    /// `[method, etag, has resource]` of each history entry (as the script prints them).
    static func history(_ bundle: JSONObject) -> JSONValue {
        .array((bundle["entry"]?.arrayValue ?? []).map { entry in
            let object = entry.objectValue
            return .array([object?["request"]?.objectValue?["method"] ?? .null, object?["response"]?.objectValue?["etag"] ?? .null,
                           .bool(object?["resource"] != nil)])
        })
    }

    @Test(arguments: TestBackend.available)
    func fhirpyTransactionIncludeHistoryAndDelete(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, clock: .system, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "Alice"))
            let audience = "\(server.baseURL)/oauth/token"
            let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V",
                                                                                  audience: audience))["access_token"]?.stringValue)
            let output = try await FhirClientPeer.run(["\(server.baseURL)/fhir", token], scriptPath: FhirClientPeer.script(named: "fhirpy-rest.py"))
            #expect(output.status == 0, "\(output.error)")
            let result = try #require(try JSONParser.parse(Array(output.output.utf8)).objectValue)

            // The transaction: stored together, the urn:uuid references rewritten.
            #expect(result["transaction_type"] == .string("transaction-response"))
            #expect(result["transaction_statuses"] == .array(["201", "201", "201", "201"].map(JSONValue.string)))
            let ids = (result["ids"]?.arrayValue ?? []).compactMap(\.stringValue)
            try #require(ids.count == 4)
            let (patient, first, second, provenance) = (ids[0], ids[1], ids[2], ids[3])
            #expect(result["subjects"] == .array([.string("Patient/\(patient)"), .string("Patient/\(patient)")]))
            let stored = try await Self.get(server, "Provenance/\(provenance)", token: token)
            #expect(stored["target"]?.arrayValue?.first?.objectValue?["reference"] == .string("Observation/\(first)"))
            // The failing transaction: refused, nothing stored.
            #expect(result["failing_transaction"] == .string("OperationOutcome"))
            #expect(result["count_unchanged"] == .bool(true))

            // _include and _revinclude: what fhirpy read is what the server's search answers now
            // (the second Observation deleted since: only the first, its Patient and Provenance).
            #expect(result["include"] == .array(["Observation/\(first)|match", "Observation/\(second)|match", "Patient/\(patient)|include",
                                                 "Provenance/\(provenance)|include"].sorted().map(JSONValue.string)))
            let query = try #require(result["include_query"]?.stringValue)
            let own = Self.named(try await Self.get(server, query, token: token))
            #expect(own == ["Observation/\(first)|match", "Patient/\(patient)|include", "Provenance/\(provenance)|include"].sorted(), "\(own)")

            // The histories fhirpy read are the server's.
            let firstHistory = try await Self.get(server, "Observation/\(first)/_history", token: token)
            #expect(result["history_first"] == Self.history(firstHistory))
            #expect(result["history_first"] == .array([.array([.string("PUT"), .string("W/\"2\""), .bool(true)]),
                                                       .array([.string("POST"), .string("W/\"1\""), .bool(true)])]))
            let secondHistory = try await Self.get(server, "Observation/\(second)/_history", token: token)
            #expect(result["history_second"] == Self.history(secondHistory))
            #expect(result["history_second"] == .array([.array([.string("DELETE"), .string("W/\"2\""), .bool(false)]),
                                                        .array([.string("POST"), .string("W/\"1\""), .bool(true)])]))
            #expect(result["history_type"] == Self.history(try await Self.get(server, "Observation/_history", token: token)))
            #expect(result["deleted_read"] == .string("ResourceNotFound"))
            #expect(result["first_status"] == .string("amended"))
        }
    }
}
