import Foundation
import Testing
@testable import OpenHealthKit

/// Large saves are prepared (validated, converted, sealed) on several cores: the store must
/// not notice, neither in what it keeps nor in the error it reports.
@Suite("Preparing large batches on every core")
struct SamplePreparerTests {
    /// A batch cut into several chunks, in reverse time order so change order and time order differ.
    static func batch(count: Int) -> [HKQuantitySample] {
        (0..<count).map { index in
            Samples.heartRate(Double(40 + index % 150), at: TimeInterval(count - index) * 60, seconds: 30)
        }
    }

    @Test("A batch above the parallel threshold is stored whole, in save order, each sample with its own value")
    func largeBatchInOrder() async throws {
        let store = TestStores.memory()
        let samples = Self.batch(count: 2 * SamplePreparer.parallelThreshold + 7)
        try await store.save(samples)
        let added = try await store.runAnchoredQuery(HKQuantityType(.heartRate), anchor: nil).added
        #expect(added.map(\.uuid) == samples.map(\.uuid))
        for (back, saved) in zip(added, samples) {
            let back = try #require(back as? HKQuantitySample)
            #expect(back.quantity.doubleValue(for: Samples.bpm) == saved.quantity.doubleValue(for: Samples.bpm))
            #expect(back.startDate == saved.startDate && back.endDate == saved.endDate)
        }
    }

    @Test("With invalid samples in several chunks, the error is the first invalid sample's and nothing is stored")
    func firstErrorWins() async throws {
        let store = TestStores.memory()
        var samples: [HKSample] = Self.batch(count: 2 * SamplePreparer.parallelThreshold + 7)
        // The first invalid sample ends before it starts; a later one, in another chunk, is not finite.
        samples[100] = HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: Samples.bpm, doubleValue: 60),
                                        start: Samples.reference, end: Samples.reference.addingTimeInterval(-1))
        samples[samples.count - 10] = Samples.heartRate(.infinity, at: 0)
        do {
            try await store.save(samples)
            Issue.record("saving should fail")
        } catch let error as HKError {
            #expect(error.code == .errorInvalidArgument)
            #expect(error.message.contains("end date is before the start date"), "\(error.message)")
        }
        #expect(try await store.runSampleQuery(HKQuantityType(.heartRate)).isEmpty)
    }
}
