@testable import FhirBlocksPostgres
@testable import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import GRDB
import PostgresNIO
import Testing

/// The migration that adds the search index indexes the resources already stored.
@Suite struct SearchIndexMigrationTests {
    @Test func sqliteMigrationBackfillsTheIndex() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fhirblocks-search-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("trust.sqlite").path
        let patient = Fixtures.csi()
        // A database of the previous schema with a resource in it.
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteTrustSchema.migrator.migrate(queue, upTo: "v3-smart-app-launch")
            let json = #"{"resourceType":"Condition","id":"c1","code":{"coding":[{"system":"http://snomed.info/sct","code":"44054006"}]},"recordedDate":"2020-05-01"}"#
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO fhir_resource (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, 1, 0, ?)",
                               arguments: ["Condition", "c1", patient.rawValue, Data(json.utf8)])
            }
            try queue.close()
        }
        let store = try SQLiteTrustStore(path: path)
        try await store.migrate()
        let query = try SearchQuery(type: "Condition", parameters: [("code", "http://snomed.info/sct|44054006"), ("recorded-date", "2020")], strict: true)
        let result = try await store.search(query, patient: patient, isVisible: { _ in true })
        #expect(result.records.map(\.id) == ["c1"] && result.total == 1)
        await store.close()
    }

    @Test(.enabled(if: StoreBackends.postgresAvailable, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresMigrationBackfillsTheIndex() async throws {
        try await StoreBackends.withSession(.postgres) { session in
            let store = try #require(session.store as? PostgresTrustStore)
            let patient = Fixtures.csi()
            let json = #"{"resourceType":"Condition","id":"c1","code":{"coding":[{"system":"http://snomed.info/sct","code":"44054006"}]},"recordedDate":"2020-05-01"}"#
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
