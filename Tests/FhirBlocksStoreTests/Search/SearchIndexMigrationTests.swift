@testable import FhirBlocksPostgres
@testable import FhirBlocksSQLite
import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB
import PostgresNIO
import Testing

/// The migration that adds the search index indexes the resources already stored.
@Suite struct SearchIndexMigrationTests {
    /// A database file at schema `version` holding one resource of `type` (and, with `indexed`, its
    /// index rows as v6 wrote them), in a fresh folder removed after `body` ran on its path.
    static func withOldDatabase(at version: String, patient: CsiGuid, type: String, id: String, json: String, indexed: Bool,
                                _ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fhirblocks-search-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("trust.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteTrustSchema.migrator.migrate(queue, upTo: version)
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO fhir_resource (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, 1, 0, ?)",
                               arguments: [type, id, patient.rawValue, Data(json.utf8)])
                if indexed {
                    try SQLiteSearchIndex.write(FHIRResourceRecord(type: type, id: id, patient: patient, versionID: 1,
                                                                   lastUpdated: Fixtures.t0, json: Array(json.utf8)),
                                                in: db, hullSpan: false)
                }
            }
            try queue.close()
        }
        try await body(path)
    }

    @Test func sqliteMigrationBackfillsTheIndex() async throws {
        let patient = Fixtures.csi()
        // A database of the previous schema with a resource in it.
        let json = #"{"resourceType":"Condition","id":"c1","code":{"coding":[{"system":"http://snomed.info/sct","code":"44054006"}]},"# +
                   #""recordedDate":"2020-05-01"}"#
        try await Self.withOldDatabase(at: "v3-smart-app-launch", patient: patient, type: "Condition", id: "c1", json: json, indexed: false) { path in
            let store = try SQLiteTrustStore(path: path)
            try await store.migrate()
            let query = try SearchQuery(type: "Condition", parameters: [("code", "http://snomed.info/sct|44054006"), ("recorded-date", "2020")], strict: true)
            let result = try await store.search(query, patient: patient, isVisible: { _ in true })
            #expect(result.records.map(\.id) == ["c1"] && result.total == 1)
            await store.close()
        }
    }

    /// An Observation of code 8867-4 on 2020-05-01, and a query for that code in 2020.
    static let observation = #"{"resourceType":"Observation","id":"o1","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},"# +
                             #""effectiveDateTime":"2020-05-01"}"#
    static let rangeParameters = [("code", "http://loinc.org|8867-4"), ("date", "ge2020-01-01"), ("date", "lt2021-01-01")]

    @Test func sqliteMigrationSetsTheHullSpanOfRowsWrittenBefore() async throws {
        let patient = Fixtures.csi()
        // A database at v6 with a resource and its index rows as v6 wrote them (no width class).
        try await Self.withOldDatabase(at: "v6-search-hull-single", patient: patient, type: "Observation", id: "o1", json: Self.observation,
                                       indexed: true) { path in
            let store = try SQLiteTrustStore(path: path)
            try await store.migrate()
            let query = try SearchQuery(type: "Observation", parameters: Self.rangeParameters, strict: true)
            let result = try await store.search(query, patient: patient, isVisible: { _ in true })
            #expect(result.records.map(\.id) == ["o1"] && result.total == 1)
            await store.close()
            let queue = try DatabaseQueue(path: path)
            let spans = try await queue.read { db in try Int?.fetchAll(db, sql: "SELECT hull_span FROM fhir_search_token WHERE id = 'o1'") }
            #expect(!spans.isEmpty && spans.allSatisfy { $0 == 1 })   // a day
            try queue.close()
        }
    }

    /// The benchmark's search (a code and a date range) reads one range of the value index per
    /// width class of the hull, bounded on both sides of `hull_low` except in the open class.
    @Test func sqliteDateRangeSearchIsOneIndexRangePerWidthClass() async throws {
        let queue = try DatabaseQueue()
        try SQLiteTrustSchema.migrator.migrate(queue)
        let query = try SearchQuery(type: "Observation", parameters: Self.rangeParameters, strict: true)
        let statement = SearchSQL.candidates(patient: Fixtures.csi().rawValue, query: query, distinct: false)
        let plan = try await queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: SQLiteTrustStore.arguments(statement.arguments))
                .map { row -> String in row["detail"] }
                .filter { $0.contains(" r USING ") }
        }
        let bounded = "SEARCH r USING COVERING INDEX fhir_search_token_value " +
            "(patient=? AND type=? AND param=? AND code=? AND system=? AND hull_span=? AND hull_low>? AND hull_low<?)"
        let open = "SEARCH r USING COVERING INDEX fhir_search_token_value " +
            "(patient=? AND type=? AND param=? AND code=? AND system=? AND hull_span=? AND hull_low<?)"
        #expect(plan == Array(repeating: bounded, count: SearchSQL.hullSpanBounds.count) + [open], "\(plan)")
        // A code without its system does not fix the columns before `hull_span`: one range of the
        // code's rows, as before the width classes.
        let codeOnly = try SearchQuery(type: "Observation", parameters: [("code", "8867-4"), ("date", "ge2020-01-01")], strict: true)
        let single = SearchSQL.candidates(patient: Fixtures.csi().rawValue, query: codeOnly, distinct: false)
        let singlePlan = try await queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + single.sql, arguments: SQLiteTrustStore.arguments(single.arguments))
                .map { row -> String in row["detail"] }
                .filter { $0.contains(" r USING ") }
        }
        #expect(singlePlan == ["SEARCH r USING COVERING INDEX fhir_search_token_value (patient=? AND type=? AND param=? AND code=?)"], "\(singlePlan)")
    }

    @Test(.enabled(if: StoreBackends.postgresAvailable, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresMigrationSetsTheHullSpanOfRowsWrittenBefore() async throws {
        try await StoreBackends.withSession(.postgres) { session in
            let store = try #require(session.store as? PostgresTrustStore)
            let patient = Fixtures.csi()
            var change = TrustChange()
            change.resources = [FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "o1", patient: patient, versionID: 1,
                                                                             lastUpdated: Fixtures.t0, json: Array(Self.observation.utf8)))]
            try await store.commit(change)
            // Back to the previous version, the rows kept: as a database before the width class
            // (and before the migrations after it, which run again).
            let hullSpanVersion = try #require(PostgresSchema.migrations.firstIndex(of: SearchSQL.hullSpanUpgrade)) + 1
            try await store.withTransaction { connection, logger in
                try await connection.query("DROP INDEX fhir_search_token_value", logger: logger)
                try await connection.query("ALTER TABLE fhir_search_token DROP COLUMN hull_span", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: SearchSQL.hullSingleUpgrade[2]), logger: logger)
                try await connection.query("DELETE FROM schema_version WHERE version >= \(hullSpanVersion)", logger: logger)
            }
            try await store.migrate()
            let query = try SearchQuery(type: "Observation", parameters: Self.rangeParameters, strict: true)
            let result = try await store.search(query, patient: patient, isVisible: { _ in true })
            #expect(result.records.map(\.id) == ["o1"] && result.total == 1)
        }
    }

    @Test(.enabled(if: StoreBackends.postgresAvailable, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresMigrationBackfillsTheIndex() async throws {
        try await StoreBackends.withSession(.postgres) { session in
            let store = try #require(session.store as? PostgresTrustStore)
            let patient = Fixtures.csi()
            let json = #"{"resourceType":"Condition","id":"c1","code":{"coding":[{"system":"http://snomed.info/sct","code":"44054006"}]},"# +
                       #""recordedDate":"2020-05-01"}"#
            var change = TrustChange()
            change.resources = [FHIRResourceWrite(record: FHIRResourceRecord(type: "Condition", id: "c1", patient: patient, versionID: 1,
                                                                             lastUpdated: Fixtures.t0, json: Array(json.utf8)))]
            try await store.commit(change)
            // Back to the previous schema, the resource kept: as a database before this version.
            try await store.withTransaction { connection, logger in
                try await connection.query("DROP TABLE fhir_search_token, fhir_search_date", logger: logger)
                try await connection.query("DELETE FROM schema_version WHERE version >= \(PostgresSchema.searchIndexVersion)", logger: logger)
            }
            try await store.migrate()
            let query = try SearchQuery(type: "Condition", parameters: [("code", "http://snomed.info/sct|44054006"), ("recorded-date", "2020")], strict: true)
            let result = try await store.search(query, patient: patient, isVisible: { _ in true })
            #expect(result.records.map(\.id) == ["c1"] && result.total == 1)
        }
    }
}
