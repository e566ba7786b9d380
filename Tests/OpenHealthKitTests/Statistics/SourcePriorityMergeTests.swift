import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// Source priority: cumulative statistics count, for each stretch of time, only the
/// highest-priority source that covers it.
struct SourcePriorityMergeTests {
    typealias Support = StatisticsTestSupport
    private let phone: Int32 = 0
    private let watch: Int32 = 1

    private func sum(_ rows: [StatisticsSample], order: [Int32], options: HKStatisticsOptions = .cumulativeSum) throws -> StatisticsBucket? {
        try StatisticsEngine.statistics(of: rows, style: .cumulative, options: options, clippingTo: nil, merge: .priority(order))
    }

    @Test func theHigherSourceCountsWhereBothRecordTheLowerFillsTheGaps() throws {
        // The phone counts 1,000 steps over the first hour, the watch 900 over 00:30–01:30.
        let rows = [StatisticsSample(start: 0, end: 3600, value: 1000, source: phone),
                    StatisticsSample(start: 1800, end: 5400, value: 900, source: watch)]
        // Watch first: all its 900, and the phone's first half hour (500).
        #expect(try sum(rows, order: [watch, phone])?.values.sum == 1400)
        // Phone first: its 1,000, and the watch's last half hour (450).
        #expect(try sum(rows, order: [phone, watch])?.values.sum == 1450)
        // Without priority both are summed.
        let summed = try StatisticsEngine.statistics(of: rows, style: .cumulative, options: .cumulativeSum, clippingTo: nil)
        #expect(summed?.values.sum == 1900)
    }

    @Test func separateBySourceKeepsEachSourcesOwnFigures() throws {
        let rows = [StatisticsSample(start: 0, end: 3600, value: 1000, source: phone),
                    StatisticsSample(start: 0, end: 3600, value: 1000, source: watch)]
        let bucket = try #require(try sum(rows, order: [watch, phone], options: [.cumulativeSum, .separateBySource]))
        #expect(bucket.values.sum == 1000)
        #expect(bucket.valuesBySource?[phone]?.sum == 1000 && bucket.valuesBySource?[watch]?.sum == 1000)
    }

    @Test func oneSourceOverlappingItselfCountsEverySample() throws {
        let rows = [StatisticsSample(start: 0, end: 3600, value: 100, source: phone),
                    StatisticsSample(start: 1800, end: 3600, value: 50, source: phone),
                    StatisticsSample(start: 0, end: 1800, value: 70, source: watch)]
        // The phone ranks first: both of its samples count whole, the watch's is covered.
        #expect(try sum(rows, order: [phone, watch])?.values.sum == 150)
    }

    @Test func instantsCountUnlessABetterSourceCoversThem() throws {
        let rows = [StatisticsSample(start: 0, end: 3600, value: 600, source: watch),
                    StatisticsSample(start: 1000, end: 1000, value: 10, source: phone),
                    StatisticsSample(start: 3600, end: 3600, value: 20, source: phone),
                    StatisticsSample(start: 7200, end: 7200, value: 40, source: phone)]
        // 1000 is inside the watch's sample; 3600 is its end (not covered); 7200 is outside.
        #expect(try sum(rows, order: [watch, phone])?.values.sum == 660)
        #expect(try sum(rows, order: [phone, watch])?.values.sum == 670)
    }

    @Test func unlistedSourcesRankAfterTheListOnesByNumber() throws {
        let rows = [StatisticsSample(start: 0, end: 100, value: 10, source: 5),
                    StatisticsSample(start: 0, end: 100, value: 20, source: 3),
                    StatisticsSample(start: 0, end: 100, value: 30, source: 7)]
        #expect(try sum(rows, order: [7])?.values.sum == 30)
        #expect(try sum(rows, order: [])?.values.sum == 20)
    }

    @Test func discreteTypesAreNotMerged() throws {
        let rows = [StatisticsSample(start: 0, end: 0, value: 60, source: phone),
                    StatisticsSample(start: 0, end: 0, value: 80, source: watch)]
        let bucket = try StatisticsEngine.statistics(of: rows, style: .discreteArithmetic, options: .discreteAverage, clippingTo: nil,
                                                     merge: .priority([watch, phone]))
        #expect(bucket?.values.average == 70)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func oneSourceGivesExactlyTheUnmergedFigures(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var rows: [StatisticsSample] = []
        for _ in 0..<500 {
            let start = Double.random(in: 0..<864_000, using: &random)
            rows.append(StatisticsSample(start: start, end: start + Double.random(in: 0..<7_200, using: &random),
                                         value: Double.random(in: 0..<1_000, using: &random), source: 4))
        }
        rows.sort { $0.start < $1.start }
        let calendar = try Support.calendar("UTC")
        let grid = try Support.dailyGrid(calendar)
        let merged = try StatisticsEngine.collection(of: rows, style: .cumulative, options: .cumulativeSum, grid: grid, range: nil,
                                                     merge: .priority([2, 4]))
        let plain = try StatisticsEngine.collection(of: rows, style: .cumulative, options: .cumulativeSum, grid: grid, range: nil)
        #expect(merged.buckets.map(\.values.sum) == plain.buckets.map(\.values.sum))
    }

    /// A straightforward reference: time in whole seconds, each second given to the best source
    /// covering it; instants kept unless a better source covers them.
    private func reference(_ rows: [StatisticsSample], order: [Int32], bucket: Range<Double>) -> Double {
        func rank(_ source: Int32) -> Int { order.firstIndex(of: source) ?? order.count + Int(source) }
        var total = 0.0
        var second = bucket.lowerBound
        while second < bucket.upperBound {
            let covering = rows.filter { $0.end > $0.start && $0.start <= second && $0.end >= second + 1 }
            if let best = covering.map({ rank($0.source) }).min() {
                for row in covering where rank(row.source) == best {
                    total += row.value / (row.end - row.start)
                }
            }
            second += 1
        }
        for row in rows where row.end == row.start && bucket.contains(row.start) {
            let better = rows.contains { $0.end > $0.start && $0.start <= row.start && row.start < $0.end && rank($0.source) < rank(row.source) }
            if !better { total += row.value }
        }
        return total
    }

    @Test(arguments: [UInt64(21), 22, 23, 24])
    func bucketsAgreeWithASecondBySecondReference(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var rows: [StatisticsSample] = []
        for _ in 0..<60 {
            let start = Double(Int.random(in: 0..<1_000, using: &random))
            let length = Int.random(in: 0..<5, using: &random) == 0 ? 0 : Double(Int.random(in: 1..<200, using: &random))
            rows.append(StatisticsSample(start: start, end: start + length, value: Double(Int.random(in: 0..<500, using: &random)),
                                         source: Int32.random(in: 0..<4, using: &random)))
        }
        rows.sort { $0.start < $1.start }
        var order: [Int32] = [0, 1, 2, 3].shuffled(using: &random)
        order.removeLast(Int.random(in: 0..<3, using: &random))
        let grid = try StatisticsIntervalGrid(anchorDate: Date(timeIntervalSinceReferenceDate: 0),
                                              intervalComponents: DateComponents(minute: 2), calendar: try Support.calendar("UTC"))
        let result = try StatisticsEngine.collection(of: rows, style: .cumulative, options: [.cumulativeSum, .separateBySource],
                                                     grid: grid, range: nil, merge: .priority(order))
        var checked = 0
        for bucket in result.buckets {
            let start = bucket.interval.start.timeIntervalSinceReferenceDate
            let expected = reference(rows, order: order, bucket: start..<(start + 120))
            #expect(abs((bucket.values.sum ?? 0) - expected) <= 1e-6 * max(1, expected), "bucket at \(start)")
            checked += 1
        }
        #expect(checked > 5)
        let total = result.buckets.reduce(0) { $0 + ($1.values.sum ?? 0) }
        #expect(abs(total - reference(rows, order: order, bucket: 0..<1_300)) <= 1e-6 * max(1, total))
    }
}
