import Foundation
import Testing
@testable import OpenHealthKit

/// Sums beyond the largest Double saturate, never NaN (issue 36).
@Suite("Statistics overflow")
struct StatisticsOverflowTests {
    @Test("The sum of several 1.7e308 step counts is the largest finite Double, never NaN or infinite")
    func overflowingSumSaturates() async throws {
        var sum = ExactSum()
        for _ in 0..<3 { sum.add(1.7e308) }
        #expect(sum.value == .greatestFiniteMagnitude)
        var negative = ExactSum()
        for _ in 0..<3 { negative.add(-1.7e308) }
        negative.add(1)
        #expect(negative.value == -.greatestFiniteMagnitude)

        let store = TestStores.memory()
        let steps = HKQuantityType(.stepCount)
        try await store.save((0..<3).map { Samples.steps(1.7e308, at: Double($0) * 600, minutes: 5) })
        let query = HKStatisticsQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum)
        let total = try #require(try await query.result(for: store)?.sumQuantity()?.doubleValue(for: .count()))
        #expect(total == .greatestFiniteMagnitude)
        var collection = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum,
                                                               anchorDate: Samples.reference, intervalComponents: DateComponents(hour: 1))
        collection.calendar = Calendar(identifier: .gregorian)
        let buckets = try await collection.result(for: store).statistics()
        let sums = buckets.compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }
        #expect(!sums.isEmpty && sums.allSatisfy { $0.isFinite && !$0.isNaN })
    }
}
