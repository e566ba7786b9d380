import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Anchored object queries: incremental sync with deletions")
struct HKAnchoredObjectQueryTests {
    static let steps = HKQuantityType(.stepCount)

    @Test("A nil anchor returns everything; later anchors return only what changed, deletions included")
    func incremental() async throws {
        let store = TestStores.memory()
        let first = (0..<5).map { Samples.steps(Double($0), at: Double($0) * 60) }
        try await store.save(first)
        let initial = try await store.runAnchoredQuery(Self.steps, anchor: nil)
        #expect(Set(initial.added.map(\.uuid)) == Set(first.map(\.uuid)))
        #expect(initial.deleted.isEmpty)

        let unchanged = try await store.runAnchoredQuery(Self.steps, anchor: initial.anchor)
        #expect(unchanged.added.isEmpty && unchanged.deleted.isEmpty)
        #expect(unchanged.anchor == initial.anchor)

        let more = Samples.steps(100, at: 1_000)
        try await store.save(more)
        try await store.delete(first[2])
        try await store.save(Samples.heartRate(60, at: 0))  // another type: not reported
        let delta = try await store.runAnchoredQuery(Self.steps, anchor: initial.anchor)
        #expect(delta.added.map(\.uuid) == [more.uuid])
        #expect(delta.deleted.map(\.uuid) == [first[2].uuid])
    }

    @Test("A limit batches the history; running until nothing comes back reads everything once")
    func batching() async throws {
        let store = TestStores.memory()
        let samples = (0..<23).map { Samples.steps(Double($0), at: Double($0) * 60) }
        try await store.save(samples)
        try await store.delete([samples[3], samples[4]])
        var anchor: HKQueryAnchor?
        var seen: [UUID] = []
        var batches = 0
        while true {
            let batch = try await store.runAnchoredQuery(Self.steps, anchor: anchor, limit: 5)
            #expect(batch.added.count + batch.deleted.count <= 5)
            if batch.added.isEmpty && batch.deleted.isEmpty { break }
            seen += batch.added.map(\.uuid)
            anchor = batch.anchor
            batches += 1
            #expect(batches < 20)
        }
        #expect(seen.count == 21 && Set(seen).count == 21)
        #expect(batches == 5)
    }

    @Test("Anchors survive archiving and a process restart; deletions made meanwhile are reported")
    func restart() async throws {
        let folder = TemporaryFolder()
        var archived: Data
        var toDelete: UUID
        do {
            let store = TestStores.owner(folder)
            let samples = (0..<4).map { Samples.steps(Double($0), at: Double($0) * 60) }
            try await store.save(samples)
            let result = try await store.runAnchoredQuery(Self.steps, anchor: nil)
            archived = try NSKeyedArchiver.archivedData(withRootObject: result.anchor, requiringSecureCoding: true)
            toDelete = samples[1].uuid
        }
        do {
            // A new store object on the same file, as after a restart.
            let store = TestStores.owner(folder)
            let anchor = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQueryAnchor.self, from: archived))
            try await store.deleteObjects(of: Self.steps, predicate: HKQuery.predicateForObject(with: toDelete))
            let added = Samples.steps(9, at: 9_000)
            try await store.save(added)
            let delta = try await store.runAnchoredQuery(Self.steps, anchor: anchor)
            #expect(delta.added.map(\.uuid) == [added.uuid])
            #expect(delta.deleted.map(\.uuid) == [toDelete])
            // The compact form round-trips too.
            #expect(HKQueryAnchor(data: delta.anchor.data) == delta.anchor)
            #expect(HKQueryAnchor(data: Data("garbage".utf8)) == nil)
        }
    }

    @Test("An anchor from another store, or older than the kept deletions, is refused")
    func invalidAnchors() async throws {
        let one = TestStores.memory()
        let two = TestStores.memory()
        try await one.save(Samples.steps(1, at: 0))
        let anchor = try await one.runAnchoredQuery(Self.steps, anchor: nil).anchor
        await #expect { _ = try await two.runAnchoredQuery(Self.steps, anchor: anchor) } throws: {
            ($0 as? HealthStoreError)?.kind == .invalidAnchor
        }

        let folder = TemporaryFolder()
        let clock = TestClock()
        let store = HKHealthStore(configuration: .init(location: .file(folder.database), key: .keyFile(folder.keyFile),
                                                       source: HKSource(name: "O", bundleIdentifier: "o"), role: .owner,
                                                       tombstoneRetention: 60, now: clock.reader))
        let samples = [Samples.steps(1, at: 0), Samples.steps(2, at: 60)]
        try await store.save(samples)
        let old = try await store.runAnchoredQuery(Self.steps, anchor: nil).anchor
        try await store.delete(samples[0])
        // Within the retention the first deletion is kept, and the anchor still works.
        clock.advance(by: 59)
        _ = try await store.runAnchoredQuery(Self.steps, anchor: old)
        clock.advance(by: 2)
        try await store.delete(samples[1])  // prunes the first tombstone (now 61 s old)
        await #expect { _ = try await store.runAnchoredQuery(Self.steps, anchor: old) } throws: {
            ($0 as? HealthStoreError)?.kind == .anchorExpired
        }
    }

    @Test("With an update handler the query keeps delivering changes until stopped")
    func longRunning() async throws {
        let store = TestStores.memory()
        let updates = Inbox<(added: [UUID], deleted: [UUID])>()
        let initial = Inbox<Int>()
        let query = HKAnchoredObjectQuery(type: Self.steps, predicate: nil, anchor: nil, limit: HKObjectQueryNoLimit) { _, added, _, _, _ in
            initial.append(added?.count ?? -1)
        }
        query.updateHandler = { _, added, deleted, _, _ in
            updates.append(((added ?? []).map(\.uuid), (deleted ?? []).map(\.uuid)))
        }
        try await store.save(Samples.steps(1, at: 0))
        store.execute(query)
        #expect(await initial.wait(for: 1) == [1])
        let second = Samples.steps(2, at: 60)
        try await store.save(second)
        #expect(await updates.wait(for: 1).count == 1)
        try await store.delete(second)
        let received = await updates.wait(for: 2)
        #expect(received.count == 2)
        #expect(received.first?.added == [second.uuid])
        #expect(received.last?.deleted == [second.uuid])
        store.stop(query)
        await query.lifecycle.waitUntilIdle()
        try await store.save(Samples.steps(3, at: 120))
        await query.lifecycle.waitUntilIdle()
        #expect(updates.values.count == 2)
    }

    @Test("The async descriptor reads once or streams results")
    func descriptor() async throws {
        let store = TestStores.memory()
        try await store.save(Samples.steps(1, at: 0))
        let descriptor = HKAnchoredObjectQueryDescriptor(predicates: [.quantitySample(type: Self.steps)], anchor: nil)
        let once = try await descriptor.result(for: store)
        #expect(once.addedSamples.count == 1)
        var iterator = descriptor.results(for: store).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.addedSamples.count == 1)
        let added = Samples.steps(5, at: 60)
        try await store.save(added)
        let next = try await iterator.next()
        #expect(next?.addedSamples.map(\.uuid) == [added.uuid])
    }
}
