import Benchmark
import BenchmarkSupport
import FhirBlocks
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import GRDB

// The search index's write cost (issue 15): storing 1,000 Observations in one transaction
// through `TrustStore.commit` (the version check, the resource and history rows, and the
// resource's rows in `fhir_search_token` and `fhir_search_date`), against the ceiling, the
// same resource and history rows written with raw GRDB prepared statements into a store of the
// same schema, without index rows. Both stores are SQLite files in temporary folders, with the
// store's own settings (WAL, `synchronous = NORMAL`); every iteration stores new ids.
let indexWriteBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], timeUnits: .milliseconds, warmupIterations: 2,
                                                scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 200)

    Benchmark("Store 1,000 Observations (ceiling: resource and history rows only, raw GRDB, no index rows)", configuration: configuration) { benchmark in
        let fixture = try await IndexWriteFixture.shared()
        for _ in benchmark.scaledIterations {
            let batch = await fixture.nextBatch()
            benchmark.startMeasurement()
            try await fixture.raw.write { db in
                let resource = try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO fhir_resource (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, ?, ?, ?)
                    """)
                let history = try db.cachedStatement(sql: """
                    INSERT INTO fhir_resource_history (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, ?, ?, ?)
                    """)
                for record in batch {
                    let arguments: StatementArguments = [record.type, record.id, record.patient.rawValue, record.versionID,
                                                         record.lastUpdated.millisecondsSince1970, Data(record.json)]
                    try resource.execute(arguments: arguments)
                    try history.execute(arguments: arguments)
                }
            }
            benchmark.stopMeasurement()
        }
    }

    Benchmark("Store 1,000 Observations (TrustStore.commit with search index rows)", configuration: configuration) { benchmark in
        let fixture = try await IndexWriteFixture.shared()
        for _ in benchmark.scaledIterations {
            var change = TrustChange()
            change.resources = await fixture.nextBatch().map { FHIRResourceWrite(record: $0) }
            benchmark.startMeasurement()
            try await fixture.store.commit(change)
            benchmark.stopMeasurement()
        }
    }
}

/// Two empty stores of the trust schema: one written through `SQLiteTrustStore`, one through raw GRDB.
actor IndexWriteFixture {
    static let holder = FixtureOnce { try await IndexWriteFixture() }

    static func shared() async throws -> IndexWriteFixture { try await holder.get() }

    let store: SQLiteTrustStore
    let raw: DatabasePool
    private let patient = CsiGuid(randomBytes: (0..<16).map { _ in UInt8.random(in: 0...255) })
    private var batches = 0

    init() async throws {
        let folder = try ScratchFolder.untilExit("fhirblocks-index").url
        store = try SQLiteTrustStore(path: folder.appendingPathComponent("indexed.sqlite").path)
        try await store.migrate()
        // The same schema, migrated by the store, then written around it.
        raw = try await rawTrustDatabase(at: folder.appendingPathComponent("raw.sqlite").path)
    }

    /// 1,000 new Observations (one code of 50, one a day), each batch with new ids.
    func nextBatch() -> [FHIRResourceRecord] {
        batches += 1
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        let day0 = Int64(1_420_070_400_000)   // 2015-01-01
        return (0..<1_000).map { index in
            let id = "b\(batches)-\(index)"
            let instant = Timestamp(millisecondsSince1970: day0 + Int64(index) * 86_400_000)
            let json = #"{"resourceType":"Observation","id":"\#(id)","status":"final","#
                + #""category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"#
                + #""code":{"coding":[{"system":"http://loinc.org","code":"code-\#(index % 50)"}]},"#
                + #""effectiveDateTime":"\#(instant.wireText)","valueQuantity":{"value":\#(index % 200),"unit":"/min"},"#
                + #""meta":{"versionId":"1","lastUpdated":"\#(now.wireText)"}}"#
            return FHIRResourceRecord(type: "Observation", id: id, patient: patient, versionID: 1, lastUpdated: now, json: Array(json.utf8))
        }
    }
}
