import Foundation
import Testing

@testable import OpenHealthKit

struct HKStatisticsOptionsTests {
    private static let discreteStyles: [HKQuantityAggregationStyle] = [
        .discreteArithmetic, .discreteTemporallyWeighted, .discreteEquivalentContinuousLevel,
    ]

    private func validationError(_ options: HKStatisticsOptions, _ style: HKQuantityAggregationStyle) -> StatisticsError? {
        StatisticsTestSupport.error { () throws(StatisticsError) in
            try HKStatisticsOptions.validate(options, for: style)
        }
    }

    @Test func bitsMatchHealthKit() {
        #expect(HKStatisticsOptions.separateBySource.rawValue == 1)
        #expect(HKStatisticsOptions.discreteAverage.rawValue == 2)
        #expect(HKStatisticsOptions.discreteMin.rawValue == 4)
        #expect(HKStatisticsOptions.discreteMax.rawValue == 8)
        #expect(HKStatisticsOptions.cumulativeSum.rawValue == 16)
        #expect(HKStatisticsOptions.mostRecent.rawValue == 32)
        #expect(HKStatisticsOptions.duration.rawValue == 64)
        #expect(HKStatisticsOptions([]).rawValue == 0)
        #expect(HKStatisticsOptions(rawValue: 0b0000_1110) == [.discreteAverage, .discreteMin, .discreteMax])
    }

    @Test func descriptionNamesOptions() {
        #expect(HKStatisticsOptions([.discreteAverage, .discreteMax]).description == "[discreteAverage, discreteMax]")
        #expect(HKStatisticsOptions(rawValue: 0x81).description == "[separateBySource, 0x80]")
    }

    @Test(arguments: [
        HKStatisticsOptions([]),
        [.cumulativeSum],
        [.cumulativeSum, .separateBySource],
        [.cumulativeSum, .duration],
        [.cumulativeSum, .mostRecent],
        [.mostRecent],
        [.duration],
        [.separateBySource],
        [.cumulativeSum, .mostRecent, .duration, .separateBySource],
    ])
    func cumulativeAllows(_ options: HKStatisticsOptions) {
        #expect(validationError(options, .cumulative) == nil)
    }

    @Test(arguments: [
        HKStatisticsOptions.discreteAverage,
        .discreteMin,
        .discreteMax,
        [.discreteAverage, .discreteMin, .discreteMax],
    ])
    func cumulativeRejectsDiscreteOptions(_ options: HKStatisticsOptions) throws {
        let error = try #require(validationError(options.union([.separateBySource, .mostRecent]), .cumulative))
        #expect(error.code == .optionNotAllowedForStyle)
        // Only the offending options are named, not the allowed ones.
        #expect(error.options == options)
        #expect(error.aggregationStyle == .cumulative)
    }

    @Test(arguments: discreteStyles)
    func discreteAllows(_ style: HKQuantityAggregationStyle) {
        let allowed: [HKStatisticsOptions] = [
            [],
            [.discreteAverage],
            [.discreteMin],
            [.discreteMax],
            [.mostRecent],
            [.duration],
            [.separateBySource],
            [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration, .separateBySource],
        ]
        for options in allowed {
            #expect(validationError(options, style) == nil, "\(options) for \(style)")
        }
    }

    @Test(arguments: discreteStyles)
    func discreteRejectsCumulativeSum(_ style: HKQuantityAggregationStyle) throws {
        let error = try #require(validationError([.cumulativeSum, .separateBySource, .duration], style))
        #expect(error.code == .optionNotAllowedForStyle)
        #expect(error.options == .cumulativeSum)
        #expect(error.aggregationStyle == style)
    }

    @Test(arguments: [HKQuantityAggregationStyle.cumulative] + discreteStyles)
    func mixingDiscreteAndCumulativeIsRejectedForEveryStyle(_ style: HKQuantityAggregationStyle) throws {
        let error = try #require(validationError([.discreteAverage, .cumulativeSum, .mostRecent], style))
        #expect(error.code == .mixedDiscreteAndCumulative)
        #expect(error.options == [.discreteAverage, .cumulativeSum])
        #expect(error.aggregationStyle == style)
    }

    @Test func unknownBitsAreRejected() throws {
        let error = try #require(validationError(HKStatisticsOptions(rawValue: 0b1000_0010), .discreteArithmetic))
        #expect(error.code == .unknownOption)
        #expect(error.options?.rawValue == 0b1000_0000)
    }

    @Test func errorDescriptionNamesOptionAndStyle() throws {
        let error = try #require(validationError(.discreteMin, .cumulative))
        #expect(error.description == "StatisticsError.optionNotAllowedForStyle options: [discreteMin] aggregationStyle: cumulative")
    }

    @Test func enginesValidateBeforeComputing() throws {
        let calendar = try StatisticsTestSupport.calendar("UTC")
        let grid = try StatisticsTestSupport.dailyGrid(calendar)
        let rows = [StatisticsSample(start: 0, end: 60, value: 1)]
        let single = StatisticsTestSupport.error { () throws(StatisticsError) in
            try StatisticsEngine.statistics(of: rows, style: .cumulative, options: .discreteAverage, clippingTo: nil)
        }
        #expect(single?.code == .optionNotAllowedForStyle)
        let collection = StatisticsTestSupport.error { () throws(StatisticsError) in
            try StatisticsEngine.collection(of: rows, style: .discreteArithmetic, options: .cumulativeSum, grid: grid, range: nil)
        }
        #expect(collection?.code == .optionNotAllowedForStyle)
    }
}
