import Benchmark
import BenchmarkSupport
import Foundation
import GRDB
import OpenHealthKit
import Synchronization

// OpenHealthKit's store against its ceilings, in one run on one machine:
//
// - Saving 1,000,000 one-minute heart-rate samples (or STORE_BENCH_SAVE_COUNT of them, see
//   `Fixtures.saveCount`) through `HKHealthStore.save(_:)` in batches of 10,000, into a new
//   encrypted file store per iteration; the ceiling inserts the same rows (same UUIDs, times
//   and values, in the clear) with a cached prepared GRDB statement, 10,000 rows per
//   transaction, into a WAL DatabasePool with a table shaped like the store's.
// - A one-year daily statistics collection (average, min, max; UTC days) over 525,600
//   minute-level heart rates through `HKStatisticsCollectionQueryDescriptor`; the ceiling is
//   SQL's GROUP BY of the same buckets over the same rows in the clear, fetched whole.
// - The same over a year of minute-level steps from two sources (a watch and a phone that both
//   count every minute; 1,051,200 rows), daily sums merged by source priority; the ceiling is
//   SQL's GROUP BY of the same days per source (the watch's sums are the merged figure).
//
// Timed: only the saves and the queries. Not timed: building the rows and the HKQuantitySample
// objects, creating and opening the store or database, and removing them afterwards (each
// iteration calls startMeasurement()/stopMeasurement() around the timed part). Before timing,
// each statistics side's answer is checked once against the daily values computed directly.

/// Samples saved or read per second of the timed part of an iteration.
let samplesPerSecond = BenchmarkMetric.custom("Throughput (samples/s)", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    // How far a figure may fall against the stored baseline before `scripts/bench.sh --check`
    // fails (Benchmarks/.benchmarkBaselines): a quarter of the median (p50), wall clock or
    // throughput, wider than a shared 2-core machine's run-to-run spread; a fall past it names
    // the benchmark and the figure.
    let storeThresholds: [BenchmarkMetric: BenchmarkThresholds] = [
        .wallClock: .init(relative: [.p50: 25.0]),
        samplesPerSecond: .init(relative: [.p50: 25.0]),
    ]
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, samplesPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 0,
        maxDuration: .seconds(60),
        maxIterations: 3,
        thresholds: storeThresholds
    )
    let statistics = Benchmark.Configuration(
        metrics: [.wallClock, samplesPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(30),
        maxIterations: 10,
        thresholds: storeThresholds
    )

    // MARK: Save 1M quantity samples

    Benchmark("Save \(Fixtures.saveCountLabel) quantity samples (HKHealthStore)") { benchmark, rows in
        let batches = Fixtures.sampleBatches(rows)
        let folder = try ScratchFolder("save-store")
        defer { folder.remove() }
        let elapsed = try await Timed.storeSave(batches, in: folder, benchmark)
        benchmark.measurement(samplesPerSecond, Timed.rate(rows.count, elapsed))
    } setup: {
        Fixtures.rows(count: Fixtures.saveCount, seed: 1)
    }

    Benchmark("Save \(Fixtures.saveCountLabel) quantity samples (ceiling: raw GRDB prepared inserts)") { benchmark, rows in
        let folder = try ScratchFolder("save-ceiling")
        defer { folder.remove() }
        let elapsed = try Timed.ceilingSave(rows, in: folder, benchmark)
        benchmark.measurement(samplesPerSecond, Timed.rate(rows.count, elapsed))
    } setup: {
        Fixtures.rows(count: Fixtures.saveCount, seed: 1)
    }

    // MARK: Statistics over a year of minute-level heart rate

    Benchmark("Statistics 1y daily over 525,600 heart rates (HKStatisticsCollectionQuery)",
              configuration: statistics) { benchmark, fixture in
        try await Timed.query(benchmark, rows: Fixtures.yearCount) {
            try await StoreSide.dailyStatistics(fixture.store, fixture.descriptor)
        }
    } setup: { () async throws -> StoreFixture in
        let rows = Fixtures.rows(count: Fixtures.yearCount, seed: 2)
        let folder = try ScratchFolder("statistics-store")
        Scratch.keep(folder)
        let store = try StoreSide.openStore(in: folder)
        try await StoreSide.save(Fixtures.sampleBatches(rows), to: store)
        let fixture = StoreFixture(store: store, descriptor: StoreSide.descriptor())
        try verify(try await StoreSide.dailyStatistics(store, fixture.descriptor), Fixtures.expectedDailyStatistics(rows),
                   side: "HKStatisticsCollectionQuery")
        return fixture
    } teardown: {
        Scratch.removeAll()
    }

    Benchmark("Statistics 1y daily over 525,600 heart rates (ceiling: SQL GROUP BY)",
              configuration: statistics) { benchmark, pool in
        try await Timed.query(benchmark, rows: Fixtures.yearCount) { try CeilingSide.dailyStatistics(pool) }
    } setup: { () throws -> DatabasePool in
        let rows = Fixtures.rows(count: Fixtures.yearCount, seed: 2)
        let folder = try ScratchFolder("statistics-ceiling")
        Scratch.keep(folder)
        let pool = try CeilingSide.openDatabase(in: folder)
        try CeilingSide.insert(rows, into: pool)
        try verify(try CeilingSide.dailyStatistics(pool), Fixtures.expectedDailyStatistics(rows), side: "SQL GROUP BY")
        return pool
    } teardown: {
        Scratch.removeAll()
    }

    // MARK: Statistics over a year of minute-level steps from two sources

    Benchmark("Statistics 1y daily over 2 x 525,600 minutes of steps from two sources (HKStatisticsCollectionQuery)",
              configuration: statistics) { benchmark, fixture in
        try await Timed.query(benchmark, rows: 2 * Fixtures.yearCount) {
            try await StoreSide.dailySteps(fixture.store, fixture.descriptor)
        }
    } setup: { () async throws -> StoreFixture in
        let rows = Fixtures.stepRows(seed: 3)
        let folder = try ScratchFolder("steps-store")
        Scratch.keep(folder)
        let store = try StoreSide.openStore(in: folder)
        try await StoreSide.save(Fixtures.stepBatches(rows), to: store)
        let fixture = StoreFixture(store: store, descriptor: StoreSide.stepsDescriptor())
        try verify(try await StoreSide.dailySteps(store, fixture.descriptor), Fixtures.expectedDailySteps(rows),
                   side: "HKStatisticsCollectionQuery")
        return fixture
    } teardown: {
        Scratch.removeAll()
    }

    Benchmark("Statistics 1y daily over 2 x 525,600 minutes of steps from two sources (ceiling: SQL GROUP BY)",
              configuration: statistics) { benchmark, pool in
        try await Timed.query(benchmark, rows: 2 * Fixtures.yearCount) { try CeilingSide.dailySteps(pool) }
    } setup: { () throws -> DatabasePool in
        let rows = Fixtures.stepRows(seed: 3)
        let folder = try ScratchFolder("steps-ceiling")
        Scratch.keep(folder)
        let pool = try CeilingSide.openDatabase(in: folder)
        try CeilingSide.insertSteps(rows, into: pool)
        try verify(try CeilingSide.dailySteps(pool), Fixtures.expectedDailySteps(rows), side: "SQL GROUP BY")
        return pool
    } teardown: {
        Scratch.removeAll()
    }
}

/// Checks the merged daily steps against the directly computed ones.
func verify(_ actual: [DailySum], _ expected: [DailySum], side: String) throws {
    guard actual == expected else {
        throw FixtureMismatch(description: "\(side): \(actual.count) days differ from the expected \(expected.count)")
    }
}

/// The statistics benchmark's state: a store holding the year of heart rates, and the query.
struct StoreFixture: Sendable {
    let store: HKHealthStore
    let descriptor: HKStatisticsCollectionQueryDescriptor
}

/// The timed parts of the save benchmarks. The store or database lives only inside these
/// functions, so it is closed before the caller removes its folder.
enum Timed {
    static func storeSave(_ batches: [[HKObject]], in folder: ScratchFolder, _ benchmark: Benchmark) async throws -> Duration {
        let store = try StoreSide.openStore(in: folder)
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        try await StoreSide.save(batches, to: store)
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        return elapsed
    }

    static func ceilingSave(_ rows: [SampleRow], in folder: ScratchFolder, _ benchmark: Benchmark) throws -> Duration {
        let pool = try CeilingSide.openDatabase(in: folder)
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        try CeilingSide.insert(rows, into: pool)
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        return elapsed
    }

    /// Times one statistics query (only `body`), and records its rate over `rows` samples.
    static func query<T>(_ benchmark: Benchmark, rows: Int, _ body: () async throws -> T) async throws {
        let clock = ContinuousClock()
        benchmark.startMeasurement()
        let started = clock.now
        let result = try await body()
        let elapsed = started.duration(to: clock.now)
        benchmark.stopMeasurement()
        blackHole(result)
        benchmark.measurement(samplesPerSecond, rate(rows, elapsed))
    }

    static func rate(_ count: Int, _ elapsed: Duration) -> Int {
        BenchmarkStore.rate(count, elapsed)
    }
}

/// Folders that outlive one iteration (the statistics fixtures), removed at teardown.
enum Scratch {
    private static let folders = Mutex<[ScratchFolder]>([])

    static func keep(_ folder: ScratchFolder) {
        folders.withLock { $0.append(folder) }
    }

    static func removeAll() {
        for folder in folders.withLock({ folders in defer { folders = [] }; return folders }) {
            folder.remove()
        }
    }
}
