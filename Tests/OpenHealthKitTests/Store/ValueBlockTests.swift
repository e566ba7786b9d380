import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Value blocks: statistics over values sealed per save")
struct ValueBlockTests {
    static let heartRate = HKQuantityType(.heartRate)
    static let steps = HKQuantityType(.stepCount)

    /// `count` half-minute heart rates a minute apart from `minute`, with seeded values in
    /// 40…180 bpm and, when `syncPrefix` is given, sync identifiers `<prefix>-<i>` at `version`.
    static func heartRates(_ count: Int, fromMinute minute: Int = 0, seed: UInt64, syncPrefix: String? = nil,
                           version: Int = 1) -> [HKQuantitySample] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let metadata: [String: Any]? = syncPrefix.map { [HKMetadataKeySyncIdentifier: "\($0)-\(index)", HKMetadataKeySyncVersion: version] }
            return Samples.heartRate(40 + Double(random.below(14_000)) / 100, at: Double(minute + index) * 60, seconds: 30,
                                     metadata: metadata)
        }
    }

    /// `count` one-minute step samples two minutes apart, with seeded counts.
    static func stepSamples(_ count: Int, seed: UInt64) -> [HKQuantitySample] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { Samples.steps(Double(random.below(200)), at: Double($0) * 120, minutes: 1) }
    }

    /// What a statistics read returns for heart rate (average, min, max, most recent and its
    /// start; hourly average, min and max through a collection query) and for steps (the sum).
    struct Figures: Equatable {
        var average: Double?
        var minimum: Double?
        var maximum: Double?
        var mostRecent: Double?
        var mostRecentStart: Date?
        var hourly: [[Double?]]
        var stepSum: Double?
    }

    static func figures(_ store: HKHealthStore, steps hasSteps: Bool = true) async throws -> Figures {
        let heart = try await store.runStatisticsQuery(heartRate, options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent])
        var descriptor = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: heartRate),
                                                               options: [.discreteAverage, .discreteMin, .discreteMax],
                                                               anchorDate: Samples.reference, intervalComponents: DateComponents(hour: 1))
        descriptor.calendar = Calendar(identifier: .gregorian)
        let collection = try await descriptor.result(for: store)
        let hourly = collection.statistics().map { statistics in
            [statistics.averageQuantity(), statistics.minimumQuantity(), statistics.maximumQuantity()].map { $0?.doubleValue(for: Samples.bpm) }
        }
        let sum = hasSteps ? try await store.runStatisticsQuery(steps, options: .cumulativeSum).sumQuantity()?.doubleValue(for: .count()) : nil
        return Figures(average: heart.averageQuantity()?.doubleValue(for: Samples.bpm), minimum: heart.minimumQuantity()?.doubleValue(for: Samples.bpm),
                       maximum: heart.maximumQuantity()?.doubleValue(for: Samples.bpm),
                       mostRecent: heart.mostRecentQuantity()?.doubleValue(for: Samples.bpm),
                       mostRecentStart: heart.mostRecentQuantityDateInterval()?.start, hourly: hourly, stepSum: sum)
    }

    /// The figures of an in-memory store that holds `samples`, each saved on its own: one save
    /// of one sample seals no block, so these come from the per-row records.
    static func perRowFigures(_ samples: [HKQuantitySample], steps: Bool = true) async throws -> Figures {
        let store = TestStores.memory()
        for sample in samples { try await store.save(sample) }
        let blocks = try store.engine.database().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM value_block") }
        #expect(blocks == 0, "the reference store must read every value from its own record")
        return try await figures(store, steps: steps)
    }

    static func integer(_ folder: TemporaryFolder, _ sql: String, _ arguments: StatementArguments = []) async throws -> Int {
        let queue = try DatabaseQueue(path: folder.database.path)
        defer { try? queue.close() }
        return try await queue.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? -1 }
    }

    static func edit(_ folder: TemporaryFolder, _ body: @escaping @Sendable (Database) throws -> Void) async throws {
        let queue = try DatabaseQueue(path: folder.database.path)
        try await queue.write(body)
        try queue.close()
    }

    static func value(_ sample: HKQuantitySample) -> Double { sample.quantity.doubleValue(for: Samples.bpm) }

    @Test("Statistics read from value blocks equal those read from each row's own record")
    func blocksMatchRecords() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let first = Self.heartRates(5_000, seed: 1)
        let second = Self.heartRates(300, fromMinute: 6_000, seed: 2)
        let steps = Self.stepSamples(50, seed: 3)
        try await store.save(first)
        try await store.save(second + steps)
        // 5,000 heart rates: blocks of 4,096 and 904; then 300 heart rates and 50 steps.
        #expect(try await Self.integer(folder, "SELECT count(*) FROM value_block") == 4)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NULL") == 0)
        #expect(try await Self.integer(folder, "SELECT max(block_index) FROM sample") == ValueBlock.capacity - 1)
        let fromBlocks = try await Self.figures(store)
        let all = first + second
        #expect(fromBlocks.minimum == all.map(Self.value).min())
        #expect(fromBlocks.maximum.map { abs($0 - (all.map(Self.value).max() ?? 0)) < 1e-9 } == true)
        #expect(fromBlocks.mostRecent.map { abs($0 - Self.value(second[second.count - 1])) < 1e-9 } == true)
        #expect(fromBlocks.stepSum == steps.map { $0.quantity.doubleValue(for: .count()) }.reduce(0, +))
        #expect(fromBlocks.hourly.count >= 89)

        // The same rows with every block removed read through their own records.
        try await Self.edit(folder) { db in
            try db.execute(sql: "UPDATE sample SET block_id = NULL, block_index = NULL; DELETE FROM value_block")
        }
        #expect(try await Self.integer(folder, "SELECT count(*) FROM value_block") == 0)
        let fromRecords = try await Self.figures(TestStores.owner(folder))
        #expect(fromBlocks == fromRecords)
    }

    @Test("A block's values never appear in the file in the clear")
    func blockIsSealed() async throws {
        let folder = TemporaryFolder()
        let samples = Self.heartRates(64, seed: 4)
        try await TestStores.owner(folder).save(samples)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM value_block") == 1)
        var bytes = Data()
        for suffix in ["", "-wal"] { bytes += FileManager.default.contents(atPath: folder.database.path + suffix) ?? Data() }
        for sample in samples {
            let canonical = sample.quantity.doubleValue(for: HKUnit.count().unitDivided(by: .second()))
            withUnsafeBytes(of: canonical.bitPattern.littleEndian) { #expect(bytes.range(of: Data($0)) == nil) }
        }
    }

    @Test("A store from before value blocks upgrades: old rows read from their records, new saves get blocks")
    func upgrade() async throws {
        // A v1 store: the schema up to v1 and the rows and keys of a store saved through the API.
        let source = TemporaryFolder()
        let old = Self.heartRates(400, seed: 5)
        let oldSteps = Self.stepSamples(30, seed: 6)
        try await TestStores.owner(source).save(old + oldSteps)
        let folder = TemporaryFolder()
        try FileManager.default.copyItem(at: source.keyFile, to: folder.keyFile)
        let queue = try DatabaseQueue(path: folder.database.path)
        try HealthDatabase.migrator.migrate(queue, upTo: "v1")
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS legacy", arguments: [source.database.path])
            try db.inTransaction {
                try db.execute(sql: """
                    DELETE FROM store_info;
                    INSERT INTO store_info SELECT * FROM legacy.store_info;
                    INSERT INTO source SELECT * FROM legacy.source;
                    INSERT INTO sample (id, uuid, type, kind, start, "end", source_id, parent_id, activity_type, anchor, sync_id, sync_version, sealed)
                      SELECT id, uuid, (SELECT identifier FROM legacy.sample_type t WHERE t.id = type), kind, start, "end", source_id, parent_id,
                             activity_type, anchor, sync_id, sync_version, sealed FROM legacy.sample;
                    INSERT INTO metadata_index (sample_id, key_hash, value_hash)
                      SELECT m.sample_id, k.hash, nullif(m.value_hash, X'') FROM legacy.metadata_index m JOIN legacy.metadata_key k ON k.id = m.key_id;
                    """)
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE legacy")
        }
        try queue.close()
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sqlite_master WHERE name = 'value_block'") == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample") == 430)

        let store = TestStores.owner(folder)
        let upgraded = try await Self.figures(store)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v2'") == 1)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        let reference = try await Self.perRowFigures(old + oldSteps)
        #expect(upgraded == reference)

        // New saves get blocks; old rows keep reading from their records.
        let new = Self.heartRates(250, fromMinute: 1_000, seed: 7)
        try await store.save(new)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM value_block") == 1)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 250)
        let mixed = try await Self.figures(store)
        #expect(mixed == (try await Self.perRowFigures(old + oldSteps + new)))
        #expect(mixed != upgraded)
    }

    /// Edits, outside the store, of a store holding two heart-rate blocks and a step block.
    enum Tampering: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case swapEntryIndices
        case editBlockBytes
        case editStartInTheClear
        case pointAtAnotherTypesBlock
        case pointAtAnotherBlockOfTheType
        case indexOutsideBlock
        case borrowAnotherRowsEntry

        var testDescription: String { rawValue }
    }

    @Test("A row or block altered outside the store fails the statistics read instead of giving a wrong number",
          arguments: Tampering.allCases, [1, 2])
    func tampering(_ tampering: Tampering, format: Int) async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.save(Self.heartRates(40, seed: 8))
        try await store.save(Self.heartRates(40, fromMinute: 100, seed: 9) + Self.stepSamples(40, seed: 10))
        _ = try await Self.figures(store)
        if format == 1 { try await ValueBlockFormatTests.resealInFormat1(folder) }
        let heartRate = Self.heartRate.identifier
        let stepCount = Self.steps.identifier
        try await Self.edit(folder) { db in
            let blocks = try Int64.fetchAll(db, sql: "SELECT id FROM value_block WHERE type = ? ORDER BY id", arguments: [heartRate])
            let stepBlock = try Int64.fetchOne(db, sql: "SELECT id FROM value_block WHERE type = ?", arguments: [stepCount])
            let rows = try Row.fetchAll(db, sql: "SELECT id, block_index FROM sample WHERE block_id = ? ORDER BY block_index",
                                        arguments: [blocks[0]])
            let (a, b): (Int64, Int64) = (rows[3]["id"], rows[7]["id"])
            switch tampering {
            case .swapEntryIndices:
                try db.execute(sql: "UPDATE sample SET block_index = 7 WHERE id = ?", arguments: [a])
                try db.execute(sql: "UPDATE sample SET block_index = 3 WHERE id = ?", arguments: [b])
            case .editBlockBytes:
                var sealed = try #require(try Data.fetchOne(db, sql: "SELECT sealed FROM value_block WHERE id = ?", arguments: [blocks[0]]))
                sealed[sealed.startIndex + sealed.count / 2] ^= 0x01
                try db.execute(sql: "UPDATE value_block SET sealed = ? WHERE id = ?", arguments: [sealed, blocks[0]])
            case .editStartInTheClear:
                // Earlier, so the row still ends after it starts: only the block can tell.
                try db.execute(sql: "UPDATE sample SET start = start - 20 WHERE id = ?", arguments: [a])
            case .pointAtAnotherTypesBlock:
                try db.execute(sql: "UPDATE sample SET block_id = ? WHERE id = ?", arguments: [stepBlock, a])
            case .pointAtAnotherBlockOfTheType:
                try db.execute(sql: "UPDATE sample SET block_id = ? WHERE id = ?", arguments: [blocks[1], a])
            case .indexOutsideBlock:
                try db.execute(sql: "UPDATE sample SET block_index = 40 WHERE id = ?", arguments: [a])
            case .borrowAnotherRowsEntry:
                // Row a passes itself off as b for b's entry (b's last 8 UUID bytes after 8 others,
                // b's start, end and index) while b reads its own record: b's value would count
                // twice if an entry were bound to part of its UUID only.
                try db.execute(sql: """
                    UPDATE sample SET uuid = randomblob(8) || substr((SELECT uuid FROM sample WHERE id = :b), 9, 8),
                        start = (SELECT start FROM sample WHERE id = :b), "end" = (SELECT "end" FROM sample WHERE id = :b),
                        block_index = (SELECT block_index FROM sample WHERE id = :b)
                    WHERE id = :a
                    """, arguments: ["a": a, "b": b])
                try db.execute(sql: "UPDATE sample SET block_id = NULL, block_index = NULL WHERE id = ?", arguments: [b])
            }
        }
        let reopened = TestStores.owner(folder)
        // A source predicate makes statistics read the rows (rollups, sealed before the edit,
        // serve only date-only predicates and would still give the saved figures).
        let owner = HKQuery.predicateForObjects(from: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"))
        await #expect {
            _ = try await reopened.runStatisticsQuery(Self.heartRate, predicate: owner, options: [.discreteAverage, .discreteMin, .discreteMax])
        } throws: { error in
            guard let kind = (error as? HealthStoreError)?.kind else { return false }
            return kind == .tamperedRecord || kind == .corruptDatabase
        }
        // The step block is untouched and still reads.
        #expect(try await reopened.runStatisticsQuery(Self.steps, options: .cumulativeSum).sumQuantity() != nil)
    }

    /// Blocks that hold values: a dissolved block's row stays with its sealed bytes emptied (v22-leaner-indexes).
    static let liveBlocks = "SELECT count(*) FROM value_block WHERE length(sealed) > 0"

    @Test("Deleting a sample dissolves its whole block; the other rows read from their records")
    func deletion() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let first = Self.heartRates(30, seed: 11)
        let second = Self.heartRates(30, fromMinute: 60, seed: 12)
        try await store.save(first)
        try await store.save(second)
        let firstBlock = try await Self.integer(folder, "SELECT block_id FROM sample WHERE uuid = ?", [first[4].uuid.databaseBlob])
        try await store.delete(first[4])
        // Its row stays, emptied: nothing of its values is kept, and no row points at it.
        #expect(try await Self.integer(folder, "SELECT length(sealed) FROM value_block WHERE id = ?", [firstBlock]) == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id = ?", [firstBlock]) == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NULL") == 29)
        #expect(try await Self.integer(folder, Self.liveBlocks) == 1)
        var remaining = first
        remaining.remove(at: 4)
        #expect(try await Self.figures(store, steps: false) == (try await Self.perRowFigures(remaining + second, steps: false)))

        // Deleting by predicate: part of the second block goes, so the block goes.
        let cut = HKQuery.predicateForSamples(withStart: Samples.reference.addingTimeInterval(80 * 60), end: nil)
        #expect(try await store.deleteObjects(of: Self.heartRate, predicate: cut) == 10)
        #expect(try await Self.integer(folder, Self.liveBlocks) == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        #expect(try await Self.figures(store, steps: false)
            == (try await Self.perRowFigures(remaining + second.prefix(20), steps: false)))
    }

    @Test("Sync-identifier replacement dissolves the replaced sample's block; a dropped duplicate seals no block")
    func syncReplacement() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        var expected = Self.heartRates(10, seed: 13, syncPrefix: "hr")
        try await store.save(expected)
        #expect(try await Self.integer(folder, Self.liveBlocks) == 1)

        // Version 2 of hr-3, with another value: the block holding version 1 goes.
        let replacement = Samples.heartRate(199, at: 3 * 60, seconds: 30, metadata: [HKMetadataKeySyncIdentifier: "hr-3", HKMetadataKeySyncVersion: 2])
        try await store.save(replacement)
        expected[3] = replacement
        #expect(try await Self.integer(folder, Self.liveBlocks) == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        #expect(try await Self.figures(store, steps: false) == (try await Self.perRowFigures(expected, steps: false)))

        // A batch whose stale duplicate is dropped: the block planned with it is dissolved.
        let stale = Samples.heartRate(45, at: 0, seconds: 30, metadata: [HKMetadataKeySyncIdentifier: "hr-0", HKMetadataKeySyncVersion: 1])
        let fresh = Self.heartRates(5, fromMinute: 20, seed: 14)
        try await store.save([stale] + fresh)
        expected += fresh
        #expect(try await Self.integer(folder, Self.liveBlocks) == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample") == 15)

        // A batch that replaces one of its own samples: the block is dissolved mid-save, and the
        // rows saved after that are stored without it.
        let early = Samples.heartRate(80, at: 40 * 60, seconds: 30, metadata: [HKMetadataKeySyncIdentifier: "twice", HKMetadataKeySyncVersion: 1])
        let middle = Self.heartRates(4, fromMinute: 41, seed: 15)
        let late = Samples.heartRate(81, at: 45 * 60, seconds: 30, metadata: [HKMetadataKeySyncIdentifier: "twice", HKMetadataKeySyncVersion: 2])
        let tail = Self.heartRates(3, fromMinute: 46, seed: 16)
        try await store.save([early] + middle + [late] + tail)
        expected += middle + [late] + tail
        #expect(try await Self.integer(folder, Self.liveBlocks) == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        #expect(try await Self.figures(store, steps: false) == (try await Self.perRowFigures(expected, steps: false)))

        // A batch with nothing replaced keeps its block.
        let plain = Self.heartRates(6, fromMinute: 60, seed: 17, syncPrefix: "plain")
        try await store.save(plain)
        expected += plain
        #expect(try await Self.integer(folder, Self.liveBlocks) == 1)
        #expect(try await Self.figures(store, steps: false) == (try await Self.perRowFigures(expected, steps: false)))
    }

    @Test("A save that fails leaves neither rows nor blocks: blocks are written in the save's transaction")
    func failedSaveLeavesNoBlock() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let samples = Self.heartRates(20, seed: 18)
        // The same sample twice: the UUID constraint fails after the block and some rows went in.
        await #expect(throws: HKError.self) { try await store.save(samples + [samples[10]]) }
        #expect(try await Self.integer(folder, "SELECT count(*) FROM value_block") == 0)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM sample") == 0)
        try await store.save(samples)
        #expect(try await Self.integer(folder, "SELECT count(*) FROM value_block") == 1)
    }
}
