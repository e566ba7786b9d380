@testable import FhirBlocksPostgres
@testable import FhirBlocksSQLite
import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A page of `Patient/$everything` (`TrustSQL.compartmentPage`) is a range of an index in the
/// page's order, stopped after the page: no scan of the compartment and no sort, on either
/// store, so its cost does not grow with the compartment (the plans, `EXPLAIN QUERY PLAN` and
/// `EXPLAIN`, of a first page and of a page after a cursor).
@Suite struct CompartmentPageTests {
    /// Resources of three types in turn (ids r0, r1, …), through the store's commit.
    static func fill(_ store: any TrustStore, patient: CsiGuid, count: Int) async throws {
        let types = ["Condition", "Observation", "Procedure"]
        var change = TrustChange()
        for index in 0..<count {
            let type = types[index % types.count]
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                type: type, id: "r\(index)", patient: patient, versionID: 1, lastUpdated: Fixtures.t0,
                json: Array(#"{"resourceType":"\#(type)","id":"r\#(index)"}"#.utf8))))
        }
        try await store.commit(change)
    }

    static let cursors: [(type: String, id: String)?] = [nil, ("Observation", "r1000")]

    @Test func sqlitePageIsARangeOfThePrimaryKey() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("compartment-page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trust.sqlite").path
        let store = try SQLiteTrustStore(path: path)
        try await store.migrate()
        let patient = Fixtures.csi()
        try await Self.fill(store, patient: patient, count: 3_000)
        try await Self.fill(store, patient: Fixtures.csi(), count: 3_000)
        #expect(try await store.resources(patient: patient, after: ("Observation", "r1000"), limit: 2).map(\.id) == ["r1003", "r1006"])
        await store.close()
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        for cursor in Self.cursors {
            let page = TrustSQL.compartmentPage(patient: patient.rawValue, after: cursor, limit: 51, dialect: .sqlite)
            let plan = try await queue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + page.sql, arguments: SQLiteTrustStore.arguments(page.arguments))
                    .map { row -> String in row["detail"] }
            }
            let range = cursor == nil ? "(patient=?)" : "(patient=? AND (type,id)>(?,?))"
            #expect(plan == ["SEARCH fhir_resource USING PRIMARY KEY \(range)"], "\(plan)")
        }
    }

    @Test(.enabled(if: StoreBackends.postgresAvailable, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresPageIsARangeOfTheCompartmentIndex() async throws {
        try await StoreBackends.withSession(.postgres) { session in
            let store = try #require(session.store as? PostgresTrustStore)
            let patient = Fixtures.csi()
            try await Self.fill(store, patient: patient, count: 3_000)
            try await Self.fill(store, patient: Fixtures.csi(), count: 3_000)
            #expect(try await store.resources(patient: patient, after: ("Observation", "r1000"), limit: 2).map(\.id) == ["r1003", "r1006"])
            // With statistics, as autovacuum keeps them (a table just filled has none: then the
            // planner may estimate a few rows and sort those after a bitmap scan of the index).
            try await store.withConnection { connection, logger in
                _ = try await connection.query("ANALYZE fhir_resource", logger: logger)
            }
            for cursor in Self.cursors {
                var explain = PostgresTrustStore.query(TrustSQL.compartmentPage(patient: patient.rawValue, after: cursor, limit: 51,
                                                                                dialect: .postgres))
                explain.sql = "EXPLAIN (FORMAT JSON) " + explain.sql
                let text = try await store.withConnection { [explain] connection, logger in
                    try await connection.query(explain, logger: logger).collect().first?.decode(String.self) ?? ""
                }
                let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
                let root = try #require(document?.first?["Plan"] as? [String: Any], "\(text)")
                let nodes = SearchCostTests.nodes(root).map(\.node)
                let types = nodes.compactMap { $0["Node Type"] as? String }
                #expect(types.first == "Limit", "\(types)")
                #expect(!types.contains("Sort") && !types.contains("Seq Scan") && !types.contains("Bitmap Heap Scan"), "\(types)")
                let scans = nodes.filter { ($0["Node Type"] as? String)?.hasPrefix("Index") == true }
                #expect(scans.count == 1 && scans.allSatisfy { $0["Index Name"] as? String == "fhir_resource_compartment_order" },
                        "\(text)")
            }
        }
    }
}
