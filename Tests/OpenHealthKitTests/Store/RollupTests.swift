import Foundation
import GRDB
import Testing

@testable import OpenHealthKit
import TestSupport

@Suite("Rollups: sealed per-hour statistics kept with every save and delete")
struct RollupTests {
    static let heartRate = HKQuantityType(.heartRate)
    static let steps = HKQuantityType(.stepCount)

    /// A day of heart rates (one a minute, half a minute long) and steps (ten minutes every half hour).
    static func day(seed: UInt64) -> [HKQuantitySample] {
        var random = SplitMix64(seed: seed)
        let heart = (0..<1_440).map { Samples.heartRate(40 + Double(random.below(14_000)) / 100, at: Double($0) * 60, seconds: 30) }
        let walks = (0..<48).map { Samples.steps(Double(random.below(2_000)), at: Double($0) * 1_800, minutes: 10) }
        return heart + walks
    }

    static func hourlyDescriptor(_ type: HKQuantityType, options: HKStatisticsOptions) -> HKStatisticsCollectionQueryDescriptor {
        var descriptor = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: type), options: options,
                                                               anchorDate: Samples.reference, intervalComponents: DateComponents(hour: 1))
        descriptor.calendar = Calendar(identifier: .gregorian)
        return descriptor
    }

    /// The rollup pages as stored, for comparing before and after.
    static func pages(_ folder: TemporaryFolder) async throws -> [String] {
        let queue = try DatabaseQueue(path: folder.database.path)
        defer { try? queue.close() }
        return try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT type, page, hex(sealed) FROM rollup_page ORDER BY type, page").map { row in
                "\(row[0] as String) \(row[1] as Int64) \(row[2] as String)"
            }
        }
    }

    /// UTC days (`Samples.reference` is not on an hour: hourly intervals anchored there would cut every grain).
    static func grid() throws -> StatisticsIntervalGrid {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = .gmt
        return try StatisticsIntervalGrid(anchorDate: utc.startOfDay(for: Samples.reference), intervalComponents: DateComponents(day: 1),
                                          calendar: utc)
    }

    /// The daily figures through rollups and through the exact engine, bit for bit.
    static func expectServedExactly(_ store: HKHealthStore, _ type: HKQuantityType = heartRate,
                                    options: HKStatisticsOptions = [.discreteAverage, .discreteMin, .discreteMax, .duration]) async throws {
        let served = try await StatisticsRead.collectionResult(store: store, type: type, predicate: nil, options: options, grid: grid())
        let exact = try await StatisticsRead.collectionResult(store: store, type: type, predicate: nil, options: options, grid: grid(), exact: true)
        #expect(!served.input.rollups.isEmpty)
        #expect(RollupStatisticsPropertyTests.fingerprint(served.result) == RollupStatisticsPropertyTests.fingerprint(exact.result))
    }

    enum Tampering: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case editPageBytes
        case movePageToAnotherDay
        case movePageToAnotherType
        case swapTwoPages

        var testDescription: String { rawValue }
    }

    @Test("A rollup page altered or moved outside the store is tamperedRecord, never a number", arguments: Tampering.allCases)
    func tampering(_ tampering: Tampering) async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.save(Self.day(seed: 1))
        try await store.save(Self.day(seed: 2).map { sample in
            HKQuantitySample(type: sample.quantityType, quantity: sample.quantity, start: sample.startDate.addingTimeInterval(86_400),
                             end: sample.endDate.addingTimeInterval(86_400))
        })
        _ = try await Self.hourlyDescriptor(Self.heartRate, options: .discreteAverage).result(for: store)
        let heartRate = Self.heartRate.identifier
        let steps = Self.steps.identifier
        try await ValueBlockTests.edit(folder) { db in
            let pages = try Int64.fetchAll(db, sql: "SELECT page FROM rollup_page WHERE type = ? ORDER BY page", arguments: [heartRate])
            switch tampering {
            case .editPageBytes:
                var sealed = try #require(try Data.fetchOne(db, sql: "SELECT sealed FROM rollup_page WHERE type = ? AND page = ?",
                                                            arguments: [heartRate, pages[0]]))
                sealed[sealed.startIndex + sealed.count / 2] ^= 0x01
                try db.execute(sql: "UPDATE rollup_page SET sealed = ? WHERE type = ? AND page = ?", arguments: [sealed, heartRate, pages[0]])
            case .movePageToAnotherDay:
                try db.execute(sql: "UPDATE rollup_page SET page = page + 100 WHERE type = ? AND page = ?", arguments: [heartRate, pages[0]])
            case .movePageToAnotherType:
                try db.execute(sql: "DELETE FROM rollup_page WHERE type = ?", arguments: [steps])
                try db.execute(sql: "INSERT INTO rollup_page (type, page, sealed) SELECT ?, page, sealed FROM rollup_page WHERE type = ?",
                               arguments: [steps, heartRate])
            case .swapTwoPages:
                try db.execute(sql: "UPDATE rollup_page SET page = -1 WHERE type = ? AND page = ?", arguments: [heartRate, pages[0]])
                try db.execute(sql: "UPDATE rollup_page SET page = ? WHERE type = ? AND page = ?", arguments: [pages[0], heartRate, pages[1]])
                try db.execute(sql: "UPDATE rollup_page SET page = ? WHERE type = ? AND page = -1", arguments: [pages[1], heartRate])
            }
        }
        let reopened = TestStores.owner(folder)
        let type = tampering == .movePageToAnotherType ? Self.steps : Self.heartRate
        let options: HKStatisticsOptions = tampering == .movePageToAnotherType ? .cumulativeSum : .discreteAverage
        await #expect {
            _ = try await reopened.runStatisticsQuery(type, options: options)
        } throws: { error in
            (error as? HealthStoreError)?.kind == .tamperedRecord
        }
        await #expect {
            _ = try await Self.hourlyDescriptor(type, options: options).result(for: reopened)
        } throws: { error in
            (error as? HealthStoreError)?.kind == .tamperedRecord
        }
    }

    @Test("A save that fails leaves the rollups as they were; a later one updates them in its transaction")
    func sameTransaction() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let first = Self.day(seed: 3)
        try await store.save(first)
        let before = try await Self.pages(folder)
        #expect(!before.isEmpty)
        // A new sample in an hour that has samples, and one already saved: the second insert fails.
        let extra = Samples.heartRate(200, at: 90, seconds: 10)
        await #expect(throws: HKError.self) { try await store.save([extra, first[0]]) }
        #expect(try await Self.pages(folder) == before)
        try await Self.expectServedExactly(store)
        #expect(try await store.runStatisticsQuery(Self.heartRate, options: .discreteMax).maximumQuantity()?.doubleValue(for: Samples.bpm) != 200)

        try await store.save(extra)
        #expect(try await Self.pages(folder) != before)
        #expect(try await store.runStatisticsQuery(Self.heartRate, options: .discreteMax).maximumQuantity()?.doubleValue(for: Samples.bpm) == 200)
        try await Self.expectServedExactly(store)
    }

    @Test("Deleting samples, and a correlation's members with it, updates the rollups")
    func deletions() async throws {
        let store = TestStores.memory()
        let samples = Self.day(seed: 4)
        try await store.save(samples)
        try await store.delete(Array(samples[100..<400]))
        try await Self.expectServedExactly(store)
        _ = try await store.deleteObjects(of: Self.steps, predicate: HKQuery.predicateForSamples(withStart: Samples.reference,
                                                                                                  end: Samples.reference.addingTimeInterval(43_200)))
        try await Self.expectServedExactly(store, Self.steps, options: [.cumulativeSum, .duration, .separateBySource])

        let systolicType = HKQuantityType(.bloodPressureSystolic)
        let systolic = HKQuantitySample(type: systolicType, quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 120),
                                        start: Samples.reference, end: Samples.reference)
        let diastolic = HKQuantitySample(type: HKQuantityType(.bloodPressureDiastolic),
                                         quantity: HKQuantity(unit: .millimeterOfMercury(), doubleValue: 80),
                                         start: Samples.reference, end: Samples.reference)
        let pressure = HKCorrelation(type: HKCorrelationType(.bloodPressure), start: Samples.reference, end: Samples.reference,
                                     objects: [systolic, diastolic])
        try await store.save(pressure)
        #expect(try await store.runStatisticsQuery(systolicType, options: .discreteAverage).averageQuantity()?
            .doubleValue(for: .millimeterOfMercury()) == 120)
        try await store.delete(pressure)
        await #expect(throws: HKError.self) { _ = try await store.runStatisticsQuery(systolicType, options: .discreteAverage) }
    }

    @Test("A store written before rollups gets them when opened, and they equal the exact engine")
    func migrationOfAVersion4Store() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.save(Self.day(seed: 5))
        // Make it the v4 store an older version wrote: no rollup table, no v5 migration.
        try await ValueBlockTests.edit(folder) { db in
            try db.execute(sql: """
                DROP TABLE rollup_page;
                DROP INDEX sample_long_span;
                DELETE FROM grdb_migrations WHERE identifier = 'v5-rollups';
                """)
        }
        let reopened = TestStores.owner(folder)
        try await Self.expectServedExactly(reopened)
        try await Self.expectServedExactly(reopened, Self.steps, options: [.cumulativeSum, .mostRecent])
        // Each type's day of samples spans two UTC days: two pages each.
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM rollup_page") == 4)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM store_info WHERE key = 'rollups_pending'") == 0)
    }

    @Test("An app that may read only its own samples gets the same statistics as before rollups")
    func authorizationScope() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        try await owner.save(Self.day(seed: 6))
        let app = TestStores.app(folder, bundle: "com.example.writer", provider: PolicyFileAuthorizationProvider(
            policy: .init(apps: ["com.example.writer": .init(share: [Self.steps.identifier], read: [])])))
        try await app.requestAuthorization(toShare: [Self.steps], read: [Self.steps])
        try await app.save(Samples.steps(1_234, at: 600, minutes: 5))
        let sum = try await app.runStatisticsQuery(Self.steps, options: .cumulativeSum).sumQuantity()?.doubleValue(for: .count())
        #expect(sum == 1_234)
    }
}

/// Grains no stored sample touched are rebuilt from the saving transaction's own rows, without
/// reading them back: the pages must be the ones a rebuild from the table gives.
@Suite("Rollups from a save's own rows")
struct RollupFromSaveTests {
    static let revisions = [
        HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "org.example.watch"), version: "1", productType: nil,
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0)),
        HKSourceRevision(source: HKSource(name: "Phone", bundleIdentifier: "org.example.phone"), version: "1", productType: nil,
                         operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0)),
    ]

    /// Samples out of time order, from two sources, with equal starts, grain-crossing and
    /// zero-length ones on grain edges, and a few longer than a day (never rolled up).
    static func batch(seed: UInt64, days: ClosedRange<Int>) -> (samples: [HKObject], revisions: [HKSourceRevision]) {
        var random = SplitMix64(seed: seed)
        var samples: [HKObject] = []
        var revisions: [HKSourceRevision] = []
        let origin = (Samples.reference.timeIntervalSinceReferenceDate / 86_400).rounded(.down) * 86_400
        for _ in 0..<600 {
            let day = Double(days.lowerBound + Int(random.below(days.count)))
            var start = origin + day * 86_400 + Double(random.below(86_400))
            let duration: Double
            switch random.below(10) {
            case 0: duration = 0; start = (start / 3_600).rounded(.down) * 3_600
            case 1: duration = 3_600 + Double(random.below(7_200))
            case 2: duration = 90_000
            default: duration = Double(random.below(600))
            }
            let type = random.below(2) == 0 ? HKQuantityType(.heartRate) : HKQuantityType(.stepCount)
            let unit = type == HKQuantityType(.heartRate) ? Samples.bpm : HKUnit.count()
            let value = Double(random.below(10_000_000)) / 997
            let sample = HKQuantitySample(type: type, quantity: HKQuantity(unit: unit, doubleValue: value),
                                          start: Date(timeIntervalSinceReferenceDate: start),
                                          end: Date(timeIntervalSinceReferenceDate: start + duration))
            samples.append(sample)
            revisions.append(Self.revisions[random.below(2)])
            // Another sample with the same start (ties keep their save order in the rebuild's query).
            if random.below(8) == 0 {
                samples.append(HKQuantitySample(type: type, quantity: HKQuantity(unit: unit, doubleValue: value + 1),
                                                start: sample.startDate, end: sample.endDate))
                revisions.append(Self.revisions[random.below(2)])
            }
        }
        return (samples, revisions)
    }

    /// Every stored page, opened, by type and page number.
    static func pages(_ database: HealthDatabase) throws -> [String: RollupPage] {
        try database.read { db in
            var pages: [String: RollupPage] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT type, page, sealed FROM rollup_page") {
                let type: String = row[0]
                let page: Int64 = row[1]
                pages["\(type) \(page)"] = try RollupPage(opening: row[2] as Data, type: type, page: page, cipher: database.cipher)
            }
            return pages
        }
    }

    /// The pages as stored, then as rebuilt from every row of the table: they must be equal.
    static func expectPagesEqualARebuild(_ database: HealthDatabase) throws {
        let saved = try pages(database)
        #expect(!saved.isEmpty)
        try database.write { db in
            for type in [HKQuantityTypeIdentifier.heartRate.rawValue, HKQuantityTypeIdentifier.stepCount.rawValue] {
                try database.rebuildRollups(db, type: type)
            }
        }
        let rebuilt = try pages(database)
        #expect(saved.keys.sorted() == rebuilt.keys.sorted())
        for (key, page) in saved where rebuilt[key] != page {
            Issue.record("page \(key) differs from its rebuild")
        }
    }

    @Test("Pages built from a save's rows equal a rebuild from the table, for new days, days already stored and deletions",
          arguments: [UInt64(1), 2, 3])
    func pagesEqualARebuild(seed: UInt64) async throws {
        let store = TestStores.memory()
        try store.setSourcePriority(Self.revisions.map(\.source), for: HKQuantityType(.stepCount))
        let database = try await store.engine.databaseAsync()
        // New days only: every page comes from the save's own rows.
        let first = Self.batch(seed: seed, days: 0...3)
        try await store.save(first.samples, recordedAs: first.revisions)
        try Self.expectPagesEqualARebuild(database)
        // Days already stored (read back from the table) and new ones (from memory) in one save.
        let second = Self.batch(seed: seed + 100, days: 2...6)
        try await store.save(second.samples, recordedAs: second.revisions)
        try Self.expectPagesEqualARebuild(database)
        // A save that also replaces (deletes) rows reads its type back from the table.
        let replaced = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 5),
                                        start: Samples.reference.addingTimeInterval(30 * 86_400),
                                        end: Samples.reference.addingTimeInterval(30 * 86_400 + 60),
                                        metadata: [HKMetadataKeySyncIdentifier: "walk", HKMetadataKeySyncVersion: 1])
        try await store.save(replaced)
        let replacement = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 7),
                                           start: Samples.reference.addingTimeInterval(31 * 86_400),
                                           end: Samples.reference.addingTimeInterval(31 * 86_400 + 60),
                                           metadata: [HKMetadataKeySyncIdentifier: "walk", HKMetadataKeySyncVersion: 2])
        try await store.save(replacement)
        try Self.expectPagesEqualARebuild(database)
        try await RollupTests.expectServedExactly(store, HKQuantityType(.stepCount), options: [.cumulativeSum, .mostRecent])
    }
}
