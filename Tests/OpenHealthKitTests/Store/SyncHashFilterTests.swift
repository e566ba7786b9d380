import Foundation
import GRDB
import Testing
@testable import OpenHealthKit
import TestSupport

/// A bulk write keeps a filter of the sync hashes its store holds, so that a save looks up only the hashes the store
/// may hold. It must never say "not stored" of a stored hash: a sample saved twice would then be stored twice.
@Suite("Sync-hash filter: a bulk write's saves look up only the sync hashes the store may hold", .timeLimit(.minutes(10)))
struct SyncHashFilterTests {
    static let revision = BulkWriteTests.revision

    static func randomHash(_ generator: inout some RandomNumberGenerator, count: Int = 16) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test("Every hash added is reported as possibly held, of any length; few others are (under 1 % at 100,000 added)")
    func noFalseNegatives() {
        var generator = SystemRandomNumberGenerator()
        var filter = SyncHashFilter(dataVersion: 0)
        let added = (0..<100_000).map { index in Self.randomHash(&generator, count: index % 50 == 0 ? index % 17 : 16) }
        for hash in added { filter.insert(hash) }
        #expect(added.allSatisfy { filter.mayContain($0) })
        #expect(filter.mayContain(Data()) == added.contains(Data()))
        let others = (0..<100_000).map { _ in Self.randomHash(&generator) }
        let falsePositives = others.filter { filter.mayContain($0) }.count
        #expect(falsePositives < 1_000, "false positives: \(falsePositives)")
        // An empty filter holds nothing.
        let empty = SyncHashFilter(dataVersion: 0)
        #expect(!others.contains { empty.mayContain($0) })
    }

    static func steps(_ syncIdentifier: String, version: Int, value: Double = 10) -> HKQuantitySample {
        HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: value), start: Samples.reference,
                         end: Samples.reference.addingTimeInterval(60),
                         metadata: [HKMetadataKeySyncIdentifier: syncIdentifier, HKMetadataKeySyncVersion: version])
    }

    static func stepCount(_ store: HKHealthStore) async throws -> Int {
        try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))], sortDescriptors: [], limit: nil)
            .result(for: store).count
    }

    @Test("In a bulk write on a new store, a sample saved again is found stored, and a newer version replaces it")
    func savedTwiceInOneBulkWrite() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.withBulkWrite(BulkWriteTests.hour) {
            let filter = try await store.engine.databaseAsync().syncHashFilter.withLock { $0 }
            #expect(filter != nil && filter?.count == 0)
            let first = try await store.save([Self.steps("s-1", version: 1)], recordedAs: [Self.revision])
            #expect(first.storedCount == 1)
            let again = try await store.save([Self.steps("s-1", version: 1)], recordedAs: [Self.revision])
            #expect(again.storedCount == 0 && again.alreadyStoredCount == 1)
            let newer = try await store.save([Self.steps("s-1", version: 2, value: 20)], recordedAs: [Self.revision])
            #expect(newer.storedCount == 1)
        }
        #expect(try await Self.stepCount(store) == 1)
        // Gone with the bulk write.
        #expect(try await store.engine.databaseAsync().syncHashFilter.withLock { $0 } == nil)
    }

    @Test("A bulk write on a store that holds samples builds its filter from them: saving them again stores nothing")
    func builtFromStoredHashes() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        let samples = (0..<300).map { Self.steps("stored-\($0)", version: 1) }
        _ = try await store.save(samples, recordedAs: Array(repeating: Self.revision, count: samples.count))
        try await store.withBulkWrite(BulkWriteTests.hour) {
            #expect(try await store.engine.databaseAsync().syncHashFilter.withLock { $0?.count } == 300)
            let again = try await store.save(samples, recordedAs: Array(repeating: Self.revision, count: samples.count))
            #expect(again.storedCount == 0 && again.alreadyStoredCount == 300)
        }
        #expect(try await Self.stepCount(store) == 300)
    }

    @Test("A store with more sync hashes than the filter is built from gets none, and still finds what it holds")
    func noFilterForLargeStores() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let count = SyncHashFilter.maximumStoredHashes + 1
        let samples = (0..<count).map { Self.steps("many-\($0)", version: 1) }
        for chunk in stride(from: 0, to: count, by: 20_000) {
            let part = Array(samples[chunk..<min(count, chunk + 20_000)])
            _ = try await store.save(part, recordedAs: Array(repeating: Self.revision, count: part.count))
        }
        try await store.withBulkWrite(BulkWriteTests.hour) {
            #expect(try await store.engine.databaseAsync().syncHashFilter.withLock { $0 } == nil)
            let again = try await store.save([samples[count - 1], Self.steps("fresh", version: 1)], recordedAs: [Self.revision, Self.revision])
            #expect(again.storedCount == 1 && again.alreadyStoredCount == 1)
        }
    }

    @Test("Another connection's commit during the bulk write drops the filter: what it stored is found, not stored twice")
    func otherConnectionDropsFilter() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        // Opened before the bulk write holds the writer (opening a store writes its schema check).
        let other = TestStores.owner(folder)
        #expect(try await Self.stepCount(other) == 0)
        try await store.withBulkWrite(BulkWriteTests.hour) {
            // No transaction is open yet: the other store object commits a sample the filter was not built with.
            _ = try await other.save([Self.steps("elsewhere", version: 1)], recordedAs: [Self.revision])
            let saved = try await store.save([Self.steps("elsewhere", version: 1), Self.steps("new", version: 1)],
                                             recordedAs: [Self.revision, Self.revision])
            #expect(saved.storedCount == 1 && saved.alreadyStoredCount == 1)
            #expect(try await store.engine.databaseAsync().syncHashFilter.withLock { $0 } == nil)
            // Without the filter, saves still find what they stored.
            let again = try await store.save([Self.steps("new", version: 1)], recordedAs: [Self.revision])
            #expect(again.alreadyStoredCount == 1)
        }
        #expect(try await Self.stepCount(store) == 2)
    }

    @Test("The store says whether it holds a sample with a sync identifier, and only to its owner")
    func holdsSamplesWithSyncIdentifiers() async throws {
        let store = TestStores.owner(TemporaryFolder())
        #expect(try await store.holdsSamplesWithSyncIdentifiers() == false)
        let plain = HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 3), start: Samples.reference,
                                     end: Samples.reference)
        try await store.save([plain])
        #expect(try await store.holdsSamplesWithSyncIdentifiers() == false)
        _ = try await store.save([Self.steps("synced", version: 1)], recordedAs: [Self.revision])
        #expect(try await store.holdsSamplesWithSyncIdentifiers() == true)
        let app = HKHealthStore(configuration: .init(location: .inMemory, role: .app))
        await #expect(throws: HKError.self) { _ = try await app.holdsSamplesWithSyncIdentifiers() }
    }
}
