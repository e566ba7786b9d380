import Foundation
import Testing
@testable import OpenHealthKit

/// Statistics over a sample spanning millennia cost what the data holds, not the span (issue 36).
@Suite("Long-span statistics")
struct LongSpanStatisticsTests {
    @Test("Yearly statistics over a sample spanning years 1 to 4000 look at the grains that hold rollups, not every hour of the span")
    func longSpanCostFollowsTheData() async throws {
        let store = TestStores.memory()
        let steps = HKQuantityType(.stepCount)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = try #require(TimeZone(identifier: "UTC"))
        let start = try #require(utc.date(from: DateComponents(year: 1, month: 1, day: 2)))
        let end = try #require(utc.date(from: DateComponents(year: 4000, month: 12, day: 31)))
        try await store.save([
            HKQuantitySample(type: steps, quantity: HKQuantity(unit: .count(), doubleValue: 4_000), start: start, end: end),
            Samples.steps(100, at: 0),
        ])
        let grid = try StatisticsIntervalGrid(anchorDate: utc.date(from: DateComponents(year: 2000, month: 1, day: 1)) ?? Samples.reference,
                                              intervalComponents: DateComponents(year: 1), calendar: utc)
        let (database, fetch) = try await store.sampleFetch(type: steps, predicate: nil)
        let input = try #require(try await database.rollupStatisticsInput(type: steps, predicate: fetch.predicate,
                                                                          range: (-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude),
                                                                          buckets: grid))
        // Before: a candidate grain per hour of the long sample within ±1e11 s (about 35 million).
        #expect(input.grainsExamined == 1)
        #expect(input.rows.count + input.rollups.count == 2)

        var descriptor = HKStatisticsCollectionQueryDescriptor(predicate: .quantitySample(type: steps), options: .cumulativeSum,
                                                               anchorDate: grid.anchorDate, intervalComponents: DateComponents(year: 1))
        descriptor.calendar = utc
        let yearly = try await descriptor.result(for: store).statistics()
        #expect(yearly.count == 4_000)
        let total = yearly.compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }.reduce(0, +)
        #expect(abs(total - 4_100) < 1e-6)
    }
}
