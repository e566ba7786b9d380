@testable import FhirBlocksPostgres
@testable import FhirBlocksSQLite
import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB
import Testing

/// `ResourceStore.resources(patient:type:since:until:afterID:limit:)`, a Bulk Data export's page of
/// one type (`TrustSQL.typePage`): only that type of that patient, updated after `_since` and at or
/// before the job's `transactionTime`, in id byte order after the cursor, on both stores; on SQLite
/// a range of the primary key.
@Suite struct ExportTypePageTests {
    /// Two Observations, a Condition and a Procedure per id, the Observations' lastUpdated in
    /// steps of a second: ids whose byte order is not their alphabetical one (`B` before `a`,
    /// `b10` before `b2`).
    static let ids = ["b2", "a", "B", "b10", "c"]

    static func fill(_ store: any TrustStore, patient: CsiGuid) async throws {
        var change = TrustChange()
        for (index, id) in ids.enumerated() {
            for type in ["Condition", "Observation", "Procedure"] {
                let updated = Timestamp(millisecondsSince1970: Fixtures.t0.millisecondsSince1970 + Int64(index) * 1_000)
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: type, id: id, patient: patient, versionID: 1, lastUpdated: updated,
                    json: Array(#"{"resourceType":"\#(type)","id":"\#(id)"}"#.utf8))))
            }
        }
        try await store.commit(change)
    }

    static func check(_ store: any TrustStore) async throws {
        let patient = Fixtures.csi(), other = Fixtures.csi()
        try await fill(store, patient: patient)
        try await fill(store, patient: other)
        let all = try await store.resources(patient: patient, type: "Observation", since: nil, afterID: nil, limit: 100)
        #expect(all.map(\.id) == ["B", "a", "b10", "b2", "c"])
        #expect(all.allSatisfy { $0.type == "Observation" && $0.patient == patient })
        #expect(all.map(\.json) == all.map { Array(#"{"resourceType":"Observation","id":"\#($0.id)"}"#.utf8) })
        #expect(all.first { $0.id == "b10" }?.lastUpdated == Timestamp(millisecondsSince1970: Fixtures.t0.millisecondsSince1970 + 3_000))
        // Pages of two after the cursor.
        #expect(try await store.resources(patient: patient, type: "Observation", since: nil, afterID: nil, limit: 2).map(\.id) == ["B", "a"])
        #expect(try await store.resources(patient: patient, type: "Observation", since: nil, afterID: "a", limit: 2).map(\.id) == ["b10", "b2"])
        #expect(try await store.resources(patient: patient, type: "Observation", since: nil, afterID: "b2", limit: 2).map(\.id) == ["c"])
        #expect(try await store.resources(patient: patient, type: "Observation", since: nil, afterID: "c", limit: 2).isEmpty)
        // `_since`: updated strictly after (B is stamped at `since` itself; b10 and c after); with a cursor too.
        let since = Timestamp(millisecondsSince1970: Fixtures.t0.millisecondsSince1970 + 2_000)
        #expect(try await store.resources(patient: patient, type: "Observation", since: since, afterID: nil, limit: 100).map(\.id) == ["b10", "c"])
        #expect(try await store.resources(patient: patient, type: "Observation", since: since, afterID: "B", limit: 1).map(\.id) == ["b10"])
        // `until` (the transactionTime): updated at or before it (c, a second later, is left out); with `_since` and a cursor.
        let until = Timestamp(millisecondsSince1970: Fixtures.t0.millisecondsSince1970 + 3_000)
        #expect(try await store.resources(patient: patient, type: "Observation", since: nil, until: until, afterID: nil, limit: 100).map(\.id)
                == ["B", "a", "b10", "b2"])
        let window = Timestamp(millisecondsSince1970: Fixtures.t0.millisecondsSince1970 + 1_000)
        #expect(try await store.resources(patient: patient, type: "Observation", since: window, until: until, afterID: nil, limit: 100).map(\.id)
                == ["B", "b10"])
        #expect(try await store.resources(patient: patient, type: "Observation", since: window, until: until, afterID: "B", limit: 100).map(\.id)
                == ["b10"])
        let windowLines = try await store.resourceLines(patient: patient, type: "Observation", since: window, until: until, afterID: nil, limit: 100,
                                                        maximumBytes: .max)
        #expect(windowLines.count == 2 && windowLines.lastID == "b10")
        // Another type, a type not stored, no limit.
        #expect(try await store.resources(patient: patient, type: "Procedure", since: nil, afterID: nil, limit: 100).map(\.id) == ["B", "a", "b10", "b2", "c"])
        #expect(try await store.resources(patient: patient, type: "Immunization", since: nil, afterID: nil, limit: 100).isEmpty)
        #expect(try await store.resources(patient: patient, type: "Observation", since: nil, afterID: nil, limit: 0).isEmpty)
        try await checkLines(store, patient: patient, since: since)
    }

    /// `resourceLines`: the same pages as `resources(patient:type:since:afterID:limit:)`, as each
    /// JSON followed by a line feed in one buffer, where each ends, and the last id; a JSON
    /// holding a line feed itself is still one entry.
    static func checkLines(_ store: any TrustStore, patient: CsiGuid, since: Timestamp) async throws {
        var change = TrustChange()
        change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
            type: "Immunization", id: "z", patient: patient, versionID: 1, lastUpdated: Fixtures.t0,
            json: Array("{\"resourceType\":\"Immunization\",\n\"id\":\"z\"}".utf8))))
        try await store.commit(change)
        let cases: [(type: String, since: Timestamp?, afterID: String?, limit: Int)] = [
            ("Observation", nil, nil, 100), ("Observation", nil, nil, 2), ("Observation", nil, "a", 2), ("Observation", nil, "c", 2),
            ("Observation", since, nil, 100), ("Observation", since, "B", 1), ("Procedure", nil, "B", 100), ("Immunization", nil, nil, 10),
            ("Condition", nil, nil, 0), ("Encounter", nil, nil, 10),
        ]
        for page in cases {
            let records = try await store.resources(patient: patient, type: page.type, since: page.since, afterID: page.afterID, limit: page.limit)
            let lines = try await store.resourceLines(patient: patient, type: page.type, since: page.since, afterID: page.afterID, limit: page.limit,
                                                      maximumBytes: .max)
            #expect(lines.bytes == records.flatMap { $0.json + [UInt8(ascii: "\n")] }, "\(page)")
            #expect(lines.count == records.count, "\(page)")
            #expect((0..<lines.count).map { Array(lines.bytes[lines.range($0)]) } == records.map(\.json), "\(page)")
            #expect(lines.ends.allSatisfy { lines.bytes[$0] == UInt8(ascii: "\n") }, "\(page)")
            #expect(lines.lastID == records.last?.id, "\(page)")
        }
        #expect(try await store.resourceLines(patient: patient, type: "Immunization", since: nil, afterID: nil, limit: 10, maximumBytes: .max).count == 1)
        try await checkByteBound(store, patient: patient)
    }

    /// `resourceLines` ends a page after the resource that brings it to `maximumBytes` (never
    /// before the first), whatever the resources' sizes; paging on while `mayHaveMore` says so
    /// reads every resource once, in order, as one unbounded read does.
    static func checkByteBound(_ store: any TrustStore, patient: CsiGuid) async throws {
        var change = TrustChange()
        // Small resources first, then large ones (a page sized by the small ones must not hold
        // as many large ones), then small again.
        let sizes = (0..<30).map { $0 < 10 || $0 >= 25 ? 40 : 3_000 + 97 * $0 }
        for (index, size) in sizes.enumerated() {
            let id = "bound-\(String(index + 100))"
            let json = Array("{\"resourceType\":\"MedicationRequest\",\"id\":\"\(id)\",\"note\":\"\(String(repeating: "y", count: size))\"}".utf8)
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "MedicationRequest", id: id, patient: patient, versionID: 1,
                                                                                  lastUpdated: Fixtures.t0, json: json)))
        }
        try await store.commit(change)
        let all = try await store.resources(patient: patient, type: "MedicationRequest", since: nil, afterID: nil, limit: 100)
        #expect(all.count == sizes.count)
        for maximumBytes in [1, 500, 4_000, 10_000, 1 << 20] {
            var read: [[UInt8]] = []
            var after: String?
            var pages = 0
            while true {
                let lines = try await store.resourceLines(patient: patient, type: "MedicationRequest", since: nil, afterID: after, limit: 12,
                                                          maximumBytes: maximumBytes)
                pages += 1
                #expect(lines.count <= 12)
                if lines.count > 1 {
                    // Below the bound before its last resource, so it ended at the first chance.
                    #expect(lines.ends[lines.count - 2] + 1 < maximumBytes, "\(maximumBytes)")
                }
                read += (0..<lines.count).map { Array(lines.bytes[lines.range($0)]) }
                guard lines.mayHaveMore(limit: 12, maximumBytes: maximumBytes), let last = lines.lastID else { break }
                after = last
                try #require(pages <= sizes.count + 1)
            }
            #expect(read == all.map(\.json), "\(maximumBytes)")
            if maximumBytes == 1 { #expect(pages >= sizes.count) }
        }
    }

    @Test func sqlite() async throws {
        try await StoreBackends.withSession(.sqlite) { session in try await Self.check(session.store) }
    }

    @Test(.enabled(if: StoreBackends.postgresAvailable, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgres() async throws {
        try await StoreBackends.withSession(.postgres) { session in try await Self.check(session.store) }
    }

    @Test func sqlitePageIsARangeOfThePrimaryKey() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE fhir_resource (type TEXT, id TEXT, patient TEXT, version_id INTEGER, last_updated INTEGER, json BLOB, "
                + "PRIMARY KEY (patient, type, id)) WITHOUT ROWID")
        }
        let since = Fixtures.t0
        for (afterID, sinceTime) in [(nil, nil), ("r1", nil), (nil, since), ("r1", since)] as [(String?, Timestamp?)] {
            // The records' page and the lines' (id and JSON only) alike.
            for linesOnly in [false, true] {
                let page = TrustSQL.typePage(patient: "p", type: "Observation", since: sinceTime, afterID: afterID, limit: 1_000, dialect: .sqlite,
                                             linesOnly: linesOnly)
                let plan = try await queue.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + page.sql, arguments: SQLiteTrustStore.arguments(page.arguments))
                        .map { row -> String in row["detail"] }
                }
                let range = afterID == nil ? "(patient=? AND type=?)" : "(patient=? AND type=? AND id>?)"
                #expect(plan == ["SEARCH fhir_resource USING PRIMARY KEY \(range)"], "\(plan)")
            }
        }
    }
}
