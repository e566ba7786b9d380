import AppleHealthExport
import AppleHealthExportGenerator
import Benchmark
import BenchmarkSupport
import Foundation
import ImportSupport
import OpenHealthKit

// Importing an Apple Health export against the store's own bulk save, in one run on one machine:
//
// - The importer reads a generated export.xml of 1,000,000 records in Apple's format
//   (AppleHealthExportGenerator.writeLargeExport: heart rates and step counts a minute apart,
//   two sources, a device on half of them) and saves them in batches of 10,000 into a new
//   encrypted file store: streaming XML, dates, units, devices, content-derived sync
//   identifiers, correlation twins held until the end of the file, all included.
// - The ceiling saves the same 1,000,000 samples (same types, values, dates, sources, devices,
//   and a sync identifier and version each, as the importer gives them) through the store's
//   bulk save, `HKHealthStore.save(_:recordedAs:)`, in batches of 10,000, into a new store.
//
// Timed: the import, and the ceiling's saves. Not timed: writing the export (once, in setup),
// building the ceiling's sample objects, creating and opening the stores, removing them.
// OPENHEALTHKIT_IMPORT_RECORDS sets another record count (for a quick check).

/// Records imported or samples saved per second of the timed part.
let recordsPerSecond = BenchmarkMetric.custom("Throughput (records/s)", polarity: .prefersLarger, useScalingFactor: false)

let recordCount = ProcessInfo.processInfo.environment["OPENHEALTHKIT_IMPORT_RECORDS"].flatMap(Int.init) ?? 1_000_000

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, recordsPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 0,
        // One iteration each: an iteration takes minutes on the project machine.
        maxDuration: .seconds(1),
        maxIterations: 1
    )

    Benchmark.defaultConfiguration.metrics.append(.peakMemoryResident)
    // `scripts/bench.sh --check` allows each figure a 25 % fall of its median from the stored baseline.
    let measured: [BenchmarkMetric] = [.wallClock, recordsPerSecond, .peakMemoryResident]
    Benchmark.defaultConfiguration.thresholds = Dictionary(uniqueKeysWithValues: measured.map { ($0, BenchmarkThresholds(relative: [.p50: 25.0])) })

    Benchmark("Import 1M-record export.xml (AppleHealthImporter)") { benchmark, export in
        let folder = try ScratchFolder("import")
        defer { folder.remove() }
        let store = try BenchmarkStore.open(in: folder)
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        let report = try await AppleHealthImporter(batchSize: 10_000).importExport(at: export.url, into: store)
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        guard report.importedCount == recordCount else {
            throw BenchmarkFailure("imported \(report.importedCount) of \(recordCount) records")
        }
        benchmark.measurement(recordsPerSecond, BenchmarkStore.rate(recordCount, elapsed))
    } setup: {
        try ExportFile(records: recordCount)
    } teardown: {
        ExportFile.removeAll()
    }

    Benchmark("Import 1M-record export.xml (ceiling: HKHealthStore bulk save of the same samples)") { benchmark in
        let batches = StoreSide.sampleBatches(count: recordCount)
        let folder = try ScratchFolder("import-ceiling")
        defer { folder.remove() }
        let store = try BenchmarkStore.open(in: folder)
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        for batch in batches {
            try await store.save(batch.samples, recordedAs: batch.revisions)
        }
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        benchmark.measurement(recordsPerSecond, BenchmarkStore.rate(recordCount, elapsed))
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The generated export, written once for all iterations.
struct ExportFile: Sendable {
    let url: URL
    private static let folder = try? ScratchFolder("export")

    init(records: Int) throws {
        guard let folder = Self.folder else { throw BenchmarkFailure("no scratch folder") }
        url = folder.url.appendingPathComponent("export.xml")
        if !FileManager.default.fileExists(atPath: url.path) {
            try AppleHealthExportGenerator.writeLargeExport(records: records, to: url)
        }
    }

    static func removeAll() {
        folder?.remove()
    }
}
