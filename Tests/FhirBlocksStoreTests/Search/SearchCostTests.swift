@testable import FhirBlocksPostgres
@testable import FhirBlocksSQLite
import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A search's work grows with the rows its first clause selects, never with their square: every
/// sort and every date prefix is planned with each probe and the sort key on the driving
/// resource's own index rows (`EXPLAIN QUERY PLAN` / `EXPLAIN` on both stores), and counted in
/// SQLite's virtual-machine steps, ten times the compartment costs about ten times the work.
@Suite struct SearchCostTests {
    /// The search shapes: each sort with no clause, a code, a code and a date range; each date
    /// prefix on its own (driving), on `_lastUpdated` after a code (a probe), on `date` after a
    /// `system|code` (the hull, then a probe), with a descending sort, after `:not`; `:missing`.
    static let shapes: [[(String, String)]] = {
        var shapes: [[(String, String)]] = []
        for sort in ["date", "-date", "_lastUpdated", "-_lastUpdated", "_id"] {
            shapes.append([("_sort", sort), ("_count", "1")])
            shapes.append([("code", "8867-4"), ("_sort", sort), ("_count", "1")])
            shapes.append([("code", "http://loinc.org|8867-4"), ("date", "ge2020"), ("_sort", sort), ("_count", "1")])
        }
        for prefix in SearchDatePrefix.allCases {
            let value = prefix.rawValue + "2020-03"
            shapes.append([("date", value), ("_count", "1")])
            shapes.append([("_lastUpdated", value), ("_sort", "-date"), ("_count", "1")])
            shapes.append([("code", "8867-4"), ("_lastUpdated", value), ("_count", "1")])
            shapes.append([("code", "http://loinc.org|8867-4"), ("date", value), ("_count", "1")])
            shapes.append([("code", "8867-4"), ("date", value), ("_sort", "-_lastUpdated"), ("_count", "1")])
            shapes.append([("status", "final"), ("code:not", "1234-5"), ("date", value), ("_count", "1")])
        }
        shapes.append([("code", "8867-4"), ("_lastUpdated", "9999"), ("_count", "1")])
        shapes.append([("code", "8867-4"), ("date:missing", "true"), ("_count", "1")])
        shapes.append([("code", "8867-4"), ("category", "vital-signs"), ("_sort", "-date"), ("_count", "1")])
        return shapes
    }()

    /// A shape as the query string it stands for (for messages).
    static func describe(_ shape: [(String, String)]) -> String {
        shape.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// The Observation `index` of a compartment: code 8867-4, final, vital signs, one minute
    /// after the one before from 2020-01-01.
    static func observation(_ index: Int, patient: CsiGuid) -> FHIRResourceRecord {
        let date = Date(timeIntervalSince1970: 1_577_836_800 + Double(index) * 60)
        let json = """
            {"resourceType":"Observation","id":"o\(index)","status":"final",\
            "category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],\
            "code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]},\
            "effectiveDateTime":"\(date.formatted(.iso8601))","valueQuantity":{"value":\(60 + index % 40)}}
            """
        return FHIRResourceRecord(type: "Observation", id: "o\(index)", patient: patient, versionID: 1,
                                  lastUpdated: Fixtures.t0.adding(milliseconds: Int64(index)), json: Array(json.utf8))
    }

    /// Writes `count` Observations into `patient`'s compartment through the store's commit, in
    /// batches of 5,000.
    static func fill(_ store: any TrustStore, patient: CsiGuid, count: Int) async throws {
        var start = 0
        while start < count {
            var change = TrustChange()
            change.resources = (start..<min(start + 5_000, count)).map { FHIRResourceWrite(record: observation($0, patient: patient)) }
            start += change.resources.count
            try await store.commit(change)
        }
    }

    // MARK: SQLite

    /// The lines of SQLite's plan for `statement`.
    static func sqlitePlan(_ db: Database, _ statement: SearchSQL.Statement) throws -> [String] {
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: SQLiteTrustStore.arguments(statement.arguments))
            .map { row -> String in row["detail"] }
    }

    @Test func sqliteProbesAndSortKeysReadOnlyTheResourcesOwnRows() async throws {
        // A compartment the store wrote (its file as the store leaves it).
        let patient = Fixtures.csi().rawValue
        try await Self.withSQLiteCompartment(count: 2_000, patient: try #require(CsiGuid(patient))) { queue in try queue.inDatabase { db in
            for shape in Self.shapes {
                let query = try SearchQuery(type: "Observation", parameters: shape, strict: true)
                for distinct in [false, true] {
                    let plan = try Self.sqlitePlan(db, SearchSQL.candidates(patient: patient, query: query, distinct: distinct))
                    // No full scan of a table or index (`SCAN c` reads the subquery's own rows),
                    // and every correlated read (`d` the sort key, `x` a probe) is a search of
                    // one resource's rows of one parameter.
                    #expect(!plan.contains { $0.hasPrefix("SCAN ") && $0 != "SCAN c" }, "\(Self.describe(shape)): \(plan)")
                    let correlated = plan.filter { $0.hasPrefix("SEARCH d ") || $0.hasPrefix("SEARCH x ") }
                    #expect(correlated.allSatisfy { $0.contains("_resource (patient=? AND type=? AND id=? AND param=?") },
                            "\(Self.describe(shape)): \(plan)")
                    let sorted = query.sort.key != "_id"
                    #expect(plan.contains { $0.hasPrefix("SEARCH d ") } == sorted, "\(Self.describe(shape)): \(plan)")
                }
            }
        } }
    }

    /// Fills a SQLite store at a fresh path with `count` Observations and gives `body` a
    /// connection to its file.
    static func withSQLiteCompartment(count: Int, patient: CsiGuid, _ body: (DatabaseQueue) throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fhirblocks-search-cost-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trust.sqlite").path
        let store = try SQLiteTrustStore(path: path)
        try await store.migrate()
        try await fill(store, patient: patient, count: count)
        await store.close()
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try body(queue)
    }

    /// The virtual-machine steps of the candidate statement of every shape (to within 100).
    static func sqliteSteps(_ queue: DatabaseQueue, patient: CsiGuid) throws -> [Int] {
        try queue.inDatabase { db in
            try shapes.map { shape in
                let query = try SearchQuery(type: "Observation", parameters: shape, strict: true)
                let statement = SearchSQL.candidates(patient: patient.rawValue, query: query, distinct: false)
                return try SQLiteStatementBudget.run(db, budget: nil, interval: 100, operation: "search") { meter in
                    let cursor = try Row.fetchCursor(db, sql: statement.sql, arguments: SQLiteTrustStore.arguments(statement.arguments))
                    while try cursor.next() != nil {}
                    return meter.steps
                }
            }
        }
    }

    @Test func sqliteSearchWorkGrowsWithTheCompartmentNotItsSquare() async throws {
        let patient = Fixtures.csi()
        var small: [Int] = []
        var large: [Int] = []
        try await Self.withSQLiteCompartment(count: 2_000, patient: patient) { small = try Self.sqliteSteps($0, patient: patient) }
        try await Self.withSQLiteCompartment(count: 20_000, patient: patient) { large = try Self.sqliteSteps($0, patient: patient) }
        for (index, shape) in Self.shapes.enumerated() {
            // Ten times the resources: at most about ten times the work (linear, with room for
            // a deeper B-tree), and at most 600 steps per resource of the compartment. Before,
            // a descending sort or a `_lastUpdated` probe walked the compartment's date rows for
            // each resource: a hundred times the work.
            #expect(large[index] <= 13 * max(small[index], 1_000), "\(Self.describe(shape)): \(small[index]) → \(large[index]) steps")
            #expect(large[index] <= 600 * 20_000, "\(Self.describe(shape)): \(large[index]) steps")
        }
    }

    // MARK: PostgreSQL

    /// Every node of an `EXPLAIN (FORMAT JSON)` plan with whether it runs once per row of
    /// another (a subplan, or the inner side of a nested loop).
    static func nodes(_ plan: [String: Any], perRow: Bool = false) -> [(node: [String: Any], perRow: Bool)] {
        var found = [(plan, perRow)]
        let isNestedLoop = plan["Node Type"] as? String == "Nested Loop"
        for child in plan["Plans"] as? [[String: Any]] ?? [] {
            let relationship = child["Parent Relationship"] as? String
            let repeated = perRow || relationship == "SubPlan" || (isNestedLoop && relationship == "Inner")
            found += nodes(child, perRow: repeated)
        }
        return found
    }

    /// Fills a PostgreSQL compartment with `count` resources' rows by SQL (as the store writes
    /// them: a resource row, code, category and status tokens, a `date` and a `_lastUpdated`
    /// row), without
    /// statistics (a table just filled) unless `analyze`.
    static func fillPostgres(_ store: PostgresTrustStore, patient: CsiGuid, count: Int, analyze: Bool) async throws {
        let patientText = patient.rawValue
        try await store.withTransaction { connection, logger in
            try await connection.query("""
                INSERT INTO fhir_resource (type, id, patient, version_id, last_updated, json)
                SELECT 'Observation', 'o' || i, \(patientText), 1, 1577836800000 + i * 60000, convert_to('{"resourceType":"Observation"}', 'UTF8')
                FROM generate_series(1, \(count)) AS i
                """, logger: logger)
            try await connection.query("""
                INSERT INTO fhir_search_token (patient, type, id, param, system, code, hull_low, hull_high, hull_single, hull_span)
                SELECT patient, type, id, 'code', 'http://loinc.org', '8867-4', last_updated, last_updated + 999, 1, 0
                FROM fhir_resource WHERE patient = \(patientText)
                UNION ALL SELECT patient, type, id, 'category', 'http://terminology.hl7.org/CodeSystem/observation-category', 'vital-signs',
                    last_updated, last_updated + 999, 1, 0 FROM fhir_resource WHERE patient = \(patientText)
                UNION ALL SELECT patient, type, id, 'status', '', 'final', last_updated, last_updated + 999, 1, 0
                FROM fhir_resource WHERE patient = \(patientText)
                """, logger: logger)
            try await connection.query("""
                INSERT INTO fhir_search_date (patient, type, id, param, low, high)
                SELECT patient, type, id, 'date', last_updated, last_updated + 999 FROM fhir_resource WHERE patient = \(patientText)
                UNION ALL SELECT patient, type, id, '_lastUpdated', last_updated, last_updated FROM fhir_resource WHERE patient = \(patientText)
                """, logger: logger)
        }
        if analyze {
            try await store.withConnection { connection, logger in
                _ = try await connection.query("ANALYZE fhir_resource, fhir_search_token, fhir_search_date", logger: logger)
            }
        }
    }

    @Test(.enabled(if: StoreBackends.postgresAvailable, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresProbesAndSortKeysReadOnlyTheResourcesOwnRows() async throws {
        for analyze in [false, true] {
            try await StoreBackends.withSession(.postgres) { session in
                let store = try #require(session.store as? PostgresTrustStore)
                let patient = Fixtures.csi()
                try await Self.fillPostgres(store, patient: patient, count: 20_000, analyze: analyze)
                try await Self.expectPostgresPlans(store, patient: patient, analyzed: analyze)
            }
        }
    }

    /// Checks the plan of every shape on `store` (see the loop's comment); `analyze`: whether
    /// the tables have statistics.
    static func expectPostgresPlans(_ store: PostgresTrustStore, patient: CsiGuid, analyzed analyze: Bool) async throws {
        for shape in Self.shapes {
            let query = try SearchQuery(type: "Observation", parameters: shape, strict: true)
            var explain = try PostgresTrustStore.query(SearchSQL.candidates(patient: patient.rawValue, query: query, dialect: .postgres))
            explain.sql = "EXPLAIN (FORMAT JSON) " + explain.sql
            let text = try await store.withConnection { [explain] connection, logger in
                try await connection.query(explain, logger: logger).collect().first?.decode(String.self) ?? ""
            }
            let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
            let root = try #require(document?.first?["Plan"] as? [String: Any], "\(text)")
            // What runs once per driving row reads the search tables only through an
            // index, on one resource's rows (`id = r.id`/`c.id` in its condition). On a
            // table without statistics (just filled: autovacuum analyzes it within a
            // minute) PostgreSQL ties the token indexes at one estimated row and may take
            // the value index for a token probe: checked with statistics only.
            for (node, perRow) in Self.nodes(root) where perRow {
                guard let relation = node["Relation Name"] as? String, relation.hasPrefix("fhir_search_"),
                      analyze || relation == "fhir_search_date" else { continue }
                let condition = node["Index Cond"] as? String ?? ""
                #expect((node["Index Name"] as? String)?.hasSuffix("_resource") == true && condition.contains("(id = "),
                        "analyze \(analyze), \(Self.describe(shape)): \(node["Node Type"] ?? "") \(node["Index Name"] ?? "") \(condition)")
            }
        }
    }
}
