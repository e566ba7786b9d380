import BenchmarkSupport
import Foundation
import GRDB
import OpenHealthKit

/// One quantity sample as plain values: what both the store and the ceilings are given.
/// Times are seconds since the reference date (what the store keeps in `start` / `end`).
struct SampleRow: Sendable {
    var uuid: UUID
    var start: Double
    var end: Double
    /// Beats per minute, a whole number from 50 through 150.
    var beatsPerMinute: Double
}

/// Deterministic data: the same seed gives the same UUIDs, times and values on every run.
enum Fixtures {
    /// 2025-01-01T00:00:00Z, the start of a 365-day year.
    static let yearStart = Date(timeIntervalSince1970: 1_735_689_600)
    /// UTC, so days are exactly 86,400 s, as in the SQL ceiling.
    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    static let heartRate = HKQuantityType(.heartRate)
    static let beatsPerMinute = HKUnit.count().unitDivided(by: .minute())
    /// The ceilings keep values in heart rate's canonical unit, count/s (beats per minute / 60),
    /// as the store's statistics work in it.
    static let secondsPerMinute = 60.0
    static let batchSize = 10_000
    /// Samples saved per iteration of the save benchmarks: 1,000,000, or the count in the
    /// environment variable `STORE_BENCH_SAVE_COUNT` (a scaled run, or a few thousand for
    /// profiling under callgrind).
    static let saveCount = ProcessInfo.processInfo.environment["STORE_BENCH_SAVE_COUNT"].flatMap(Int.init).map { max(1, $0) } ?? 1_000_000
    /// The save count as the benchmarks' names give it: "1M", "200K", "5000".
    static var saveCountLabel: String {
        if saveCount % 1_000_000 == 0 { return "\(saveCount / 1_000_000)M" }
        return saveCount % 1_000 == 0 ? "\(saveCount / 1_000)K" : "\(saveCount)"
    }
    /// One sample a minute for 365 days.
    static let yearCount = 365 * 24 * 60

    /// `count` one-minute heart-rate samples from `yearStart` on, one a minute.
    static func rows(count: Int, seed: UInt64) -> [SampleRow] {
        var generator = SplitMix64(seed: seed)
        let origin = yearStart.timeIntervalSinceReferenceDate
        return (0..<count).map { minute in
            let uuid = UUID(uuid: uuidBytes(generator.next(), generator.next()))
            let start = origin + Double(minute) * 60
            return SampleRow(uuid: uuid, start: start, end: start + 60, beatsPerMinute: Double(50 + generator.next() % 101))
        }
    }

    /// Random-looking version-4 UUID bytes from two 64-bit words.
    static func uuidBytes(_ high: UInt64, _ low: UInt64) -> uuid_t {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }

    /// The HealthKit objects for `rows`, cut into the batches that are saved one `save` each.
    static func sampleBatches(_ rows: [SampleRow]) -> [[HKObject]] {
        stride(from: 0, to: rows.count, by: batchSize).map { offset in
            rows[offset..<min(offset + batchSize, rows.count)].map { row -> HKObject in
                HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: beatsPerMinute, doubleValue: row.beatsPerMinute),
                                 start: Date(timeIntervalSinceReferenceDate: row.start),
                                 end: Date(timeIntervalSinceReferenceDate: row.end))
            }
        }
    }

    /// Per UTC day of the year: (average, minimum, maximum) in beats per minute, computed
    /// directly from the rows, to check both sides' answers once before timing them.
    static func expectedDailyStatistics(_ rows: [SampleRow]) -> [DailyStatistics] {
        let origin = yearStart.timeIntervalSinceReferenceDate
        var days: [DailyStatistics] = []
        var sum = 0.0
        var count = 0.0
        for row in rows {
            let day = Int((row.start - origin) / 86_400)
            let value = row.beatsPerMinute
            if var last = days.last, last.day == day {
                last.minimum = min(last.minimum, value)
                last.maximum = max(last.maximum, value)
                days[days.count - 1] = last
            } else {
                if !days.isEmpty { days[days.count - 1].average = sum / count }
                days.append(DailyStatistics(day: day, average: 0, minimum: value, maximum: value))
                sum = 0
                count = 0
            }
            sum += value
            count += 1
        }
        if !days.isEmpty { days[days.count - 1].average = sum / count }
        return days
    }
}

/// One minute of steps from one of two sources: what both the store and the ceiling are given.
struct StepRow: Sendable {
    var uuid: UUID
    var start: Double
    var end: Double
    var steps: Double
    /// 0: the watch, 1: the phone.
    var source: Int
}

extension Fixtures {
    static let stepCount = HKQuantityType(.stepCount)
    /// A watch and a phone; by default the watch ranks first, so it wins every minute both count.
    static let stepRevisions = [
        HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "com.example.watch"), version: "11.0", productType: "Watch7,1",
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 11, minorVersion: 0, patchVersion: 0)),
        HKSourceRevision(source: HKSource(name: "Phone", bundleIdentifier: "com.example.phone"), version: "18.0", productType: "iPhone16,1",
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 18, minorVersion: 0, patchVersion: 0)),
    ]

    /// A year of one-minute step samples from both sources (both count every minute, with
    /// different seeded counts, 0 through 120): 2 × 525,600 rows, in time order.
    static func stepRows(seed: UInt64) -> [StepRow] {
        var generator = SplitMix64(seed: seed)
        let origin = yearStart.timeIntervalSinceReferenceDate
        var rows: [StepRow] = []
        rows.reserveCapacity(2 * yearCount)
        for minute in 0..<yearCount {
            let start = origin + Double(minute) * 60
            for source in 0..<2 {
                rows.append(StepRow(uuid: UUID(uuid: uuidBytes(generator.next(), generator.next())), start: start, end: start + 60,
                                    steps: Double(generator.next() % 121), source: source))
            }
        }
        return rows
    }

    /// The HealthKit objects for `rows`, with their source revisions, in batches of `batchSize`.
    static func stepBatches(_ rows: [StepRow]) -> [(objects: [HKObject], revisions: [HKSourceRevision])] {
        stride(from: 0, to: rows.count, by: batchSize).map { offset in
            let batch = rows[offset..<min(offset + batchSize, rows.count)]
            return (batch.map { row -> HKObject in
                HKQuantitySample(type: stepCount, quantity: HKQuantity(unit: .count(), doubleValue: row.steps),
                                 start: Date(timeIntervalSinceReferenceDate: row.start), end: Date(timeIntervalSinceReferenceDate: row.end))
            }, batch.map { stepRevisions[$0.source] })
        }
    }

    /// Per UTC day: the steps the watch counted (the merged figure, since the watch ranks first
    /// and both sources count every minute).
    static func expectedDailySteps(_ rows: [StepRow]) -> [DailySum] {
        let origin = yearStart.timeIntervalSinceReferenceDate
        var days: [DailySum] = []
        for row in rows where row.source == 0 {
            let day = Int((row.start - origin) / 86_400)
            if days.last?.day == day {
                days[days.count - 1].sum += row.steps
            } else {
                days.append(DailySum(day: day, sum: row.steps))
            }
        }
        return days
    }
}

/// One day's merged step count.
struct DailySum: Sendable, Equatable {
    var day: Int
    var sum: Double
}

/// One day's statistics, in beats per minute.
struct DailyStatistics: Sendable, Equatable {
    var day: Int
    var average: Double
    var minimum: Double
    var maximum: Double

    /// Equal up to floating-point rounding (the store weights by duration; SQL sums plainly).
    func matches(_ other: DailyStatistics) -> Bool {
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }
        return day == other.day && close(average, other.average) && close(minimum, other.minimum) && close(maximum, other.maximum)
    }
}

struct FixtureMismatch: Error, CustomStringConvertible {
    var description: String
}

/// Checks a side's answer against the directly computed one.
func verify(_ actual: [DailyStatistics], _ expected: [DailyStatistics], side: String) throws {
    guard actual.count == expected.count else {
        throw FixtureMismatch(description: "\(side): \(actual.count) days, expected \(expected.count)")
    }
    for (got, want) in zip(actual, expected) where !got.matches(want) {
        throw FixtureMismatch(description: "\(side): day \(want.day) is \(got), expected \(want)")
    }
}

/// SplitMix64: a tiny, fast, seedable generator.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - The store under test (public API only)

enum StoreSide {
    /// A new, encrypted, file-backed store in `folder`, opened (key created) before any timing.
    static func openStore(in folder: ScratchFolder) throws -> HKHealthStore {
        try BenchmarkStore.open(in: folder)
    }

    static func save(_ batches: [[HKObject]], to store: HKHealthStore) async throws {
        for batch in batches {
            try await store.save(batch)
        }
    }

    static func descriptor() -> HKStatisticsCollectionQueryDescriptor {
        var descriptor = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: Fixtures.heartRate),
            options: [.discreteAverage, .discreteMin, .discreteMax],
            anchorDate: Fixtures.yearStart,
            intervalComponents: DateComponents(day: 1))
        descriptor.calendar = Fixtures.utcCalendar
        return descriptor
    }

    /// The daily statistics through `HKStatisticsCollectionQueryDescriptor`.
    static func dailyStatistics(_ store: HKHealthStore, _ descriptor: HKStatisticsCollectionQueryDescriptor) async throws
        -> [DailyStatistics] {
        let collection = try await descriptor.result(for: store)
        let origin = Fixtures.yearStart.timeIntervalSinceReferenceDate
        return collection.statistics().map { statistics in
            DailyStatistics(day: Int((statistics.startDate.timeIntervalSinceReferenceDate - origin) / 86_400),
                            average: statistics.averageQuantity()?.doubleValue(for: Fixtures.beatsPerMinute) ?? .nan,
                            minimum: statistics.minimumQuantity()?.doubleValue(for: Fixtures.beatsPerMinute) ?? .nan,
                            maximum: statistics.maximumQuantity()?.doubleValue(for: Fixtures.beatsPerMinute) ?? .nan)
        }
    }
}

extension StoreSide {
    static func save(_ batches: [(objects: [HKObject], revisions: [HKSourceRevision])], to store: HKHealthStore) async throws {
        for batch in batches {
            try await store.save(batch.objects, recordedAs: batch.revisions)
        }
    }

    static func stepsDescriptor() -> HKStatisticsCollectionQueryDescriptor {
        var descriptor = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: Fixtures.stepCount),
            options: .cumulativeSum,
            anchorDate: Fixtures.yearStart,
            intervalComponents: DateComponents(day: 1))
        descriptor.calendar = Fixtures.utcCalendar
        return descriptor
    }

    /// The merged daily step counts through `HKStatisticsCollectionQueryDescriptor`.
    static func dailySteps(_ store: HKHealthStore, _ descriptor: HKStatisticsCollectionQueryDescriptor) async throws -> [DailySum] {
        let collection = try await descriptor.result(for: store)
        let origin = Fixtures.yearStart.timeIntervalSinceReferenceDate
        return collection.statistics().map { statistics in
            DailySum(day: Int((statistics.startDate.timeIntervalSinceReferenceDate - origin) / 86_400),
                     sum: statistics.sumQuantity()?.doubleValue(for: .count()) ?? .nan)
        }
    }
}

// MARK: - The ceilings: raw GRDB over a plaintext table shaped like the store's

enum CeilingSide {
    static let type = "HKQuantityTypeIdentifierHeartRate"
    /// SampleKind.quantity in the store.
    static let kind: Int64 = 0
    static let sourceID: Int64 = 1

    /// A WAL-mode DatabasePool with the same pragmas as the store, and a `sample` table with the
    /// store's clear columns, the value in the clear instead of the sealed blob, and the same
    /// UNIQUE uuid and (type, start) index.
    static func openDatabase(in folder: ScratchFolder) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool = try DatabasePool(path: folder.url.appendingPathComponent("ceiling.sqlite").path, configuration: configuration)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE sample (
                    id INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    type TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    source_id INTEGER NOT NULL,
                    anchor INTEGER NOT NULL,
                    value REAL NOT NULL
                );
                CREATE INDEX sample_type_start ON sample(type, start);
                """)
        }
        return pool
    }

    /// Inserts the rows with one cached prepared statement, `Fixtures.batchSize` rows per transaction.
    static func insert(_ rows: [SampleRow], into pool: DatabasePool) throws {
        try insert(rows, into: pool) { row, anchor in
            [row.uuid, type, kind, row.start, row.end, sourceID, anchor, row.beatsPerMinute / Fixtures.secondsPerMinute]
        }
    }

    /// Inserts rows as `arguments` gives them (uuid, type, kind, start, end, source, anchor, value).
    private static func insert<Item>(_ rows: [Item], into pool: DatabasePool, arguments: (Item, Int64) -> StatementArguments) throws {
        var anchor: Int64 = 0
        for offset in stride(from: 0, to: rows.count, by: Fixtures.batchSize) {
            try pool.write { db in
                let statement = try db.cachedStatement(sql: """
                    INSERT INTO sample (uuid, type, kind, start, "end", source_id, anchor, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for row in rows[offset..<min(offset + Fixtures.batchSize, rows.count)] {
                    anchor += 1
                    statement.setUncheckedArguments(arguments(row, anchor))
                    try statement.execute()
                }
            }
        }
    }

    static let stepType = "HKQuantityTypeIdentifierStepCount"

    /// Inserts the step rows (source 1 the watch, 2 the phone) as `insert` does.
    static func insertSteps(_ rows: [StepRow], into pool: DatabasePool) throws {
        try insert(rows, into: pool) { row, anchor in
            [row.uuid, stepType, kind, row.start, row.end, Int64(row.source + 1), anchor, row.steps]
        }
    }

    /// The same daily buckets per source with SQL's GROUP BY, every row fetched; the watch's
    /// sums are the merged figure (SQL has no priority merge: this is the plain aggregation).
    static let dailyStepsSQL = """
        SELECT CAST((start - ?) / 86400 AS INTEGER) AS day, source_id, sum(value)
        FROM sample WHERE type = ? GROUP BY day, source_id
        """

    static func dailySteps(_ pool: DatabasePool) throws -> [DailySum] {
        let origin = Fixtures.yearStart.timeIntervalSinceReferenceDate
        return try pool.read { db in
            try Row.fetchAll(db, sql: dailyStepsSQL, arguments: [origin, stepType]).compactMap { row in
                (row[1] as Int64) == 1 ? DailySum(day: row[0], sum: row[2]) : nil
            }
        }
    }

    static let dailySQL = """
        SELECT CAST((start - ?) / 86400 AS INTEGER) AS day, avg(value), min(value), max(value)
        FROM sample WHERE type = ? GROUP BY day
        """

    /// The same daily buckets with SQL's GROUP BY, every row fetched.
    static func dailyStatistics(_ pool: DatabasePool) throws -> [DailyStatistics] {
        let origin = Fixtures.yearStart.timeIntervalSinceReferenceDate
        return try pool.read { db in
            try Row.fetchAll(db, sql: dailySQL, arguments: [origin, type]).map { row in
                DailyStatistics(day: row[0],
                                average: (row[1] as Double) * Fixtures.secondsPerMinute,
                                minimum: (row[2] as Double) * Fixtures.secondsPerMinute,
                                maximum: (row[3] as Double) * Fixtures.secondsPerMinute)
            }
        }
    }
}
