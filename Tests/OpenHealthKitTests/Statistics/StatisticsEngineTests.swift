import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

struct StatisticsEngineTests {
    typealias Support = StatisticsTestSupport

    /// Seconds from 2024-01-01 00:00 UTC.
    private static let day0 = 725_760_000.0
    private static let hour = 3_600.0
    private static let day = 86_400.0

    private func utcGrid() throws -> StatisticsIntervalGrid {
        try Support.dailyGrid(Support.calendar("UTC"))
    }

    private func sample(_ start: Double, _ end: Double, _ value: Double, source: Int32 = 0) -> StatisticsSample {
        StatisticsSample(start: Self.day0 + start, end: Self.day0 + end, value: value, source: source)
    }

    private func range(_ start: Double, _ end: Double) -> DateInterval {
        DateInterval(start: Date(timeIntervalSinceReferenceDate: Self.day0 + start), duration: end - start)
    }

    @Test func utcDayZeroIsJanuaryFirst() throws {
        #expect(try Support.seconds(Support.calendar("UTC"), 2024, 1, 1) == Self.day0)
    }

    @Test func cumulativeSumIsProRatedAcrossBucketEdges() throws {
        let h = Self.hour
        let rows = [
            // [Jan 1 23:00, Jan 2 01:00), 120 steps: half in each day -> 60 + 60.
            sample(23 * h, 25 * h, 120),
            // [Jan 2 10:00, 10:30), 30 steps, wholly on Jan 2.
            sample(34 * h, 34.5 * h, 30),
            // [Jan 2 23:45, Jan 3 00:45), 40 steps: a quarter on Jan 2 (10), three quarters on Jan 3 (30).
            sample(47.75 * h, 48.75 * h, 40),
        ]
        let result = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: range(0, 3 * Self.day)
        )
        #expect(result.buckets.map(\.index) == [0, 1, 2])
        // Jan 1: 60. Jan 2: 60 + 30 + 10 = 100. Jan 3: 30. Total 190 = 120 + 30 + 40.
        #expect(result.buckets.map(\.values.sum) == [60, 100, 30])
        #expect(result.buckets.map(\.values.average) == [nil, nil, nil])
        #expect(result.intervalCount == 3)
    }

    @Test func longCumulativeSampleSpansSeveralBuckets() throws {
        // [Jan 1 18:00, Jan 3 18:00) = 48 h, 64 units: 6/48 -> 8, 24/48 -> 32, 18/48 -> 24.
        let rows = [sample(18 * Self.hour, 66 * Self.hour, 64)]
        let result = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: [.cumulativeSum, .duration], grid: utcGrid(), range: nil
        )
        #expect(result.buckets.map(\.values.sum) == [8, 32, 24])
        #expect(result.buckets.map(\.values.duration) == [6 * Self.hour, Self.day, 18 * Self.hour])
    }

    @Test func singleRangeClipsToThePredicateInterval() throws {
        let h = Self.hour
        let rows = [sample(23 * h, 25 * h, 120), sample(34 * h, 34.5 * h, 30)]
        // Clip [Jan 1 12:00, Jan 2 00:30): 1.5 h of the 2 h sample -> 120 × 0.75 = 90; the
        // Jan 2 10:00 sample is outside.
        let clip = range(12 * h, 24.5 * h)
        let result = try #require(
            try StatisticsEngine.statistics(of: rows, style: .cumulative, options: [.cumulativeSum, .duration], clippingTo: clip)
        )
        #expect(result.values.sum == 90)
        #expect(result.values.duration == 1.5 * h)
        #expect(result.interval == clip)
        // Unclipped: both samples whole, 150; the interval is the samples' span.
        let whole = try #require(
            try StatisticsEngine.statistics(of: rows, style: .cumulative, options: .cumulativeSum, clippingTo: nil)
        )
        #expect(whole.values.sum == 150)
        #expect(whole.interval == range(23 * h, 34.5 * h))
        #expect(whole.index == 0)
        // A clip that no sample overlaps gives no result.
        #expect(try StatisticsEngine.statistics(of: rows, style: .cumulative, options: .cumulativeSum, clippingTo: range(40 * h, 41 * h)) == nil)
    }

    @Test func temporallyWeightedAndArithmeticAveragesDiffer() throws {
        // 10 minutes at 60 bpm then 1 minute at 120 bpm.
        let rows = [sample(0, 600, 60), sample(600, 660, 120)]
        let weighted = try #require(
            try StatisticsEngine.statistics(
                of: rows, style: .discreteTemporallyWeighted, options: [.discreteAverage, .discreteMin, .discreteMax], clippingTo: nil
            )
        )
        // (60 × 600 + 120 × 60) / 660 = 43,200 / 660 = 65.4545…
        #expect(weighted.values.average == 43_200.0 / 660.0)
        #expect(abs((weighted.values.average ?? 0) - 65.454_545_454_5) < 1e-9)
        #expect(weighted.values.minimum == 60)
        #expect(weighted.values.maximum == 120)
        let arithmetic = try #require(
            try StatisticsEngine.statistics(of: rows, style: .discreteArithmetic, options: .discreteAverage, clippingTo: nil)
        )
        // (60 + 120) / 2 = 90.
        #expect(arithmetic.values.average == 90)
    }

    @Test func temporallyWeightedAverageUsesOverlapWithTheBucket() throws {
        // [Jan 1 23:00, Jan 2 01:00) at 100 and [Jan 2 00:30, 01:30) at 40.
        // Jan 1: only the first, 100. Jan 2: (100 × 3600 + 40 × 3600) / 7200 = 70.
        let rows = [sample(23 * Self.hour, 25 * Self.hour, 100), sample(24.5 * Self.hour, 25.5 * Self.hour, 40)]
        let result = try StatisticsEngine.collection(
            of: rows, style: .discreteTemporallyWeighted, options: .discreteAverage, grid: utcGrid(), range: nil
        )
        #expect(result.buckets.map(\.values.average) == [100, 70])
        // Arithmetic: the first sample counts once in each bucket: Jan 1 100, Jan 2 (100 + 40) / 2 = 70.
        let arithmetic = try StatisticsEngine.collection(
            of: [sample(23 * Self.hour, 25 * Self.hour, 100), sample(24.5 * Self.hour, 24.6 * Self.hour, 40)],
            style: .discreteArithmetic, options: .discreteAverage, grid: utcGrid(), range: nil
        )
        #expect(arithmetic.buckets.map(\.values.average) == [100, 70])
    }

    @Test func zeroLengthSamplesInWeightedAverages() throws {
        let rows = [
            // Jan 1: a 10-minute sample at 60 and an instant reading of 200 inside it.
            sample(0, 600, 60), sample(300, 300, 200),
            // Jan 2: two instant readings, 60 and 90.
            sample(Self.day + 100, Self.day + 100, 60), sample(Self.day + 200, Self.day + 200, 90),
        ]
        let result = try StatisticsEngine.collection(
            of: rows, style: .discreteTemporallyWeighted, options: [.discreteAverage, .discreteMax, .duration], grid: utcGrid(), range: nil
        )
        // Jan 1: the instant reading is ignored for the average (60) but counts for the max (200).
        // Jan 2: all instants, so the arithmetic mean (60 + 90) / 2 = 75; duration 0.
        #expect(result.buckets.map(\.values.average) == [60, 75])
        #expect(result.buckets.map(\.values.maximum) == [200, 90])
        #expect(result.buckets.map(\.values.duration) == [600, 0])
    }

    @Test func equivalentContinuousLevel() throws {
        // Two 1-minute samples at 80 and 90 dB: 10·log10((10^8 + 10^9) / 2) = 10·log10(5.5e8) = 87.4036 dB.
        let equal = try #require(
            try StatisticsEngine.statistics(
                of: [sample(0, 60, 80), sample(60, 120, 90)],
                style: .discreteEquivalentContinuousLevel, options: [.discreteAverage, .discreteMin, .discreteMax], clippingTo: nil
            )
        )
        let average = try #require(equal.values.average)
        #expect(abs(average - 87.403_626_894_942_4) < 1e-9)
        #expect(abs(average - 10 * log10(5.5e8)) < 1e-12)
        #expect(equal.values.minimum == 80 && equal.values.maximum == 90)
        // 3 minutes at 80 dB and 1 minute at 90 dB: 10·log10((3 × 10^8 + 10^9) / 4) = 10·log10(3.25e8) = 85.1188 dB.
        let weighted = try #require(
            try StatisticsEngine.statistics(
                of: [sample(0, 180, 80), sample(180, 240, 90)],
                style: .discreteEquivalentContinuousLevel, options: .discreteAverage, clippingTo: nil
            )
        )
        #expect(abs((weighted.values.average ?? 0) - 85.118_833_609_788_7) < 1e-9)
        // Instant readings only: the energy mean of 80 and 90 dB, 87.4036 dB again.
        let instants = try #require(
            try StatisticsEngine.statistics(
                of: [sample(0, 0, 80), sample(60, 60, 90)],
                style: .discreteEquivalentContinuousLevel, options: .discreteAverage, clippingTo: nil
            )
        )
        #expect(abs((instants.values.average ?? 0) - 87.403_626_894_942_4) < 1e-9)
    }

    @Test func mostRecentBreaksTiesByStartThenValue() throws {
        let rows = [
            sample(0, 100, 5),
            sample(10, 90, 100),
            sample(50, 100, 7),
            sample(50, 100, 9),
        ]
        // Latest end is 100 (three samples); latest start among them is 50 (two); larger value 9.
        for permutation in [rows, rows.reversed(), [rows[3], rows[0], rows[2], rows[1]]] {
            let result = try #require(
                try StatisticsEngine.statistics(of: Array(permutation), style: .discreteArithmetic, options: .mostRecent, clippingTo: nil)
            )
            #expect(result.values.mostRecent == 9)
            #expect(result.values.mostRecentInterval == range(50, 100))
            #expect(result.values.average == nil)
        }
    }

    @Test func mostRecentIntervalIsTheWholeSample() throws {
        // [Jan 1 23:00, Jan 2 01:00) at 5 is the most recent sample of both days, reported unclipped.
        let rows = [sample(22 * Self.hour, 22.5 * Self.hour, 3), sample(23 * Self.hour, 25 * Self.hour, 5)]
        let result = try StatisticsEngine.collection(of: rows, style: .cumulative, options: .mostRecent, grid: utcGrid(), range: nil)
        #expect(result.buckets.map(\.values.mostRecent) == [5, 5])
        #expect(result.buckets.map(\.values.mostRecentInterval) == [range(23 * Self.hour, 25 * Self.hour), range(23 * Self.hour, 25 * Self.hour)])
        #expect(result.buckets.map(\.values.sum) == [nil, nil])
    }

    @Test func durationIsTheUnionOfSampleSpans() throws {
        let rows = [
            sample(0, 100, 1), sample(50, 150, 1), sample(60, 70, 1),  // union [0, 150) = 150
            sample(200, 250, 1),  // +50
            sample(300, 300, 1),  // zero length: +0
        ]
        let whole = try #require(try StatisticsEngine.statistics(of: rows, style: .discreteArithmetic, options: .duration, clippingTo: nil))
        #expect(whole.values.duration == 200)
        // Clipped to [0, 120): [0, 100) ∪ [50, 120) = 120.
        let clipped = try #require(
            try StatisticsEngine.statistics(of: rows, style: .discreteArithmetic, options: .duration, clippingTo: range(0, 120))
        )
        #expect(clipped.values.duration == 120)
        // Across a day edge: [Jan 1 23:00, Jan 2 02:00) and [Jan 2 01:00, 03:00): Jan 1 1 h, Jan 2 3 h.
        let h = Self.hour
        let edge = try StatisticsEngine.collection(
            of: [sample(23 * h, 26 * h, 1), sample(25 * h, 27 * h, 1)], style: .discreteArithmetic, options: .duration,
            grid: utcGrid(), range: nil
        )
        #expect(edge.buckets.map(\.values.duration) == [h, 3 * h])
    }

    @Test func separateBySource() throws {
        let h = Self.hour
        let rows = [
            sample(1 * h, 2 * h, 100, source: 1),
            sample(1.5 * h, 2.5 * h, 30, source: 2),
            sample(23 * h, 25 * h, 50, source: 2),  // 25 on Jan 1, 25 on Jan 2
            sample(30 * h, 31 * h, 10, source: 1),
        ]
        let result = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: [.cumulativeSum, .separateBySource], grid: utcGrid(), range: nil
        )
        // Jan 1: source 1 100, source 2 30 + 25 = 55, merged 155. Jan 2: source 2 25, source 1 10, merged 35.
        #expect(result.buckets.map(\.values.sum) == [155, 35])
        #expect(result.buckets[0].valuesBySource == [1: StatisticsValues(sum: 100), 2: StatisticsValues(sum: 55)])
        #expect(result.buckets[1].valuesBySource == [1: StatisticsValues(sum: 10), 2: StatisticsValues(sum: 25)])
        #expect(result.sources == [1, 2])
        // Without the option there are no per-source values.
        let merged = try StatisticsEngine.collection(of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: nil)
        #expect(merged.buckets.allSatisfy { $0.valuesBySource == nil })
        #expect(merged.sources.isEmpty)
        // Discrete per-source statistics.
        let discrete = try #require(
            try StatisticsEngine.statistics(
                of: rows, style: .discreteArithmetic, options: [.discreteAverage, .discreteMax, .separateBySource], clippingTo: nil
            )
        )
        // Source 1: 100 and 10 -> mean 55, max 100. Source 2: 30 and 50 -> mean 40, max 50. All: 190 / 4 = 47.5.
        #expect(discrete.values == StatisticsValues(average: 47.5, maximum: 100))
        #expect(discrete.valuesBySource == [1: StatisticsValues(average: 55, maximum: 100), 2: StatisticsValues(average: 40, maximum: 50)])
    }

    @Test func manySourcesAreKeptApart() throws {
        // Twelve sources, interleaved, each with samples worth source × 1 and source × 2:
        // per-source sum 3 × source, merged sum 3 × (0 + 1 + … + 11) = 198.
        var rows: [StatisticsSample] = []
        for round in 1...2 {
            for source in Int32(0)..<12 {
                let start = Double(round * 1_000 + Int(source) * 10)
                rows.append(sample(start, start + 5, Double(source) * Double(round), source: source))
            }
        }
        let result = try #require(
            try StatisticsEngine.statistics(of: rows, style: .cumulative, options: [.cumulativeSum, .separateBySource], clippingTo: nil)
        )
        #expect(result.values.sum == 198)
        let bySource = try #require(result.valuesBySource)
        #expect(bySource.count == 12)
        for source in Int32(0)..<12 {
            #expect(bySource[source]?.sum == 3 * Double(source))
        }
    }

    @Test func zeroLengthSamplesBelongToOneBucket() throws {
        let rows = [
            sample(0, 0, 1),  // at the range start: included
            sample(Self.day, Self.day, 2),  // on the Jan 1 / Jan 2 boundary: Jan 2
            sample(2 * Self.day, 2 * Self.day, 4),  // at the range end: excluded
        ]
        let result = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: [.cumulativeSum, .duration], grid: utcGrid(), range: range(0, 2 * Self.day)
        )
        #expect(result.buckets.map(\.index) == [0, 1])
        #expect(result.buckets.map(\.values.sum) == [1, 2])
        #expect(result.buckets.map(\.values.duration) == [0, 0])
        // Without a range the last sample gets its own bucket (Jan 3).
        let all = try StatisticsEngine.collection(of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: nil)
        #expect(all.buckets.map(\.index) == [0, 1, 2])
        #expect(all.buckets.map(\.values.sum) == [1, 2, 4])
    }

    @Test func samplesOutsideTheRangeAreIgnoredAndEdgesClipped() throws {
        let h = Self.hour
        let rows = [
            sample(-2 * h, -1 * h, 1000),  // before the range
            sample(-1 * h, 1 * h, 10),  // half inside -> 5
            sample(47 * h, 49 * h, 20),  // half inside the range end -> 10
            sample(50 * h, 51 * h, 1000),  // after the range
        ]
        let result = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: range(0, 48 * h)
        )
        #expect(result.buckets.map(\.values.sum) == [5, 10])
        // The buckets still report whole grid intervals.
        #expect(result.buckets.map(\.interval) == [range(0, Self.day), range(Self.day, 2 * Self.day)])
    }

    @Test func openEndedRangeComputesOnlyTheSampleSpan() throws {
        let rows = [sample(3600, 3660, 1), sample(2 * Self.day, 2 * Self.day, 2)]
        let open = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(),
            range: DateInterval(start: .distantPast, end: .distantFuture)
        )
        // Jan 1 through Jan 3 (the zero-length sample at Jan 3 00:00): three intervals, two populated.
        #expect(open.intervalCount == 3)
        #expect(open.buckets.map(\.index) == [0, 2])
        #expect(open == (try StatisticsEngine.collection(of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: nil)))
        // A range after every sample, or one ending before them, computes nothing.
        let after = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: range(3 * Self.day, 4 * Self.day)
        )
        #expect(after.buckets.isEmpty && after.intervalCount == 0)
        let before = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: range(0, 3600)
        )
        #expect(before.buckets.isEmpty && before.intervalCount == 0)
    }

    @Test func emptyInput() throws {
        #expect(try StatisticsEngine.statistics(of: [], style: .cumulative, options: .cumulativeSum, clippingTo: nil) == nil)
        #expect(try StatisticsEngine.statistics(of: [], style: .cumulative, options: .cumulativeSum, clippingTo: range(0, 10)) == nil)
        let none = try StatisticsEngine.collection(of: [], style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: nil)
        #expect(none.buckets.isEmpty && none.boundaries.isEmpty)
        let ranged = try StatisticsEngine.collection(
            of: [], style: .discreteArithmetic, options: .discreteAverage, grid: utcGrid(), range: range(0, 7 * Self.day)
        )
        #expect(ranged.buckets.isEmpty)
        #expect(ranged.intervalCount == 0)
        #expect(ranged.bucket(containing: Date(timeIntervalSinceReferenceDate: Self.day0 + 3)) == nil)
    }

    @Test func onlyRequestedOptionsAreFilled() throws {
        let rows = [sample(0, 60, 70), sample(60, 120, 80)]
        let maxOnly = try #require(
            try StatisticsEngine.statistics(of: rows, style: .discreteArithmetic, options: .discreteMax, clippingTo: nil)
        )
        #expect(maxOnly.values == StatisticsValues(maximum: 80))
        // An empty option set is valid: the bucket exists, with nothing filled.
        let nothing = try StatisticsEngine.collection(of: rows, style: .discreteArithmetic, options: [], grid: utcGrid(), range: nil)
        #expect(nothing.buckets.count == 1)
        #expect(nothing.buckets.first?.values == StatisticsValues())
    }

    @Test func resultsDoNotDependOnTheOrderOfEqualStarts() throws {
        // 1e16 + 1 rounds back to 1e16, so summing these in different orders gives 0 or 1
        // unless the engine fixes the order.
        let rows = [sample(0, 10, 1e16), sample(0, 20, 1), sample(0, 30, -1e16), sample(0, 40, 0.5)]
        var random = Support.SplitMix64(seed: 3)
        let reference = try StatisticsEngine.collection(
            of: rows, style: .cumulative, options: [.cumulativeSum, .mostRecent], grid: utcGrid(), range: nil
        )
        for _ in 0..<24 {
            let shuffled = rows.shuffled(using: &random)
            let result = try StatisticsEngine.collection(
                of: shuffled, style: .cumulative, options: [.cumulativeSum, .mostRecent], grid: utcGrid(), range: nil
            )
            #expect(result == reference)
        }
        #expect(reference.buckets.first?.values.mostRecent == 0.5)
    }

    @Test func unsortedInputIsSorted() throws {
        let sorted = [sample(0, 60, 1), sample(Self.day, Self.day + 60, 2), sample(2 * Self.day, 2 * Self.day + 60, 3)]
        let reversed = try StatisticsEngine.collection(
            of: sorted.reversed(), style: .cumulative, options: .cumulativeSum, grid: utcGrid(), range: nil
        )
        #expect(reversed.buckets.map(\.values.sum) == [1, 2, 3])
    }

    @Test func collectionLookups() throws {
        let rows = [sample(3600, 3660, 1), sample(5 * Self.day, 5 * Self.day + 60, 2), sample(-Self.day + 10, -Self.day + 20, 4)]
        let grid = try utcGrid()
        let result = try StatisticsEngine.collection(of: rows, style: .cumulative, options: .cumulativeSum, grid: grid, range: nil)
        // Dec 31 (index -1), Jan 1 (0) and Jan 6 (5); the empty days between are skipped.
        #expect(result.buckets.map(\.index) == [-1, 0, 5])
        #expect(result.firstIndex == -1)
        #expect(result.intervalCount == 7)
        #expect(result.bucket(at: 5)?.values.sum == 2)
        #expect(result.bucket(at: 3) == nil)
        #expect(result.bucket(at: 99) == nil)
        #expect(result.bucket(containing: Date(timeIntervalSinceReferenceDate: Self.day0 + 5 * Self.day + 7_000))?.values.sum == 2)
        #expect(result.bucket(containing: Date(timeIntervalSinceReferenceDate: Self.day0 - 1))?.values.sum == 4)
        #expect(result.bucket(containing: Date(timeIntervalSinceReferenceDate: Self.day0 + 2 * Self.day)) == nil)
        #expect(result.bucket(containing: Date(timeIntervalSinceReferenceDate: Self.day0 + 50 * Self.day)) == nil)
        #expect(result.bucket(at: -1)?.interval == (try grid.interval(at: -1)))
    }

    @Test func daylightSavingDayProRatesOver23Hours() throws {
        let calendar = try Support.calendar("America/New_York")
        let grid = try Support.dailyGrid(calendar)
        // [Mar 9 12:00 EST, Mar 10 12:00 EDT) is 23 h long: 12 h on Mar 9, 11 h on Mar 10; 230 units -> 120 + 110.
        let start = try Support.seconds(calendar, 2024, 3, 9, 12)
        let end = try Support.seconds(calendar, 2024, 3, 10, 12)
        #expect(end - start == 82_800)
        let rows = [StatisticsSample(start: start, end: end, value: 230, source: 0)]
        let result = try StatisticsEngine.collection(of: rows, style: .cumulative, options: [.cumulativeSum, .duration], grid: grid, range: nil)
        let sums = result.buckets.compactMap(\.values.sum)
        #expect(sums.count == 2)
        #expect(abs(sums[0] - 120) < 1e-9 && abs(sums[1] - 110) < 1e-9)
        #expect(result.buckets.map(\.values.duration) == [43_200, 39_600])
        #expect(result.buckets.map(\.interval.duration) == [86_400, 82_800])
    }
}
