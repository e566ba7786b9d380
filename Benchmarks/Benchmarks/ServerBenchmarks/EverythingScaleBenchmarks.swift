import Benchmark
import BenchmarkSupport
import FhirBlocks
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation

// One page of `Patient/{id}/$everything` as the store answers it (issue 34:
// `TrustStore.resources(patient:after:limit:)`, the cursor on the primary key), in a compartment
// of 100 and of 10,000 resources, beside each other in the same run and the same store file (two
// patients; a third patient's 10,000 resources sort between theirs). Each page is 50 resources
// from a cursor in the middle of the compartment (resources Condition, Observation, Procedure in
// turn, ids r0, r1, …). The figure is to stay flat: the page reads 50 rows through
// the index from its cursor, whatever the compartment's size. SQLite in a temporary folder, the
// store's own settings; no HTTP (the page's HTTP cost is in the "$everything:" rows).
let everythingScaleBenchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 10,
                                                maxDuration: .seconds(5), maxIterations: 2_000)
    for size in EverythingScaleFixture.sizes {
        Benchmark("$everything page in the store: 50 from the middle of a \(size.formatted())-resource compartment",
                  configuration: configuration) { benchmark in
            let fixture = try await EverythingScaleFixture.shared()
            let (patient, cursor) = try fixture.compartment(size)
            // A full page, not an empty one, is measured.
            guard try await fixture.store.resources(patient: patient, after: cursor, limit: 50).count == 50 else {
                throw FixtureError("$everything page of the \(size)-resource compartment is short")
            }
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.store.resources(patient: patient, after: cursor, limit: 50))
            }
        }
    }
}

/// One store with compartments of ``sizes`` resources (and one more of 10,000 between them).
struct EverythingScaleFixture: Sendable {
    static let sizes = [100, 10_000]
    static let instance = FixtureOnce { try await EverythingScaleFixture.start() }

    static func shared() async throws -> EverythingScaleFixture { try await instance.get() }

    let store: SQLiteTrustStore
    /// Each size's patient and the cursor before the middle of its compartment.
    let compartments: [Int: (patient: CsiGuid, cursor: (type: String, id: String))]

    func compartment(_ size: Int) throws -> (CsiGuid, (type: String, id: String)) {
        guard let compartment = compartments[size] else { throw FixtureError("no \(size)-resource compartment") }
        return (compartment.patient, compartment.cursor)
    }

    static func start() async throws -> EverythingScaleFixture {
        let folder = try ScratchFolder.untilExit("fhirblocks-everything").url
        let store = try SQLiteTrustStore(path: folder.appendingPathComponent("trust.sqlite").path)
        try await store.migrate()
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        let types = ["Condition", "Observation", "Procedure"]
        var compartments: [Int: (patient: CsiGuid, cursor: (type: String, id: String))] = [:]
        for size in sizes + [10_000] {
            let patient = CsiGuid(randomBytes: (0..<16).map { _ in UInt8.random(in: 0...255) })
            var change = TrustChange()
            var keys: [(type: String, id: String)] = []
            for index in 0..<size {
                let type = types[index % types.count]
                let id = "r\(index)"
                keys.append((type, id))
                let json = #"{"resourceType":"\#(type)","id":"\#(id)","status":"final","meta":{"versionId":"1","lastUpdated":"\#(now.wireText)"}}"#
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: type, id: id, patient: patient, versionID: 1,
                                                                                     lastUpdated: now, json: Array(json.utf8))))
                if change.resources.count == 5_000 {
                    try await store.commit(change)
                    change = TrustChange()
                }
            }
            if !change.resources.isEmpty { try await store.commit(change) }
            // The cursor: the key 25 before the middle, in (type, id) byte order.
            keys.sort { first, second in
                first.type == second.type ? Array(first.id.utf8).lexicographicallyPrecedes(second.id.utf8)
                    : Array(first.type.utf8).lexicographicallyPrecedes(second.type.utf8)
            }
            if compartments[size] == nil { compartments[size] = (patient, keys[size / 2 - 25]) }
        }
        return EverythingScaleFixture(store: store, compartments: compartments)
    }
}
