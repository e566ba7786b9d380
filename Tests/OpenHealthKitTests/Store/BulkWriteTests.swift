import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// A bulk write (what an import runs in) lets saves share a transaction and the writer keep more pages, without
/// changing what is committed: each save whole or not at all, everything saved before the bulk write ends (also when it
/// ends with an error) committed, and the writer back to SQLite's defaults afterwards.
@Suite("Bulk writes: saves sharing a transaction, a larger cache and rarer checkpoints while an import runs", .timeLimit(.minutes(10)))
struct BulkWriteTests {
    static let revision = HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "org.example.import"), version: "1",
                                           productType: nil,
                                           operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0))

    static func batch(_ index: Int, count: Int = 50) -> [HKQuantitySample] {
        (0..<count).map { offset in
            let start = Samples.reference.addingTimeInterval(Double(index * count + offset) * 60)
            return HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60 + Double(offset % 40)),
                                    start: start, end: start,
                                    metadata: [HKMetadataKeySyncIdentifier: "bulk-\(index)-\(offset)", HKMetadataKeySyncVersion: 1])
        }
    }

    /// The heart rates another store object (its own connections, as another process's) sees committed. Opening a store
    /// writes (its schema check): `other` is opened before a bulk write holds the writer, and only reads meanwhile.
    static func committed(_ other: HKHealthStore) async throws -> Int {
        try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.heartRate))], sortDescriptors: [], limit: nil)
            .result(for: other).count
    }

    /// Saves never commit on their own within the test: the shared transaction is due only after an hour.
    static let hour = HKHealthStore.BulkWrite(cacheBytes: 8 << 20, checkpointBytes: 64 << 20, shortestTransaction: .seconds(3600),
                                              longestTransaction: .seconds(3600))

    @Test("A bulk write whose task is cancelled still commits what it saved and leaves no transaction open")
    func cancelledBulkWriteCommits() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let saved = Inbox<Void>()
        let task = Task {
            try await store.withBulkWrite(Self.hour) {
                _ = try await store.save(Self.batch(0), recordedAs: Array(repeating: Self.revision, count: 50))
                saved.append(())
                // Waits for the cancellation (never a minute: the test cancels once the save is in).
                try await Task.sleep(for: .seconds(60))
            }
        }
        _ = await saved.wait(for: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await Self.committed(other) == 50)
        // No transaction left open on the writer: an ordinary save commits and is seen at once.
        try await store.save(Self.batch(1))
        #expect(try await Self.committed(other) == 100)
        let open = try await store.engine.databaseAsync().writer.writeWithoutTransaction { db in db.isInsideTransaction }
        #expect(!open)
    }

    @Test("Saves share one transaction until it is due: another connection sees them once the bulk write ends")
    func savesShareTransaction() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let seenInside = try await store.withBulkWrite(Self.hour) {
            var seen: [Int] = []
            for index in 0..<3 {
                let counts = try await store.save(Self.batch(index), recordedAs: Array(repeating: Self.revision, count: 50))
                #expect(counts.storedCount == 50)
                seen.append(try await Self.committed(other))
            }
            // The same save again inside the transaction: found there, stored once.
            let again = try await store.save(Self.batch(1), recordedAs: Array(repeating: Self.revision, count: 50))
            #expect(again.storedCount == 0 && again.alreadyStoredCount == 50)
            // The writer runs with the bulk write's settings meanwhile.
            let cache = try await store.engine.databaseAsync().writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
            #expect(cache == -(8 << 10))
            return seen
        }
        #expect(seenInside == [0, 0, 0])
        #expect(try await Self.committed(other) == 150)
        // Back to SQLite's defaults, the log emptied.
        let (cache, checkpoint) = try await store.engine.databaseAsync().writer.writeWithoutTransaction { db in
            (try Int.fetchOne(db, sql: "PRAGMA cache_size"), try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint"))
        }
        #expect(cache == -2000 && checkpoint == 1000)
        let wal = (try? FileManager.default.attributesOfItem(atPath: folder.database.path + "-wal"))?[.size] as? Int ?? 0
        #expect(wal == 0)
        // Ordinary saves after it get their own transactions again.
        try await store.save(Self.batch(7))
        #expect(try await Self.committed(other) == 200)
    }

    @Test("A transaction due at once commits each save; one not yet due is invisible to other connections until it commits")
    func uncommittedInvisible() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let due = HKHealthStore.BulkWrite(shortestTransaction: .zero, longestTransaction: .zero)
        try await store.withBulkWrite(due) {
            // A transaction due at once: each save is committed as it ends.
            try await store.save(Self.batch(0), recordedAs: Array(repeating: Self.revision, count: 50))
            #expect(try await Self.committed(other) == 50)
        }
        try await store.withBulkWrite(Self.hour) {
            try await store.save(Self.batch(1), recordedAs: Array(repeating: Self.revision, count: 50))
            #expect(try await Self.committed(other) == 50)
        }
        #expect(try await Self.committed(other) == 100)
    }

    @Test("A bulk write that ends with an error commits the saves before it; a failed save inside rolls back only itself")
    func errorKeepsEarlierSaves() async throws {
        struct Stop: Error {}
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        var failedWrite = false
        var stopped = false
        do {
            try await store.withBulkWrite(Self.hour) {
                try await store.save(Self.batch(0), recordedAs: Array(repeating: Self.revision, count: 50))
                // A write that fails after changing the store: its own changes are rolled back, the transaction goes on.
                let database = try await store.engine.databaseAsync()
                do {
                    try await database.writeAsync { db in
                        try db.execute(sql: "INSERT INTO store_info (key, value) VALUES ('bulk-test', x'00')")
                        throw Stop()
                    }
                } catch {
                    // Reported as the store's error.
                    failedWrite = "\(error)".contains("Stop")
                }
                try await store.save(Self.batch(2), recordedAs: Array(repeating: Self.revision, count: 50))
                throw Stop()
            }
        } catch is Stop {
            stopped = true
        }
        #expect(failedWrite && stopped)
        #expect(try await Self.committed(other) == 100)
        let leftOver = try await store.engine.databaseAsync().readAsync { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM store_info WHERE key = 'bulk-test'")
        }
        #expect(leftOver == 0)
    }

    /// Saves `batch` through `store` from a task that is not the bulk write's (as another page of `health ui` does).
    static func saveOutside(_ store: HKHealthStore, _ batch: [HKQuantitySample]) async throws {
        try await Task.detached { try await store.save(batch) }.value
    }

    @Test("A write from outside an open bulk write is durable when it returns (with the import's earlier saves); a failed import save rolls back alone")
    func outsideWriteCommits() async throws {
        struct Stop: Error {}
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let seen = try await store.withBulkWrite(Self.hour) {
            var seen: [Int] = []
            try await store.save(Self.batch(0), recordedAs: Array(repeating: Self.revision, count: 50))
            seen.append(try await Self.committed(other))
            // Another task's save, then its delete: each seen by another store object when it returns.
            let outside = Self.batch(1, count: 10)
            try await Self.saveOutside(store, outside)
            seen.append(try await Self.committed(other))
            try await Task.detached { try await store.delete(Array(outside.prefix(4))) }.value
            seen.append(try await Self.committed(other))
            // The import's own saves share a transaction again; a failed one rolls back only itself.
            try await store.save(Self.batch(2), recordedAs: Array(repeating: Self.revision, count: 50))
            let database = try await store.engine.databaseAsync()
            await #expect(throws: (any Error).self) {
                try await database.writeAsync { db in
                    try db.execute(sql: "INSERT INTO store_info (key, value) VALUES ('bulk-test', x'00')")
                    throw Stop()
                }
            }
            seen.append(try await Self.committed(other))
            return seen
        }
        #expect(seen == [0, 60, 56, 56])
        #expect(try await Self.committed(other) == 106)
        let leftOver = try await store.engine.databaseAsync().readAsync { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM store_info WHERE key = 'bulk-test'")
        }
        #expect(leftOver == 0)
    }

    @Test("An observer query hears of a bulk write's saves once they are committed: its handler reading another connection sees them")
    func observerAfterCommit() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let counts = Inbox<Int>()
        let query = HKObserverQuery(sampleType: HKQuantityType(.heartRate), predicate: nil) { _, done, _ in
            Task {
                counts.append((try? await Self.committed(other)) ?? -1)
                done()
            }
        }
        store.execute(query)
        #expect(await counts.wait(for: 1) == [0])
        try await store.withBulkWrite(Self.hour) {
            try await store.save(Self.batch(0), recordedAs: Array(repeating: Self.revision, count: 50))
            // Not committed: nothing told (a notification now would find nothing new).
            // Another task's save commits the shared transaction: the observer is told, and finds both saves.
            try await Self.saveOutside(store, Self.batch(1, count: 10))
            _ = await counts.wait(for: 2)
            try await store.save(Self.batch(2), recordedAs: Array(repeating: Self.revision, count: 50))
        }
        // The end of the bulk write commits the last save and tells the observer.
        var seen = await counts.wait(for: 3)
        while seen.last != 110, seen.allSatisfy({ $0 <= 110 && $0 != -1 }) { seen = await counts.wait(for: seen.count + 1) }
        store.stop(query)
        #expect(seen.first == 0)
        #expect(seen.dropFirst().allSatisfy { $0 >= 60 }, "\(seen)")
        #expect(seen.last == 110, "\(seen)")
    }

    @Test("A bulk write commits once its longest time has passed with no save (a pause in the import holds no write lock)")
    func pauseCommits() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let settings = HKHealthStore.BulkWrite(shortestTransaction: .seconds(2), longestTransaction: .seconds(2))
        let seen = try await store.withBulkWrite(settings) {
            try await store.save(Self.batch(0, count: 5), recordedAs: Array(repeating: Self.revision, count: 5))
            // No further save: the timer commits (waited for by polling another connection, at most a minute).
            for _ in 0..<600 {
                if try await Self.committed(other) == 5 { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }
        #expect(seen)
        // The writer is free meanwhile: another store object writes without waiting for the bulk write's end.
        #expect(try await Self.committed(other) == 5)
    }

    @Test("With no transaction open the bulk write's timer sleeps: it wakes once per transaction, not every few milliseconds")
    func idleTimerSleeps() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let other = TestStores.owner(folder)
        #expect(try await Self.committed(other) == 0)
        let settings = HKHealthStore.BulkWrite(shortestTransaction: .milliseconds(20), longestTransaction: .milliseconds(20))
        let database = try await store.engine.databaseAsync()
        let wakes = try await store.withBulkWrite(settings) {
            // One transaction, committed by the save or by the timer once open 20 ms (waited for by polling, at most a minute).
            try await store.save(Self.batch(0, count: 5), recordedAs: Array(repeating: Self.revision, count: 5))
            for _ in 0..<600 {
                if try await Self.committed(other) == 5 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            // Then an idle second: the timer used to wake every 10 ms meanwhile (about a hundred times).
            try await Task.sleep(for: .seconds(1))
            return database.bulkTransaction.withLock { $0?.timerWakes ?? -1 }
        }
        #expect(try await Self.committed(other) == 5)
        #expect((0...3).contains(wakes), "timer woke \(wakes) times")
    }

    @Test("Only the owner may start a bulk write")
    func ownerOnly() async throws {
        let folder = TemporaryFolder()
        #expect(try await Self.committed(TestStores.owner(folder)) == 0)
        let app = TestStores.app(folder, bundle: "org.example.app")
        await #expect(throws: HKError.self) { try await app.withBulkWrite { 1 } }
    }

    @Test("New samples get time-ordered UUIDs (version 7): unique, version and variant bits set, a Unix time in milliseconds first")
    func timeOrderedUUIDs() {
        let uuids = (0..<100_000).map { _ in UUID.timeOrdered() }
        #expect(Set(uuids).count == uuids.count)
        for uuid in uuids {
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            // After 2020 and before 2100 (the clock itself is not asserted on: it may step back).
            #expect(milliseconds > 1_577_836_800_000 && milliseconds < 4_102_444_800_000)
            #expect(bytes[6] >> 4 == 7 && bytes[8] >> 6 == 0b10)
        }
        let sample = Self.batch(0, count: 1)[0]
        #expect(sample.uuid.uuidString.dropFirst(14).first == "7")
    }
}
