import FhirBlocks
import FhirBlocksStore
import Foundation
import Testing

/// The search index writes are one list of statements for both stores (`SearchIndexSQL`): the
/// same text and values, only the rows a statement carries differ; a resource with more token
/// values than one PostgreSQL statement carries is indexed whole on both stores.
@Suite struct SearchIndexSQLTests {
    /// An Observation of `count` codes (`c0`, `c1`, …) dated 2020-05-01.
    static func observation(id: String, codes count: Int, patient: CsiGuid) -> FHIRResourceRecord {
        let codings = (0..<count).map { #"{"system":"http://example.org","code":"c\#($0)"}"# }.joined(separator: ",")
        let json = #"{"resourceType":"Observation","id":"\#(id)","status":"final","code":{"coding":[\#(codings)]},"#
            + #""effectiveDateTime":"2020-05-01"}"#
        return FHIRResourceRecord(type: "Observation", id: id, patient: patient, versionID: 1, lastUpdated: Fixtures.t0, json: Array(json.utf8))
    }

    @Test("Both dialects: the two deletes, then the same rows with the same values; SQLite one row a statement, PostgreSQL up to 64")
    func statementsPerDialect() {
        let record = Self.observation(id: "o1", codes: 150, patient: Fixtures.csi())
        let sqlite = SearchIndexSQL.writes(record, dialect: .sqlite)
        let postgres = SearchIndexSQL.writes(record, dialect: .postgres)
        #expect(sqlite.prefix(2) == postgres.prefix(2))
        #expect(sqlite[0].sql == "DELETE FROM fhir_search_token WHERE patient = ? AND type = ? AND id = ?")
        #expect(sqlite.dropFirst(2).flatMap(\.arguments) == postgres.dropFirst(2).flatMap(\.arguments))
        let tokenRows = sqlite.filter { $0.sql.hasPrefix("INSERT INTO fhir_search_token") }.count
        #expect(tokenRows >= 151)  // the 150 codes and the status
        let tokenStatements = postgres.filter { $0.sql.hasPrefix("INSERT INTO fhir_search_token") }
        #expect(tokenStatements.count == (tokenRows + 63) / 64)
        #expect(tokenStatements.allSatisfy { $0.arguments.count % 10 == 0 && $0.arguments.count <= 640 })
        #expect(sqlite.first { $0.sql.hasPrefix("INSERT INTO fhir_search_token") }?.sql == """
            INSERT INTO fhir_search_token (patient, type, id, param, system, code, hull_low, hull_high, hull_single, hull_span) \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        #expect(sqlite.last?.sql == "INSERT INTO fhir_search_date (patient, type, id, param, low, high) VALUES (?, ?, ?, ?, ?, ?)")
        let withoutSpan = SearchIndexSQL.writes(record, dialect: .sqlite, hullSpan: false)
        #expect(withoutSpan[2].sql.contains("hull_single) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"))
    }

    @Test("A resource of 150 codes is found by its first and its last code, on both stores", arguments: StoreBackend.allCases)
    func manyCodesIndexed(backend: StoreBackend) async throws {
        guard backend == .sqlite || StoreBackends.postgresAvailable else { return }
        try await StoreBackends.withSession(backend) { session in
            let patient = Fixtures.csi()
            var change = TrustChange()
            change.resources = [FHIRResourceWrite(record: Self.observation(id: "many", codes: 150, patient: patient)),
                                FHIRResourceWrite(record: Self.observation(id: "few", codes: 2, patient: patient))]
            try await session.store.commit(change)
            for (code, expected) in [("c0", ["few", "many"]), ("c149", ["many"]), ("c150", [])] {
                let query = try SearchQuery(type: "Observation", parameters: [("code", "http://example.org|\(code)")], strict: true)
                let found = try await session.store.searchCandidates(patient: patient, query: query).map(\.id).sorted()
                #expect(found == expected, "\(backend) \(code)")
            }
        }
    }
}
