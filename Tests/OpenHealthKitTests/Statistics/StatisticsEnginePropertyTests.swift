import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

struct StatisticsEnginePropertyTests {
    typealias Support = StatisticsTestSupport

    /// Random samples inside `[low, high)`: starts uniform, lengths 0 to 3 days (a tenth of them
    /// zero), values 0 to 100, sources 0 to 3.
    private func randomSamples(count: Int, low: Double, high: Double, using random: inout Support.SplitMix64) -> [StatisticsSample] {
        var rows: [StatisticsSample] = []
        for _ in 0..<count {
            let start = Double.random(in: low..<high, using: &random)
            let length = Int.random(in: 0..<10, using: &random) == 0 ? 0 : Double.random(in: 0...(3 * 86_400), using: &random)
            let end = min(start + length, high)
            let value = Double.random(in: 0...100, using: &random).rounded()
            rows.append(StatisticsSample(start: start, end: end, value: value, source: Int32.random(in: 0...3, using: &random)))
        }
        rows.sort { $0.start < $1.start }
        return rows
    }

    @Test(arguments: [(UInt64(1), 0), (2, 3), (3, 17), (4, 23)])
    func dailySumsAddUpToTheTotal(seed: UInt64, anchorHour: Int) throws {
        var random = Support.SplitMix64(seed: seed)
        let calendar = try Support.calendar("America/New_York")
        // March 2024 includes the 23-hour day.
        let low = try Support.seconds(calendar, 2024, 3, 1)
        let high = try Support.seconds(calendar, 2024, 4, 1)
        let rows = randomSamples(count: 2_000, low: low, high: high, using: &random)
        let total = rows.reduce(0) { $0 + $1.value }
        let grid = try StatisticsIntervalGrid(
            anchorDate: Support.date(calendar, 2024, 1, 1, anchorHour % 24, anchorHour == 3 ? 34 : 0),
            intervalComponents: DateComponents(day: 1),
            calendar: calendar
        )
        let range = DateInterval(start: Date(timeIntervalSinceReferenceDate: low), end: Date(timeIntervalSinceReferenceDate: high))
        let result = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: [.cumulativeSum, .separateBySource, .duration], grid: grid, range: range
        )
        let bucketTotal = result.buckets.reduce(0) { $0 + ($1.values.sum ?? 0) }
        #expect(abs(bucketTotal - total) <= 1e-9 * total)
        // Per-source sums add up to the merged sum in every bucket.
        for bucket in result.buckets {
            let perSource = bucket.valuesBySource?.values.reduce(0) { $0 + ($1.sum ?? 0) } ?? -1
            #expect(abs(perSource - (bucket.values.sum ?? 0)) <= 1e-9 * max(1, perSource))
            #expect((bucket.values.duration ?? 0) <= bucket.interval.duration)
        }
        // The single-range query over the same range agrees.
        let single = try #require(
            try StatisticsEngine.statistics(of: rows, style: .cumulative, options: .cumulativeSum, clippingTo: range)
        )
        #expect(abs((single.values.sum ?? 0) - total) <= 1e-9 * total)
    }

    @Test(arguments: [UInt64(11), 12])
    func bucketExtremesMatchTheSamples(seed: UInt64) throws {
        var random = Support.SplitMix64(seed: seed)
        let calendar = try Support.calendar("Europe/Berlin")
        let low = try Support.seconds(calendar, 2024, 10, 1)
        let high = try Support.seconds(calendar, 2024, 11, 1)
        let rows = randomSamples(count: 1_000, low: low, high: high, using: &random)
        let grid = try StatisticsIntervalGrid(
            anchorDate: Support.date(calendar, 2024, 1, 1),
            intervalComponents: DateComponents(hour: 6),
            calendar: calendar
        )
        let result = try StatisticsEngine.collection(
            of: rows, style: .discreteTemporallyWeighted, options: [.discreteMin, .discreteMax, .discreteAverage, .mostRecent],
            grid: grid, range: nil
        )
        #expect(result.buckets.compactMap(\.values.minimum).min() == rows.map(\.value).min())
        #expect(result.buckets.compactMap(\.values.maximum).max() == rows.map(\.value).max())
        for bucket in result.buckets {
            let average = try #require(bucket.values.average)
            #expect(average >= (bucket.values.minimum ?? .nan) - 1e-9 && average <= (bucket.values.maximum ?? .nan) + 1e-9)
        }
        // Brute force per bucket: the members by the overlap rule, and their most recent sample.
        for bucket in result.buckets {
            let lower = bucket.interval.start.timeIntervalSinceReferenceDate
            let upper = bucket.interval.end.timeIntervalSinceReferenceDate
            let members = rows.filter { $0.end > $0.start ? ($0.start < upper && $0.end > lower) : ($0.start >= lower && $0.start < upper) }
            #expect(members.map(\.value).min() == bucket.values.minimum)
            let latest = members.max { ($0.end, $0.start, $0.value) < ($1.end, $1.start, $1.value) }
            #expect(latest?.value == bucket.values.mostRecent)
        }
        // Every interval with a member is reported.
        let populated = Set(result.buckets.map(\.index))
        for row in rows {
            let index = try grid.index(containing: Date(timeIntervalSinceReferenceDate: row.start))
            #expect(populated.contains(index))
        }
    }
}
