import Benchmark
import FHIRCore
import Foundation
import GRDB
import HealthRecords
import struct ModelsR4.Bundle
import struct ModelsR4.FHIRValidator
import OpenHealthKit
import SmartHealthCards

// Importing a provider's records against its ceiling, in one run on one machine:
//
// - `HealthRecordImporter` on the largest Synthea bundle (1.56 MB, 482 entries): parse, validate
//   the Bundle with the R4 validator, classify each resource, take its exact bytes, seal and insert
//   the clinical records in one transaction, into a new encrypted file store per iteration.
// - The ceiling inserts the same clinical resources' JSON bytes (taken from the same bundle in
//   setup), in the clear, with a cached prepared GRDB statement in one transaction, into a new WAL
//   database per iteration with a table shaped like the store's (UUID, type, dates, blob).
//
// Timed: only the import and the inserts. Not timed: reading the file, creating and opening the
// store or database, removing them.

let resourcesPerSecond = BenchmarkMetric.custom("Throughput (resources/s)", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, resourcesPerSecond],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(20),
        maxIterations: 20
    )
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock, resourcesPerSecond]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })

    Benchmark("Import the largest Synthea bundle (HealthRecordImporter)") { benchmark, fixture in
        let folder = try Scratch("import")
        defer { folder.remove() }
        let store = HKHealthStore(configuration: .init(location: .file(folder.url.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.url.appendingPathComponent("health.key")), role: .owner))
        try store.open()
        let importer = HealthRecordImporter(store: store, verifier: SHCVerifier(resolver: StaticKeyResolver([:]), now: Date()))
        var report = HealthRecordImportReport()
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        try await importer.importInput(fixture.bytes, named: "bundle", into: &report)
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        precondition(report.stored.count == fixture.clinical.count && report.refusals.isEmpty, "the import must store every clinical resource")
        benchmark.measurement(resourcesPerSecond, Scratch.rate(report.stored.count, elapsed))
    } setup: {
        try RecordsFixture.load()
    }

    // Where the time goes: the R4 validation the import runs, alone (parse to a tree, then ModelsR4's
    // FHIRValidator over the whole Bundle). Not a ceiling: a part of the import, measured beside it.
    Benchmark("Validate the largest Synthea bundle (tape, tree and FHIRValidator alone)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            let tape = try JSONTape(fixture.bytes)
            blackHole(FHIRValidator().validate(tape.value(at: 0)))
        }
    } setup: {
        try RecordsFixture.load()
    }

    // A floor for any importer that reads what it stores: decoding the bundle with ModelsR4 (less work
    // than validating it: no regexes, cardinality or reference checks), then the ceiling's inserts.
    Benchmark("Import the largest Synthea bundle (floor: ModelsR4 decode, then the same raw GRDB inserts)") { benchmark, fixture in
        try RawInserts.measure(benchmark, fixture, label: "floor") { blackHole(try ModelsR4.Bundle(fhirJSON: fixture.bytes)) }
    } setup: {
        try RecordsFixture.load()
    }

    Benchmark("Import the largest Synthea bundle (ceiling: raw GRDB inserts of the same JSON blobs)") { benchmark, fixture in
        try RawInserts.measure(benchmark, fixture, label: "ceiling") {}
    } setup: {
        try RecordsFixture.load()
    }
}

/// The ceiling: the clinical resources' JSON bytes inserted in the clear, one transaction.
enum RawInserts {
    static func open(in folder: Scratch) throws -> DatabasePool {
        let pool = try DatabasePool(path: folder.url.appendingPathComponent("raw.sqlite").path)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE record (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, type TEXT NOT NULL, start REAL NOT NULL,
                                     "end" REAL NOT NULL, data BLOB NOT NULL);
                CREATE INDEX record_type_start ON record(type, start);
                """)
        }
        return pool
    }

    /// Times `before` (nothing, or the floor's decode) and the inserts into a new database.
    static func measure(_ benchmark: Benchmark, _ fixture: RecordsFixture, label: String, before: () throws -> Void) throws {
        let folder = try Scratch(label)
        defer { folder.remove() }
        let pool = try open(in: folder)
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        try before()
        try insert(fixture.clinical, into: pool)
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        try pool.close()
        benchmark.measurement(resourcesPerSecond, Scratch.rate(fixture.clinical.count, elapsed))
    }

    static func insert(_ resources: [RecordsFixture.Resource], into pool: DatabasePool) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO record (uuid, type, start, \"end\", data) VALUES (?, ?, ?, ?, ?)")
            for resource in resources {
                let uuid = withUnsafeBytes(of: UUID().uuid) { Data($0) }
                statement.setUncheckedArguments([uuid, resource.type, resource.start, resource.start, resource.data])
                try statement.execute()
            }
        }
    }
}

/// The largest Synthea bundle, and its clinical resources' exact bytes for the ceiling.
struct RecordsFixture: Sendable {
    struct Resource: Sendable {
        var type: String
        var start: Double
        var data: Data
    }

    let bytes: [UInt8]
    let clinical: [Resource]

    static func load() throws -> RecordsFixture {
        let folder = sharedRoot.appendingPathComponent("fhir/examples/synthea-r4")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var largest: [UInt8] = []
        for file in files {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(file)))
            if bytes.count > largest.count { largest = bytes }
        }
        guard case .resources(let slices, _) = try HealthRecordInput.read(largest, validate: nil) else { throw CocoaError(.fileReadCorruptFile) }
        let clinical = slices.compactMap { slice -> Resource? in
            guard let type = ClinicalRecordClassifier.clinicalType(of: slice.resource) else { return nil }
            let start = ClinicalRecordDescription(resource: slice.resource).startDate ?? Date()
            return Resource(type: type.rawValue, start: start.timeIntervalSinceReferenceDate, data: Data(slice.bytes))
        }
        print("largest Synthea bundle: \(largest.count) bytes, \(slices.count) entries, \(clinical.count) clinical resources")
        return RecordsFixture(bytes: largest, clinical: clinical)
    }

    /// `$OPENHEALTHKIT_SHARED`, else `../shared` beside the repository (third-party data, never copied here).
    static var sharedRoot: URL {
        if let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.deletingLastPathComponent().appendingPathComponent("shared")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("fhir").path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared")
    }
}

/// A scratch folder for one iteration.
struct Scratch: Sendable {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("openhealthkit-bench-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    static func rate(_ count: Int, _ elapsed: Duration) -> Int {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Int((Double(count) / seconds).rounded()) : 0
    }
}
