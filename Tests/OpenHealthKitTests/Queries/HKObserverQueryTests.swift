import Foundation
import Testing
@testable import OpenHealthKit
import TestSupport

@Suite("Observer queries")
struct HKObserverQueryTests {
    @Test("Fires at start and after each matching change, not for other types, not after stop")
    func fires() async throws {
        let store = TestStores.memory()
        let fired = Inbox<Int>()
        let query = HKObserverQuery(sampleType: HKQuantityType(.stepCount), predicate: nil) { _, completion, error in
            fired.append(error == nil ? 1 : -1)
            completion()
        }
        store.execute(query)
        #expect(await fired.wait(for: 1).count == 1)
        try await store.save(Samples.steps(1, at: 0))
        #expect(await fired.wait(for: 2).count == 2)
        try await store.save(Samples.heartRate(60, at: 0))
        let sample = Samples.steps(2, at: 60)
        try await store.save(sample)
        try await store.delete(sample)
        #expect(await fired.wait(for: 4).count == 4)
        store.stop(query)
        // Once the stopped query is idle nothing of it runs any more: the save below can only
        // reach it if stop() left it registered.
        await query.lifecycle.waitUntilIdle()
        try await store.save(Samples.steps(3, at: 120))
        await query.lifecycle.waitUntilIdle()
        #expect(fired.values.count == 4)
    }

    @Test("Changes by other sources notify only callers that may read them")
    func privacy() async throws {
        let folder = TemporaryFolder()
        let heartRate = HKQuantityType(.heartRate)
        var fromWatch = StoreChangeSet()
        fromWatch.insert(type: heartRate.identifier, source: "com.example.watch")
        let denied = TestStores.app(folder, bundle: "com.example.denied", provider: PolicyFileAuthorizationProvider(policy: .init(apps: [:])))
        try await denied.requestAuthorization(toShare: [heartRate], read: [heartRate])
        let reader = TestStores.app(folder, bundle: "com.example.reader")
        try await reader.requestAuthorization(toShare: [], read: [heartRate])
        let writer = TestStores.app(folder, bundle: "com.example.writer",
                                    provider: PolicyFileAuthorizationProvider(policy: .init(apps: ["com.example.writer": .init(share: ["*"], read: [])])))
        try await writer.requestAuthorization(toShare: [heartRate], read: [heartRate])
        #expect(!denied.isVisibleChange(fromWatch, to: heartRate))
        #expect(reader.isVisibleChange(fromWatch, to: heartRate))
        #expect(!writer.isVisibleChange(fromWatch, to: heartRate))
        var own = StoreChangeSet()
        own.insert(type: heartRate.identifier, source: "com.example.writer")
        #expect(writer.isVisibleChange(own, to: heartRate))

        // And through a live observer: the reader's observer fires for the change, the denied app's does not.
        let readerFired = Inbox<Int>()
        let deniedFired = Inbox<Int>()
        let readerQuery = HKObserverQuery(sampleType: heartRate, predicate: nil) { _, done, _ in readerFired.append(1); done() }
        let deniedQuery = HKObserverQuery(sampleType: heartRate, predicate: nil) { _, done, _ in deniedFired.append(1); done() }
        reader.execute(readerQuery)
        denied.execute(deniedQuery)
        #expect(await readerFired.wait(for: 1).count == 1)
        #expect(await deniedFired.wait(for: 1).count == 1)
        reader.notify(fromWatch)
        denied.notify(fromWatch)
        #expect(await readerFired.wait(for: 2).count == 2)
        // The denied app's query has handled the change, and did not fire for it.
        await deniedQuery.lifecycle.waitUntilProcessed(1)
        #expect(deniedFired.values.count == 1)
        reader.stop(readerQuery)
        denied.stop(deniedQuery)
        withExtendedLifetime(folder) {}
    }

    @Test("The async observer descriptor yields the changed types")
    func descriptor() async throws {
        let store = TestStores.memory()
        var iterator = HKObserverQueryDescriptor(predicates: [.sample(type: HKCategoryType(.sleepAnalysis))]).results(for: store)
            .makeAsyncIterator()
        #expect(try await iterator.next() == [HKCategoryType(.sleepAnalysis)])
        try await store.save(Samples.sleep(.awake, at: 0, minutes: 1))
        #expect(try await iterator.next() == [HKCategoryType(.sleepAnalysis)])
    }
}
