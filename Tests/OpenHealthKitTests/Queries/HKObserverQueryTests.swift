import Foundation
import Testing
@testable import OpenHealthKit

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
        try await store.save(Samples.steps(3, at: 120))
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(fired.values.count == 4)
    }

    @Test("Changes the caller may not read raise no notification")
    func privacy() async throws {
        let folder = TemporaryFolder()
        let watch = TestStores.app(folder, bundle: "com.example.watch")
        try await watch.requestAuthorization(toShare: [HKQuantityType(.heartRate)], read: [])
        let denied = TestStores.app(folder, bundle: "com.example.other", provider: PolicyFileAuthorizationProvider(policy: .init(apps: [:])))
        try await denied.requestAuthorization(toShare: [], read: [HKQuantityType(.heartRate)])
        let fired = Inbox<Set<HKSampleType>>()
        let query = HKObserverQuery(queryDescriptors: [HKQueryDescriptor(sampleType: HKQuantityType(.heartRate), predicate: nil)]) {
            _, types, completion, _ in
            fired.append(types ?? [])
            completion()
        }
        denied.execute(query)
        #expect(await fired.wait(for: 1).count == 1)
        // A change through another store object: observers are per store object, so this
        // checks that the watch's own store would notify and the denied app's does not.
        try await denied.save([])
        try await watch.save(Samples.heartRate(70, at: 0))
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(fired.values.count == 1)
        denied.stop(query)
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
