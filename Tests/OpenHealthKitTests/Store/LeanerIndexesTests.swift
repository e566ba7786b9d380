import Crypto
import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// v22-leaner-indexes: no index on `sample.block_id` (a dissolved block's rows are found by the
/// UUIDs its entries name, and its row stays with its sealed bytes emptied), and `metadata_index`
/// keyed by (key hash, value hash, row id) without a rowid. Every deletion still dissolves the
/// whole block, whatever the block's format or state, and metadata predicates answer as before.
@Suite("Leaner indexes: blocks dissolved through their entries' UUIDs, metadata index without a rowid")
struct LeanerIndexesTests {
    static var owner: NSPredicate { HKQuery.predicateForObjects(from: HKSource(name: "Owner", bundleIdentifier: "org.example.owner")) }

    static let ownerRevision = HKSourceRevision(source: HKSource(name: "Owner", bundleIdentifier: "org.example.owner"), version: nil)

    @Test("An opened block names its entries' UUIDs, in order, in both formats")
    func uuidsOfBothFormats() throws {
        let cipher = RecordCipher(masterKey: SymmetricKey(size: .bits256))
        var random = SplitMix64(seed: 220)
        for count in [1, 2, 3, 39, 40, 41, 700] {
            let entries = ValueBlockFormatTests.entries(count, &random)
            let expected = entries.map(\.uuid.databaseBlob)
            let type = HKQuantityTypeIdentifier.heartRate.rawValue
            let format2 = try ValueBlock(opening: ValueBlock.seal(entries, type: type, cipher: cipher), type: type, cipher: cipher)
            #expect(format2.uuids == expected)
            let sealed1 = try cipher.sealBlock(ValueBlock.format1Plaintext(entries), context: ValueBlock.format1Context(type: type, count: count))
            let format1 = try ValueBlock(opening: sealed1, type: type, cipher: cipher)
            #expect(format1.uuids == expected)
        }
    }

    @Test("A new store has no index on block_id, and unlinks a block's rows through the UUID index")
    func newStoreLayout() async throws {
        let folder = TemporaryFolder()
        try await TestStores.owner(folder).save(ValueBlockTests.heartRates(10, seed: 221))
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sqlite_schema WHERE name = 'sample_block'") == 0)
        #expect(try await ValueBlockTests.integer(folder, """
            SELECT count(*) FROM sqlite_schema WHERE name = 'metadata_index' AND sql LIKE '%WITHOUT ROWID%'
            """) == 1)
        let queue = try DatabaseQueue(path: folder.database.path)
        defer { try? queue.close() }
        let plan = try await queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN UPDATE sample SET block_id = NULL, block_index = NULL WHERE uuid = ? AND block_id = ?",
                             arguments: [Data(count: 16), 1]).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("sqlite_autoindex_sample_1") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
        // A metadata lookup searches the primary key by key id and value hash.
        let lookup = try await queue.read { db in
            let sql = "SELECT sample_id FROM metadata_index WHERE key_id = \(MetadataIndexEntry.keyID) AND value_hash IN (?, ?)"
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql,
                             arguments: [Data(count: 16), Data(count: 16), Data(count: 16)]).map { $0["detail"] as String }
        }
        #expect(lookup.contains { $0.hasPrefix("SEARCH metadata_index USING PRIMARY KEY (key_id=? AND value_hash=?)") }, "\(lookup)")
    }

    @Test("Deleting from a format-1 block unlinks every row it names; its row stays, emptied")
    func dissolvesFormat1Block() async throws {
        let folder = TemporaryFolder()
        let samples = ValueBlockTests.heartRates(300, seed: 222)
        try await TestStores.owner(folder).save(samples)
        try await ValueBlockFormatTests.resealInFormat1(folder)
        let store = TestStores.owner(folder)
        try await store.delete(samples[150])
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM value_block") == 1)
        #expect(try await ValueBlockTests.integer(folder, ValueBlockTests.liveBlocks) == 0)
        var remaining = samples
        remaining.remove(at: 150)
        #expect(try await ValueBlockTests.figures(store, steps: false) == (try await ValueBlockTests.perRowFigures(remaining, steps: false)))
    }

    @Test("Deleting from a block that no longer opens still unlinks every row that points at it")
    func dissolvesTamperedBlock() async throws {
        let folder = TemporaryFolder()
        let samples = ValueBlockTests.heartRates(40, seed: 223)
        try await TestStores.owner(folder).save(samples)
        try await ValueBlockTests.edit(folder) { db in
            var sealed = try #require(try Data.fetchOne(db, sql: "SELECT sealed FROM value_block"))
            sealed[sealed.startIndex + 20] ^= 0x40
            try db.execute(sql: "UPDATE value_block SET sealed = ?", arguments: [sealed])
        }
        let store = TestStores.owner(folder)
        // Read from the rows, the altered block is refused ...
        await #expect(throws: HealthStoreError.self) {
            _ = try await store.runStatisticsQuery(ValueBlockTests.heartRate, predicate: Self.owner, options: .discreteAverage)
        }
        // ... and a deletion dissolves it all the same: the others read from their own records again.
        try await store.delete(samples[7])
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        #expect(try await ValueBlockTests.integer(folder, ValueBlockTests.liveBlocks) == 0)
        var remaining = samples
        remaining.remove(at: 7)
        let average = try await store.runStatisticsQuery(ValueBlockTests.heartRate, predicate: Self.owner, options: .discreteAverage)
        let expected = try await ValueBlockTests.perRowFigures(remaining, steps: false)
        #expect(average.averageQuantity()?.doubleValue(for: Samples.bpm) == expected.average)
    }

    @Test("Saving again what is stored writes no block; a batch mixing stored and new samples stores the new ones without one")
    func savingStoredSamplesWritesNoBlock() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let first = ValueBlockTests.heartRates(50, seed: 224, syncPrefix: "hr")
        try await store.save(first)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM value_block") == 1)
        // The same records again (new objects, same sync identifiers and versions): nothing stored, no block row written.
        let again = ValueBlockTests.heartRates(50, seed: 224, syncPrefix: "hr")
        let counts = try await store.save(again, recordedAs: Array(repeating: Self.ownerRevision,
                                                                  count: again.count))
        #expect(counts.alreadyStoredCount == 50)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM value_block") == 1)
        #expect(try await ValueBlockTests.integer(folder, ValueBlockTests.liveBlocks) == 1)
        // One stored record beside new ones: their planned block is not written; they read from their own records.
        let fresh = ValueBlockTests.heartRates(6, fromMinute: 100, seed: 225, syncPrefix: "new")
        try await store.save([ValueBlockTests.heartRates(1, seed: 224, syncPrefix: "hr")[0]] + fresh)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM value_block") == 1)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sample") == 56)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NULL") == 6)
        #expect(try await ValueBlockTests.figures(store, steps: false) == (try await ValueBlockTests.perRowFigures(first + fresh, steps: false)))
    }

    /// Samples with metadata of every kind the index keeps: text, numbers, Booleans, dates, and a
    /// quantity (no value hash: found by its key alone).
    static func tagged() -> [HKQuantitySample] {
        (0..<24).map { index in
            var metadata: [String: Any] = ["Tag": index % 3 == 0 ? "morning" : "evening", "Lap": index % 4, "Indoor": index % 2 == 0]
            if index % 5 == 0 { metadata["When"] = Samples.reference.addingTimeInterval(Double(index)) }
            if index % 6 == 0 { metadata["Offset"] = HKQuantity(unit: .meter(), doubleValue: Double(index)) }
            return Samples.heartRate(60 + Double(index), at: Double(index) * 60, seconds: 30, metadata: metadata)
        }
    }

    /// The UUIDs each metadata predicate finds, one line per predicate.
    static func findings(_ store: HKHealthStore) async throws -> [String] {
        let predicates: [NSPredicate] = [
            HKQuery.predicateForObjects(withMetadataKey: "Tag"),
            HKQuery.predicateForObjects(withMetadataKey: "Tag", allowedValues: ["morning"]),
            HKQuery.predicateForObjects(withMetadataKey: "Lap", allowedValues: [1, 3]),
            HKQuery.predicateForObjects(withMetadataKey: "Indoor", allowedValues: [true]),
            HKQuery.predicateForObjects(withMetadataKey: "When"),
            HKQuery.predicateForObjects(withMetadataKey: "When", allowedValues: [Samples.reference.addingTimeInterval(10)]),
            HKQuery.predicateForObjects(withMetadataKey: "Offset"),
            HKQuery.predicateForObjects(withMetadataKey: "Missing"),
        ]
        var lines: [String] = []
        for predicate in predicates {
            let found = try await store.runSampleQuery(ValueBlockTests.heartRate, predicate: predicate)
            lines.append(found.map(\.uuid.uuidString).sorted().joined(separator: " "))
        }
        return lines
    }

    @Test("A v21 store migrates: the block_id index goes, metadata rows keep answering, the freed pages are vacuumed")
    func migratesFromV21() async throws {
        let folder = TemporaryFolder()
        let samples = Self.tagged()
        try await TestStores.owner(folder).save(samples)
        let expected = try await Self.findings(TestStores.owner(folder))
        #expect(expected[0].split(separator: " ").count == 24)
        #expect(expected[1].split(separator: " ").count == 8)
        #expect(expected[6].split(separator: " ").count == 4)
        #expect(expected[7].isEmpty)
        let rows = try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index")
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index WHERE value_hash = X''") == 4)

        // Each key once in metadata_key: Tag, Lap, Indoor, When, Offset.
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_key") == 5)
        // Back to v21's layout: a rowid table of key hashes, NULL for no value hash, its two indexes, and the block_id index.
        try await ValueBlockTests.edit(folder) { db in
            try db.execute(sql: """
                CREATE TABLE metadata_index_old (
                    sample_id INTEGER NOT NULL REFERENCES sample(id) ON DELETE CASCADE,
                    key_hash BLOB NOT NULL,
                    value_hash BLOB
                );
                INSERT INTO metadata_index_old SELECT m.sample_id, k.hash, nullif(m.value_hash, X'')
                    FROM metadata_index m JOIN metadata_key k ON k.id = m.key_id ORDER BY m.sample_id;
                DROP TABLE metadata_index;
                DROP TABLE metadata_key;
                ALTER TABLE metadata_index_old RENAME TO metadata_index;
                CREATE INDEX metadata_index_lookup ON metadata_index(key_hash, value_hash);
                CREATE INDEX metadata_index_sample ON metadata_index(sample_id);
                CREATE INDEX sample_block ON sample(block_id) WHERE block_id IS NOT NULL;
                DELETE FROM grdb_migrations WHERE identifier = 'v22-leaner-indexes';
                """)
        }
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index WHERE value_hash IS NULL") == 4)

        let store = TestStores.owner(folder)
        #expect(try await Self.findings(store) == expected)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM grdb_migrations WHERE identifier = 'v22-leaner-indexes'") == 1)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sqlite_schema WHERE name IN ('sample_block', 'metadata_index_lookup')") == 0)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index") == rows)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_key") == 5)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM store_info WHERE key = 'vacuum_pending'") == 0)

        // Deleting a sample removes its index rows and dissolves its block.
        try await store.delete(samples[0])
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM metadata_index") < rows)
        #expect(try await ValueBlockTests.integer(folder, "SELECT count(*) FROM sample WHERE block_id IS NOT NULL") == 0)
        let after = try await Self.findings(store)
        #expect(after[0].split(separator: " ").count == 23)
        #expect(!after.joined(separator: " ").contains(samples[0].uuid.uuidString))
    }
}
