@testable import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import GRDB
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
}
