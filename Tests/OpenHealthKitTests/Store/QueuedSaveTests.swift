import Foundation
import Synchronization
import Testing
@testable import OpenHealthKit
import TestSupport

/// An importer hands its prepared batches straight to the store's writer (`HKHealthStore.enqueueSave`), which writes
/// them back to back. What it must keep from saving them one `await` after the other: the order, the batch after a
/// failed one left unwritten, a refused sample left out of its batch before the next batch is written.
@Suite("Batches handed to the store's writer are written in order, as saves of the bulk write", .timeLimit(.minutes(10)))
struct QueuedSaveTests {
    static let revision = BulkWriteTests.revision

    static func steps(_ syncIdentifier: String, version: Int, value: Double) -> HKQuantitySample {
        HKQuantitySample(type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: value), start: Samples.reference,
                         end: Samples.reference.addingTimeInterval(60),
                         metadata: [HKMetadataKeySyncIdentifier: syncIdentifier, HKMetadataKeySyncVersion: version])
    }

    /// Finite in kilometres, not in metres (the type's unit): the store refuses it.
    static func endlessDistance() -> HKQuantitySample {
        HKQuantitySample(type: HKQuantityType(.distanceWalkingRunning), quantity: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 1.7e308),
                         start: Samples.reference, end: Samples.reference.addingTimeInterval(60))
    }

    /// Hands `batches` to the writer one after the other, returning each one's result in the order the writer finished them.
    static func enqueue(_ store: HKHealthStore, _ batches: [[HKObject]], owner: HKHealthStore.BulkWriteOwner?,
                        skip: @escaping @Sendable (Int) -> Bool = { _ in false }) async -> [(Int, Result<HKHealthStore.QueuedSaveOutcome, any Error>)] {
        let finished = Mutex<[(Int, Result<HKHealthStore.QueuedSaveOutcome, any Error>)]>([])
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        for (index, objects) in batches.enumerated() {
            let revisions = Array(repeating: revision, count: objects.count)
            let prepared = Result { try store.prepareSaveBlocking(objects, recordedAs: revisions, knownSyncHashes: []) }
            store.enqueueSave(prepared, objects: objects, recordedAs: revisions, knownSyncHashes: [], owner: owner, skip: { skip(index) }) { result in
                finished.withLock { $0.append((index, result)) }
                continuation.yield()
            }
        }
        var count = 0
        for await _ in stream {
            count += 1
            if count == batches.count { break }
        }
        return finished.withLock { $0 }
    }

    /// One batch, recorded under ``revision`` alone whatever its size, prepared by one store object and handed to another's writer.
    static func enqueueOne(_ objects: [HKObject], preparedBy preparer: HKHealthStore, savedBy saver: HKHealthStore) async
        -> Result<HKHealthStore.QueuedSaveOutcome, any Error> {
        let prepared = Result { try preparer.prepareSaveBlocking(objects, recordedAs: [revision], knownSyncHashes: []) }
        return await withCheckedContinuation { continuation in
            saver.enqueueSave(prepared, objects: objects, recordedAs: [revision], knownSyncHashes: [], owner: nil, skip: { false }) {
                continuation.resume(returning: $0)
            }
        }
    }

    /// The HealthKit error code a failed save reported; nil when it succeeded or failed otherwise.
    static func errorCode(_ result: Result<HKHealthStore.QueuedSaveOutcome, any Error>) -> HKError.Code? {
        guard case .failure(let error) = result else { return nil }
        return (error as? HKError)?.code
    }

    static func storedSteps(_ store: HKHealthStore) async throws -> [String: Double] {
        let samples = try await HKSampleQueryDescriptor(predicates: [.quantitySample(type: HKQuantityType(.stepCount))], sortDescriptors: [], limit: nil)
            .result(for: store)
        var values: [String: Double] = [:]
        for sample in samples {
            let key = sample.metadata?[HKMetadataKeySyncIdentifier] as? String ?? "?"
            #expect(values[key] == nil, "\(key) stored twice")
            values[key] = sample.quantity.doubleValue(for: .count())
        }
        return values
    }

    @Test("Forty batches handed over at once are written in the order handed over: a lower version after a higher one is found stored")
    func writtenInOrder() async throws {
        let store = TestStores.owner(TemporaryFolder())
        // Batch i holds "shared" at version 40 - i and a sample of its own: only the first batch's "shared" is stored when
        // they are written in order; in any other order a later batch's higher version would replace an earlier one.
        let batches: [[HKObject]] = (0..<40).map { index in
            [Self.steps("shared", version: 40 - index, value: Double(1_000 + index)), Self.steps("own-\(index)", version: 1, value: Double(index))]
        }
        let results = try await store.withBulkWrite(BulkWriteTests.hour) {
            await Self.enqueue(store, batches, owner: store.currentBulkWriteOwner)
        }
        #expect(results.map(\.0) == Array(0..<40), "finished in another order than handed over")
        for (index, result) in results {
            let outcome = try result.get()
            #expect(outcome.refused.isEmpty)
            #expect(outcome.counts.storedCount == (index == 0 ? 2 : 1), "batch \(index)")
            #expect(outcome.counts.alreadyStoredCount == (index == 0 ? 0 : 1), "batch \(index)")
        }
        let stored = try await Self.storedSteps(store)
        #expect(stored.count == 41)
        #expect(stored["shared"] == 1_000)
        #expect((0..<40).allSatisfy { stored["own-\($0)"] == Double($0) })
    }

    @Test("Outside a bulk write each batch is a transaction of its own, still written in order")
    func inOrderWithoutBulkWrite() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let batches: [[HKObject]] = (0..<10).map { [Self.steps("shared", version: 10 - $0, value: Double($0))] }
        let results = await Self.enqueue(store, batches, owner: nil)
        #expect(results.map(\.0) == Array(0..<10))
        #expect(try results.map { try $0.1.get().counts.storedCount } == [1] + Array(repeating: 0, count: 9))
        #expect(try await Self.storedSteps(store) == ["shared": 0])
    }

    @Test("A batch whose skip says so is not written and gets CancellationError; the batches around it are written")
    func skipped() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let batches: [[HKObject]] = (0..<3).map { [Self.steps("batch-\($0)", version: 1, value: Double($0))] }
        let results = try await store.withBulkWrite(BulkWriteTests.hour) {
            await Self.enqueue(store, batches, owner: store.currentBulkWriteOwner, skip: { $0 == 1 })
        }
        #expect(results.map(\.0) == [0, 1, 2])
        #expect(throws: CancellationError.self) { try results[1].1.get() }
        #expect(try await Self.storedSteps(store) == ["batch-0": 0, "batch-2": 2])
    }

    @Test("A sample refused while its batch is written (a route whose workout is not stored) is left out; the rest is stored")
    func refusedWhileWritten() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let location = CLLocation(latitude: 47.37, longitude: 8.54)
        // Valid when prepared; only the write finds that its workout is not in the store, and rolls the batch's savepoint back.
        let route = try HKWorkoutRoute.imported(locations: [location], workoutSyncIdentifier: "no-such-workout",
                                                workoutSource: Self.revision.source, device: nil,
                                                metadata: [HKMetadataKeySyncIdentifier: "route", HKMetadataKeySyncVersion: 1])
        let batches: [[HKObject]] = [
            [Self.steps("a", version: 1, value: 1), route, Self.steps("b", version: 1, value: 2)],
            [Self.steps("c", version: 1, value: 3)],
        ]
        let results = try await store.withBulkWrite(BulkWriteTests.hour) {
            await Self.enqueue(store, batches, owner: store.currentBulkWriteOwner)
        }
        #expect(results.map(\.0) == [0, 1])
        let first = try results[0].1.get()
        #expect(first.counts.storedCount == 2 && first.refused.count == 1)
        #expect(first.refused.first?.contains("workout is not saved") == true, "\(first.refused)")
        #expect(try results[1].1.get().counts.storedCount == 1)
        #expect(try await Self.storedSteps(store) == ["a": 1, "b": 2, "c": 3])
        let routes = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKSeriesType.workoutRoute())], sortDescriptors: []).result(for: store)
        #expect(routes.isEmpty)
    }

    @Test("A refused sample is left out with its reason, the rest of its batch stored before the next batch is written")
    func refusedSampleLeftOut() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let batches: [[HKObject]] = [
            [Self.steps("a", version: 2, value: 2), Self.endlessDistance(), Self.steps("b", version: 1, value: 1)],
            // Written after the one-by-one saves of the batch before: "a" at version 2 is stored already.
            [Self.steps("a", version: 1, value: 100)],
        ]
        let results = try await store.withBulkWrite(BulkWriteTests.hour) {
            await Self.enqueue(store, batches, owner: store.currentBulkWriteOwner)
        }
        let first = try results[0].1.get()
        #expect(first.counts.storedCount == 2)
        #expect(first.refused.count == 1)
        #expect(first.refused.first?.contains("HKQuantityTypeIdentifierDistanceWalkingRunning") == true, "\(first.refused)")
        let second = try results[1].1.get()
        #expect(second.counts.storedCount == 0 && second.counts.alreadyStoredCount == 1)
        #expect(try await Self.storedSteps(store) == ["a": 2, "b": 1])
    }

    @Test("A batch refused for having fewer source revisions than objects is not saved one by one: nothing of it is stored")
    func revisionsMissing() async throws {
        let store = TestStores.owner(TemporaryFolder())
        let objects: [HKObject] = [Self.steps("x", version: 1, value: 1), Self.steps("y", version: 1, value: 2)]
        let result = await Self.enqueueOne(objects, preparedBy: store, savedBy: store)
        #expect(Self.errorCode(result) == .errorInvalidArgument)
        #expect(try await Self.storedSteps(store).isEmpty)
    }

    @Test("Only the store's owner may hand batches over: an app's store gets errorAuthorizationDenied and nothing is written")
    func ownerOnly() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let app = TestStores.app(folder, bundle: "org.example.app")
        let objects: [HKObject] = [Self.steps("x", version: 1, value: 1)]
        let result = await Self.enqueueOne(objects, preparedBy: owner, savedBy: app)
        #expect(Self.errorCode(result) == .errorAuthorizationDenied)
        #expect(try await Self.storedSteps(owner).isEmpty)
    }
}
