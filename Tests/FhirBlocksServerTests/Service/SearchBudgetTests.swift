@testable import FhirBlocksPostgres
import ExactJSON
import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Foundation
import PostgresNIO
import Testing

/// Many resources in one compartment, written straight into a store (no HTTP): Observations of
/// code 8867-4, one minute apart from 2020-01-01.
enum SearchLoad {
    /// Observation `index` of `patient`'s compartment.
    static func observation(_ index: Int, patient: CsiGuid) -> FHIRResourceRecord {
        let date = Date(timeIntervalSince1970: 1_577_836_800 + Double(index) * 60)
        let json = """
            {"resourceType":"Observation","id":"o\(index)","status":"final",\
            "code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},\
            "effectiveDateTime":"\(date.formatted(.iso8601))","valueQuantity":{"value":\(60 + index % 40)}}
            """
        return FHIRResourceRecord(type: "Observation", id: "o\(index)", patient: patient, versionID: 1,
                                  lastUpdated: Timestamp(millisecondsSince1970: 1_750_000_000_000 + Int64(index)), json: Array(json.utf8))
    }

    /// Writes `count` Observations through the store's commit, 5,000 a transaction (on
    /// PostgreSQL, where that is one round trip per index row, the rows are written by SQL
    /// instead, as the store writes them).
    static func fill(_ store: any TrustStore, patient: CsiGuid, count: Int) async throws {
        if let postgres = store as? PostgresTrustStore {
            try await fillPostgres(postgres, patient: patient, count: count)
            return
        }
        var start = 0
        while start < count {
            var change = TrustChange()
            change.resources = (start..<min(start + 5_000, count)).map { FHIRResourceWrite(record: observation($0, patient: patient)) }
            start += change.resources.count
            try await store.commit(change)
        }
    }

    static func fillPostgres(_ store: PostgresTrustStore, patient: CsiGuid, count: Int) async throws {
        let patientText = patient.rawValue
        try await store.withTransaction { connection, logger in
            try await connection.query("""
                INSERT INTO fhir_resource (type, id, patient, version_id, last_updated, json)
                SELECT 'Observation', 'o' || i, \(patientText), 1, 1577836800000 + i * 60000,
                    convert_to('{"resourceType":"Observation","id":"o' || i || '","status":"final"}', 'UTF8')
                FROM generate_series(0, \(count - 1)) AS i
                """, logger: logger)
            try await connection.query("""
                INSERT INTO fhir_search_token (patient, type, id, param, system, code, hull_low, hull_high, hull_single, hull_span)
                SELECT patient, type, id, 'code', 'http://loinc.org', '8867-4', last_updated, last_updated + 999, 1, 0
                FROM fhir_resource WHERE patient = \(patientText)
                """, logger: logger)
            try await connection.query("""
                INSERT INTO fhir_search_date (patient, type, id, param, low, high)
                SELECT patient, type, id, 'date', last_updated, last_updated + 999 FROM fhir_resource WHERE patient = \(patientText)
                UNION ALL SELECT patient, type, id, '_lastUpdated', last_updated, last_updated FROM fhir_resource WHERE patient = \(patientText)
                """, logger: logger)
        }
    }
}

/// A search's statements run within the server's time budget (503 with an OperationOutcome
/// and `Retry-After` past it), and a search has at most ``SearchQuery/maximumValues`` values
/// (400 with an OperationOutcome naming the limit beyond it), on both stores.
@Suite struct SearchBudgetTests {
    static func withWorld(_ backend: TestBackend, configure: (inout ServerConfiguration) -> Void = { _ in },
                          _ body: (TestWorld, TestParty, String) async throws -> Void) async throws {
        let world = try await TestWorld.make(backend, configure: configure)
        do {
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            try await body(world, wallet, token)
        } catch {
            await world.close()
            throw error
        }
        await world.close()
    }

    /// The diagnostics of a response's first OperationOutcome issue, and its code.
    static func issue(_ world: TestWorld, _ response: ServiceResponse) -> (code: String?, diagnostics: String?) {
        let outcome = world.json(response)
        guard outcome["resourceType"] == .string("OperationOutcome"), let issue = outcome["issue"]?.arrayValue?.first?.objectValue else {
            return (nil, nil)
        }
        return (issue["code"]?.stringValue, issue["diagnostics"]?.stringValue)
    }

    @Test(arguments: TestBackend.available)
    func aSearchPastItsTimeBudgetAnswers503(backend: TestBackend) async throws {
        // The smallest budget (PostgreSQL's `statement_timeout` counts whole milliseconds): a
        // search over 20,000 resources cannot end within it.
        try await Self.withWorld(backend, configure: { $0.searchTimeBudget = .nanoseconds(1) }) { world, wallet, token in
            try await SearchLoad.fill(world.store, patient: wallet.csi, count: 20_000)
            for parameters in [[("_sort", "-date"), ("_count", "1")], [("code", "8867-4"), ("_lastUpdated", "ge2020"), ("_count", "1")]] {
                let response = await world.fhir("GET", "Observation", token: token, parameters: parameters)
                #expect(response.status == 503, "\(parameters)")
                #expect(Self.issue(world, response).code == "too-costly", "\(String(decoding: response.body, as: UTF8.self))")
                #expect(response.headers.contains { $0.0.lowercased() == "retry-after" && $0.1 == "5" })
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func theDefaultBudgetLetsTheSameSearchEnd(backend: TestBackend) async throws {
        try await Self.withWorld(backend) { world, wallet, token in
            #expect(world.service.configuration.searchTimeBudget == .seconds(10))
            try await SearchLoad.fill(world.store, patient: wallet.csi, count: 2_000)
            let response = await world.fhir("GET", "Observation", token: token, parameters: [("_sort", "-date"), ("_count", "1")])
            #expect(response.status == 200 && world.json(response)["total"] == .number("2000"))
        }
    }

    /// Queries of `values` values or `clauses` clauses in several shapes: alternatives of one
    /// token clause, alternatives of one date clause after a `system|code` (the hull and its
    /// width classes: the most SQL per value), the compartment's own `patient` values; a code
    /// and date clauses (the most SQL per clause), `_lastUpdated` clauses of three values,
    /// `:missing` clauses.
    static func shapes(values: Int, clauses: Int, patient: String) -> [(limit: String, parameters: [(String, String)])] {
        let days: [String] = (0..<max(values, 3 * clauses)).map { String(format: "2020-%02d-%02d", $0 / 28 % 12 + 1, $0 % 28 + 1) }
        let code: (String, String) = ("code", "http://loinc.org|8867-4")
        let codes: String = (0..<values).map { "http://loinc.org|c\($0)" }.joined(separator: ",")
        let dateAlternatives: String = days.prefix(values - 1).map { "ge" + $0 }.joined(separator: ",")
        let patients: String = Array(repeating: patient, count: values - 1).joined(separator: ",")
        let dateClauses: [(String, String)] = days.prefix(clauses - 1).map { ("date", "ge" + $0) }
        let lastUpdated: [(String, String)] = (0..<clauses).map { clause in
            ("_lastUpdated", days[(3 * clause)..<(3 * clause + 3)].map { "ne" + $0 }.joined(separator: ","))
        }
        let missing: [(String, String)] = (1..<clauses).map { _ in ("status:missing", "false") }
        var shapes: [(limit: String, parameters: [(String, String)])] = []
        shapes.append(("values", [("code", codes)]))
        shapes.append(("values", [code, ("date", dateAlternatives)]))
        shapes.append(("values", [("patient", patients), ("code", "8867-4")]))
        shapes.append(("clauses", [code] + dateClauses))
        shapes.append(("clauses", lastUpdated))
        shapes.append(("clauses", [("code", "8867-4")] + missing))
        return shapes
    }

    @Test(arguments: TestBackend.available)
    func aSearchHasAtMostTheDocumentedNumberOfValuesAndClauses(backend: TestBackend) async throws {
        try await Self.withWorld(backend) { world, wallet, token in
            try await SearchLoad.fill(world.store, patient: wallet.csi, count: 20)
            let (values, clauses) = (SearchQuery.maximumValues, SearchQuery.maximumClauses)
            #expect(3 * clauses <= values)
            // At the limits every shape runs on the store within its budget (no 500 from the
            // database's expression or variable limits, no 503).
            for shape in Self.shapes(values: values, clauses: clauses, patient: wallet.csi.rawValue) {
                let response = await world.fhir("GET", "Observation", token: token, parameters: shape.parameters)
                #expect(response.status == 200, "\(shape.parameters.prefix(2)): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            }
            // One more, and four times as many: 400, the limit named.
            for (moreValues, moreClauses) in [(values + 1, clauses + 1), (4 * values, 4 * clauses)] {
                for shape in Self.shapes(values: moreValues, clauses: moreClauses, patient: wallet.csi.rawValue) {
                    let response = await world.fhir("GET", "Observation", token: token, parameters: shape.parameters)
                    #expect(response.status == 400, "\(shape.limit): \(shape.parameters.prefix(2))")
                    let named = shape.limit == "values" ? "at most \(values) values" : "at most \(clauses) clauses"
                    #expect(Self.issue(world, response).diagnostics?.contains(named) == true, "\(Self.issue(world, response))")
                }
            }
        }
    }
}
