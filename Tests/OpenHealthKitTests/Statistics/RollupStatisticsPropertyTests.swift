import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// Statistics served from rollups against the exact engine over every row, bit for bit, on
/// random data from one to three sources, random calendars (time zones with DST and half-hour
/// offsets), random date predicates that cut grains, random source orders, and deletions and
/// sync replacements in between.
struct RollupStatisticsPropertyTests {
    private static let types: [HKQuantityType] = [
        HKQuantityType(.stepCount), HKQuantityType(.heartRate), HKQuantityType(.bodyMass), HKQuantityType(.environmentalAudioExposure),
    ]
    private static let zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Adelaide", "Asia/Kathmandu"]
    /// Around the spring DST change in Europe and the autumn one in the United States.
    private static let bases = [Date(timeIntervalSince1970: 1_743_163_200), Date(timeIntervalSince1970: 1_762_084_800)]
    private static let window = 3.0 * 86_400

    private static let revisions: [HKSourceRevision] = [
        HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "import.watch"), version: "1", productType: "Watch7,1",
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 11, minorVersion: 0, patchVersion: 0)),
        HKSourceRevision(source: HKSource(name: "Phone", bundleIdentifier: "import.phone"), version: "1", productType: "iPhone16,1",
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 18, minorVersion: 0, patchVersion: 0)),
        HKSourceRevision(source: HKSource(name: "App", bundleIdentifier: "import.app"), version: "1", productType: nil,
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0)),
    ]

    /// One random world: a type, its sources, and the samples saved so far.
    private struct World {
        var generator: SplitMix64
        let type: HKQuantityType
        let base: Date
        let sourceCount: Int
        /// Whether some samples last longer than a day (never rolled up; every grain they
        /// overlap is read raw, which with a few of them can be the whole window).
        let allowsLong: Bool
        var syncCounter = 0

        mutating func int(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }

        mutating func value() -> Double {
            if type.aggregationStyle == .discreteEquivalentContinuousLevel {
                return 40 + Double(int(600_000)) / 10_000
            }
            // Values that do not add up exactly in Double, so the order of sums would show.
            return int(3) == 0 ? Double(int(200)) : Double(int(10_000_000)) / 997
        }

        mutating func span() -> (start: Double, end: Double) {
            var start = base.timeIntervalSinceReferenceDate + Double(int(Int(RollupStatisticsPropertyTests.window)))
            if int(4) == 0 { start = (start / 3_600).rounded(.down) * 3_600 }
            let duration: Double
            switch int(40) {
            case 0..<8: duration = 0
            case 8..<20: duration = 60
            case 20..<28: duration = Double(1 + int(3_599))
            case 28..<36: duration = Double(3_600 + int(7_200))
            case 36 where allowsLong: duration = Double(86_400 + int(86_400))
            default: duration = 3_600
            }
            return (start, start + duration)
        }

        mutating func samples(_ count: Int) -> (samples: [HKQuantitySample], revisions: [HKSourceRevision]) {
            var samples: [HKQuantitySample] = []
            var revisions: [HKSourceRevision] = []
            for _ in 0..<count {
                let (start, end) = span()
                var metadata: [String: Any]?
                if int(4) == 0 {
                    syncCounter += 1
                    metadata = [HKMetadataKeySyncIdentifier: "sync-\(syncCounter)", HKMetadataKeySyncVersion: 1]
                }
                samples.append(HKQuantitySample(type: type, quantity: HKQuantity(unit: type.canonicalUnit, doubleValue: value()),
                                                start: Date(timeIntervalSinceReferenceDate: start),
                                                end: Date(timeIntervalSinceReferenceDate: end), metadata: metadata))
                revisions.append(RollupStatisticsPropertyTests.revisions[int(sourceCount)])
            }
            return (samples, revisions)
        }

        mutating func options() -> HKStatisticsOptions {
            let pool: [HKStatisticsOptions] = type.aggregationStyle == .cumulative
                ? [.cumulativeSum, .duration, .mostRecent, .separateBySource]
                : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration, .separateBySource]
            var options: HKStatisticsOptions = []
            for option in pool where int(2) == 0 { options.insert(option) }
            return options.isEmpty ? pool[0] : options
        }

        mutating func date() -> Date {
            var t = base.timeIntervalSinceReferenceDate - 43_200 + Double(int(Int(RollupStatisticsPropertyTests.window) + 86_400))
            if int(3) == 0 { t = (t / 3_600).rounded(.down) * 3_600 }
            return Date(timeIntervalSinceReferenceDate: t)
        }

        mutating func predicate() -> NSPredicate? {
            func one(_ world: inout World) -> NSPredicate {
                let a = world.int(5) == 0 ? nil : world.date()
                let b = world.int(5) == 0 ? nil : world.date()
                let (start, end) = (a.flatMap { a in b.map { min(a, $0) } } ?? a, a.flatMap { a in b.map { max(a, $0) } } ?? b)
                let options: [HKQueryOptions] = [[], .strictStartDate, .strictEndDate, [.strictStartDate, .strictEndDate]]
                return HKQuery.predicateForSamples(withStart: start, end: end, options: options[world.int(4)])
            }
            switch int(10) {
            case 0..<4: return nil
            case 4: return NSCompoundPredicate(andPredicateWithSubpredicates: [one(&self), one(&self)])
            default: return one(&self)
            }
        }

        mutating func grid(plain: Bool = false) throws -> StatisticsIntervalGrid {
            if plain {
                var utc = Calendar(identifier: .gregorian)
                utc.timeZone = .gmt
                return try StatisticsIntervalGrid(anchorDate: utc.startOfDay(for: base), intervalComponents: DateComponents(day: 1), calendar: utc)
            }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: RollupStatisticsPropertyTests.zones[int(RollupStatisticsPropertyTests.zones.count)]) ?? .gmt
            let components: [DateComponents] = [DateComponents(day: 1), DateComponents(day: 1), DateComponents(hour: 1),
                                                DateComponents(hour: 3), DateComponents(minute: 30), DateComponents(minute: 90),
                                                DateComponents(day: 2)]
            var anchor = base
            if int(2) == 0 { anchor = calendar.startOfDay(for: base) }
            if int(3) == 0 { anchor = anchor.addingTimeInterval(Double(int(180)) * 60) }
            return try StatisticsIntervalGrid(anchorDate: anchor, intervalComponents: components[int(components.count)], calendar: calendar)
        }
    }

    @Test("Rollups give the exact engine's figures bit for bit", arguments: 0..<24)
    func rollupsMatchTheExactEngine(seed: UInt64) async throws {
        var generator = SplitMix64(seed: 0x5EED_0000 + seed)
        let type = Self.types[Int(generator.next() % UInt64(Self.types.count))]
        let base = Self.bases[Int(generator.next() % 2)]
        var world = World(generator: generator, type: type, base: base, sourceCount: 1 + Int(seed % 3), allowsLong: seed % 2 == 1)
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))

        var saved: [HKQuantitySample] = []
        var servedByRollups = 0
        for step in 0..<4 {
            switch step {
            case 0, 3:
                let (samples, revisions) = world.samples(40 + world.int(80))
                try await store.save(samples, recordedAs: revisions)
                saved += samples
            case 1:
                // Deletions: a random few.
                let doomed = saved.filter { _ in world.int(6) == 0 }
                if !doomed.isEmpty { try await store.delete(doomed) }
                saved.removeAll { sample in doomed.contains { $0.uuid == sample.uuid } }
            default:
                // Sync replacements (a higher version moves and changes the sample), and a new source order.
                var replacements: [HKQuantitySample] = []
                var revisions: [HKSourceRevision] = []
                for sample in saved where world.int(3) == 0 {
                    guard let sync = sample.metadata?[HKMetadataKeySyncIdentifier] as? String else { continue }
                    let (start, end) = world.span()
                    replacements.append(HKQuantitySample(type: type, quantity: HKQuantity(unit: type.canonicalUnit, doubleValue: world.value()),
                                                         start: Date(timeIntervalSinceReferenceDate: start),
                                                         end: Date(timeIntervalSinceReferenceDate: end),
                                                         metadata: [HKMetadataKeySyncIdentifier: sync, HKMetadataKeySyncVersion: 2]))
                    revisions.append(sample.sourceRevision)
                }
                if !replacements.isEmpty { try await store.save(replacements, recordedAs: revisions) }
                if world.sourceCount > 1 {
                    let order = Self.revisions.prefix(world.sourceCount).map(\.source).shuffled(using: &world.generator)
                    try store.setSourcePriority(Array(order.prefix(1 + world.int(world.sourceCount))), for: type)
                }
            }
            for query in 0..<6 {
                // The first query of each step is the plain one (no predicate, UTC days), which rollups serve.
                let predicate = query == 0 ? nil : world.predicate()
                let options = world.options()
                let grid = try world.grid(plain: query == 0)
                let exact = try await StatisticsRead.collectionResult(store: store, type: type, predicate: predicate, options: options, grid: grid,
                                                                exact: true)
                let served = try await StatisticsRead.collectionResult(store: store, type: type, predicate: predicate, options: options, grid: grid)
                #expect(Self.fingerprint(served.result) == Self.fingerprint(exact.result),
                        "seed \(seed) step \(step): \(String(describing: predicate)), \(options.rawValue), \(grid)")
                if !served.input.rollups.isEmpty { servedByRollups += 1 }

                let single = try await StatisticsRead.statisticsResult(store: store, type: type, predicate: predicate, options: options)
                let singleExact = try await StatisticsRead.statisticsResult(store: store, type: type, predicate: predicate, options: options, exact: true)
                #expect(Self.fingerprint(single.bucket) == Self.fingerprint(singleExact.bucket),
                        "seed \(seed) step \(step): \(String(describing: predicate)), \(options.rawValue)")
            }
        }
        // The comparison means something only if rollups actually served queries.
        if !world.allowsLong {
            #expect(servedByRollups > 0)
        }
    }

    /// Every figure as bit patterns, so `==` means bit for bit (NaN and ±0 included).
    static func fingerprint(_ result: StatisticsCollectionResult) -> [String] {
        ["first \(result.firstIndex)", "boundaries \(result.boundaries.map(\.bitPattern))"] + result.buckets.flatMap(fingerprint)
    }

    static func fingerprint(_ bucket: StatisticsBucket?) -> [String] {
        guard let bucket else { return ["none"] }
        var lines = ["bucket \(bucket.index) \(bucket.interval.start.timeIntervalSinceReferenceDate.bitPattern) "
            + "\(bucket.interval.duration.bitPattern): \(fingerprint(bucket.values))"]
        for (source, values) in (bucket.valuesBySource ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("  source \(source): \(fingerprint(values))")
        }
        return lines
    }

    static func fingerprint(_ values: StatisticsValues) -> String {
        let fields: [Double?] = [values.sum, values.average, values.minimum, values.maximum, values.mostRecent,
                                 values.mostRecentInterval?.start.timeIntervalSinceReferenceDate, values.mostRecentInterval?.duration,
                                 values.duration]
        return fields.map { $0.map { String($0.bitPattern, radix: 16) } ?? "-" }.joined(separator: " ")
    }
}
