import Foundation

/// The statistics of one interval (or of one source within it), in the canonical unit.
///
/// Only the fields whose option was requested are filled; the others stay `nil`.
struct StatisticsValues: Sendable, Hashable {
    /// `cumulativeSum`: the pro-rated sum.
    var sum: Double?
    /// `discreteAverage`: the average, computed as the aggregation style prescribes.
    var average: Double?
    /// `discreteMin`: the smallest value.
    var minimum: Double?
    /// `discreteMax`: the largest value.
    var maximum: Double?
    /// `mostRecent`: the value of the sample with the latest end.
    var mostRecent: Double?
    /// `mostRecent`: the whole (unclipped) interval of that sample.
    var mostRecentInterval: DateInterval?
    /// `duration`: seconds covered by at least one sample within the interval.
    var duration: Double?

    /// Creates values; every field defaults to `nil`.
    init(
        sum: Double? = nil,
        average: Double? = nil,
        minimum: Double? = nil,
        maximum: Double? = nil,
        mostRecent: Double? = nil,
        mostRecentInterval: DateInterval? = nil,
        duration: Double? = nil
    ) {
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
        self.mostRecent = mostRecent
        self.mostRecentInterval = mostRecentInterval
        self.duration = duration
    }
}

/// The statistics of one interval that holds at least one sample.
struct StatisticsBucket: Sendable, Hashable {
    /// The interval's index in its ``StatisticsIntervalGrid``; 0 for a single-range query.
    var index: Int
    /// The interval: the whole grid interval for a collection query (even when the query range
    /// clips it), the clipping interval or the samples' span for a single-range query.
    var interval: DateInterval
    /// The statistics over all sources, merged by the query's ``StatisticsMergeStrategy``.
    var values: StatisticsValues
    /// The statistics per source number; `nil` unless `separateBySource` was requested.
    var valuesBySource: [Int32: StatisticsValues]?
}
