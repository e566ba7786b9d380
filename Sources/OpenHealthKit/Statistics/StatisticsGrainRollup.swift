import Foundation

/// The statistics of the samples lying wholly inside one grain `[start, end)`, as the store
/// keeps them (``RollupPage``) so that statistics need not read those samples again.
///
/// `total` is what the statistics engine's sweep would accumulate from the grain's rows after
/// merging them (``StatisticsMergeStrategy``): every source's samples for discrete types, the
/// rows merged by source priority for cumulative ones. `bySource` holds each source's own
/// samples. A grain a sample crosses into or out of is never rolled up: its rows are read raw.
struct StatisticsGrainRollup: Sendable, Hashable {
    /// The grain's start, in reference-date seconds.
    var start: Double
    /// The grain's end.
    var end: Double
    /// The earliest start of its samples.
    var earliestStart: Double
    /// The latest end of its samples.
    var latestEnd: Double
    /// The totals after merging sources.
    var total: StatisticsAccumulator
    /// Each source's own totals, by source number, in increasing source order.
    var bySource: [Source]

    /// One source's totals in a grain.
    struct Source: Sendable, Hashable {
        var source: Int32
        var totals: StatisticsAccumulator
    }
}

extension StatisticsEngine {
    /// The rollup of the samples of one grain: `rows` must all lie wholly inside
    /// `[start, end)` (a zero-length sample at `end` belongs to the next grain).
    /// - Returns: `nil` for no rows.
    static func rollup(of rows: [StatisticsSample], start: Double, end: Double, style: HKQuantityAggregationStyle,
                       merge: StatisticsMergeStrategy) -> StatisticsGrainRollup? {
        guard !rows.isEmpty else {
            return nil
        }
        let raw = normalized(rows)
        let mode = StatisticsAverageMode(style)
        var bySource: [Int32: StatisticsAccumulator] = [:]
        var earliest = Double.infinity
        var latest = -Double.infinity
        for row in raw {
            let rowEnd = max(row.end, row.start)
            bySource[row.source, default: StatisticsAccumulator()].add(
                start: row.start, end: rowEnd, value: row.value, lower: start, upper: end, mode: mode)
            earliest = min(earliest, row.start)
            latest = max(latest, rowEnd)
        }
        var total = StatisticsAccumulator()
        if bySource.count == 1, let only = bySource.first {
            total = only.value
        } else {
            for row in merged(raw, by: merge, style: style) {
                total.add(start: row.start, end: max(row.end, row.start), value: row.value, lower: start, upper: end, mode: mode)
            }
        }
        return StatisticsGrainRollup(
            start: start, end: end, earliestStart: earliest, latestEnd: latest, total: total.closed(),
            bySource: bySource.sorted { $0.key < $1.key }.map { StatisticsGrainRollup.Source(source: $0.key, totals: $0.value.closed()) })
    }
}
