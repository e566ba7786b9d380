import Foundation

/// How samples from several sources are combined before the statistics are computed.
enum StatisticsMergeStrategy: Sendable, Hashable {
    /// Every sample of every source counts: cumulative values are summed across sources and
    /// discrete statistics run over all sources' samples together.
    case sumAllSources
    /// Source priority, as the Health app merges a phone's and a watch's steps: for cumulative
    /// types, in each stretch of time only the highest-ranked source with a sample covering it
    /// counts (``StatisticsEngine/mergedByPriority(_:order:)``). The array lists source numbers,
    /// highest priority first; sources it does not list rank after it, by number. Discrete types
    /// are not merged: every source's samples count, as with ``sumAllSources``.
    case priority([Int32])
}

/// The statistics engine behind `HKStatisticsQuery` and `HKStatisticsCollectionQuery`.
///
/// The store fetches the rows that match the query's predicate, converts each value to the
/// type's canonical unit, and passes them here sorted by start. The engine returns numbers in
/// that canonical unit. It does no I/O.
///
/// ## Semantics
///
/// - **Membership.** A sample with `end > start` belongs to every interval it overlaps with
///   positive length (`start < intervalEnd && end > intervalStart`). A zero-length sample at
///   `t` belongs to the interval with `intervalStart <= t < intervalEnd`.
/// - **Sum** (`cumulativeSum`). Each sample's value is pro-rated by the fraction of its
///   duration inside the interval; a zero-length sample counts fully. Sources are summed
///   (``StatisticsMergeStrategy/sumAllSources``) or first merged by priority
///   (``StatisticsMergeStrategy/priority(_:)``).
/// - **Average** (`discreteAverage`), by aggregation style:
///   - `discreteArithmetic`: the arithmetic mean of the values of the samples in the interval;
///     a sample counts once in each interval it belongs to.
///   - `discreteTemporallyWeighted`: `Σ vᵢ·wᵢ / Σ wᵢ`, with `wᵢ` the seconds of the sample
///     inside the interval. Zero-length samples are ignored when the interval also holds a
///     positive-length sample; when all its samples have zero length, the arithmetic mean.
///   - `discreteEquivalentContinuousLevel`: `10·log10(Σ wᵢ·10^(Lᵢ/10) / Σ wᵢ)`, same weights
///     and the same zero-length rule (energy mean of the zero-length samples).
/// - **Minimum / maximum** over the values of the samples in the interval (zero-length
///   samples included).
/// - **Most recent**: the sample with the latest end; ties go to the latest start, then to
///   the largest value. Its value and whole (unclipped) interval are returned.
/// - **Duration**: the length of the union of the samples' spans, clipped to the interval.
/// - **Sources.** With `separateBySource`, every statistic is also computed per source.
/// - **Order.** Results do not depend on the order of rows with equal starts: such rows are
///   put in a canonical order (end, value, source) before summing. Unsorted input is sorted.
///
/// ## Cost
///
/// One sweep over rows and intervals: O(rows + intervals + Σ intervals spanned per sample),
/// one accumulator on the stack, no allocation per row, and no dictionary unless
/// `separateBySource` is requested.
enum StatisticsEngine {
    /// Computes the statistics of an `HKStatisticsQuery`: one interval.
    ///
    /// - Parameters:
    ///   - samples: The rows matching the predicate, sorted by start (unsorted input is
    ///     sorted, at a cost).
    ///   - style: The aggregation style of the quantity type.
    ///   - options: The statistics to compute.
    ///   - clip: The predicate's date range. Samples are clipped to it: only the part inside
    ///     counts toward sums, weights and durations, and samples outside it are ignored. With
    ///     `nil`, every row counts whole and the result's interval is the samples' span.
    ///   - merge: How sources are combined.
    ///   - rollups: Grains whose samples are not in `samples` but summed up, sorted by start,
    ///     each lying wholly inside `clip` (see ``collection(of:rollups:style:options:grid:range:merge:)``).
    /// - Returns: The statistics, or `nil` when no sample falls in the interval (HealthKit
    ///   reports "no data" then).
    /// - Throws: A ``StatisticsError`` when `options` do not suit `style`.
    static func statistics(
        of samples: [StatisticsSample],
        rollups: [StatisticsGrainRollup] = [],
        style: HKQuantityAggregationStyle,
        options: HKStatisticsOptions,
        clippingTo clip: DateInterval?,
        merge: StatisticsMergeStrategy = .sumAllSources
    ) throws(StatisticsError) -> StatisticsBucket? {
        try HKStatisticsOptions.validate(options, for: style)
        let raw = normalized(samples)
        let rows = merged(raw, by: merge, style: style)
        guard let extent = extent(of: raw, rollups) else {
            return nil
        }
        let boundaries: [Double]
        let interval: DateInterval
        if let clip {
            let start = clip.start.timeIntervalSinceReferenceDate
            let end = clip.end.timeIntervalSinceReferenceDate
            guard end > start else {
                return nil
            }
            boundaries = [start, end]
            interval = clip
        } else {
            boundaries = [-Double.infinity, Double.infinity]
            interval = DateInterval(
                start: Date(timeIntervalSinceReferenceDate: extent.start),
                duration: extent.end - extent.start
            )
        }
        var result: StatisticsBucket?
        sweep(
            merged: rows,
            raw: raw,
            rollups: rollups,
            boundaries: boundaries,
            clipStart: -Double.infinity,
            clipEnd: Double.infinity,
            style: style,
            options: options
        ) { _, values, bySource in
            result = StatisticsBucket(index: 0, interval: interval, values: values, valuesBySource: bySource)
        }
        return result
    }

    /// Computes the statistics of an `HKStatisticsCollectionQuery`: one result per grid
    /// interval that holds at least one sample.
    ///
    /// - Parameters:
    ///   - samples: The rows matching the predicate, sorted by start.
    ///   - style: The aggregation style of the quantity type.
    ///   - options: The statistics to compute.
    ///   - grid: The anchored, calendar-stepped intervals.
    ///   - range: The predicate's date range. Samples are clipped to it at its two ends (only
    ///     the part inside counts toward sums, weights and durations); each bucket still
    ///     reports its whole grid interval. `nil` means unbounded. Either way only the intervals
    ///     from the one holding the first sample through the one holding the last are
    ///     computed, so an open-ended range is cheap; list empty intervals of a range with
    ///     ``StatisticsIntervalGrid/intervals(from:to:)``.
    ///   - merge: How sources are combined.
    ///   - rollups: Grains whose samples are not in `samples` but summed up
    ///     (``StatisticsGrainRollup``), sorted by start. Each must lie wholly inside one grid
    ///     interval and inside `range`, and no sample of `samples` may overlap it. With exact
    ///     sums the result is then bit for bit the one computed from every sample.
    /// - Returns: The populated buckets and the boundaries that were computed.
    /// - Throws: A ``StatisticsError`` for invalid options, a date out of range, or more than
    ///   ``StatisticsIntervalGrid/maximumIntervalCount`` intervals.
    static func collection(
        of samples: [StatisticsSample],
        rollups: [StatisticsGrainRollup] = [],
        style: HKQuantityAggregationStyle,
        options: HKStatisticsOptions,
        grid: StatisticsIntervalGrid,
        range: DateInterval?,
        merge: StatisticsMergeStrategy = .sumAllSources
    ) throws(StatisticsError) -> StatisticsCollectionResult {
        try HKStatisticsOptions.validate(options, for: style)
        let raw = normalized(samples)
        let rows = merged(raw, by: merge, style: style)
        var clipStart = -Double.infinity
        var clipEnd = Double.infinity
        if let range {
            clipStart = range.start.timeIntervalSinceReferenceDate
            clipEnd = range.end.timeIntervalSinceReferenceDate
        }
        // Only the intervals between the first and the last sample inside the range can hold
        // data, so an open-ended range (distantPast ..< distantFuture) costs nothing extra.
        var firstIndex = 0
        var boundaries: [Double] = []
        if let extent = extent(of: raw, rollups) {
            let lastEnd = extent.end
            let lower = max(clipStart, extent.start)
            if lastEnd < clipEnd {
                // Through the interval containing the last end, for a zero-length sample there.
                if lower <= lastEnd {
                    (firstIndex, boundaries) = try grid.boundaries(covering: lower, through: lastEnd)
                }
            } else if lower < clipEnd {
                (firstIndex, boundaries) = try grid.boundaries(from: lower, to: clipEnd)
            }
        }
        var buckets: [StatisticsBucket] = []
        if boundaries.count >= 2 && (!rows.isEmpty || !rollups.isEmpty) {
            sweep(
                merged: rows,
                raw: raw,
                rollups: rollups,
                boundaries: boundaries,
                clipStart: clipStart,
                clipEnd: clipEnd,
                style: style,
                options: options
            ) { j, values, bySource in
                let interval = DateInterval(
                    start: Date(timeIntervalSinceReferenceDate: boundaries[j]),
                    duration: max(0, boundaries[j + 1] - boundaries[j])
                )
                buckets.append(
                    StatisticsBucket(index: firstIndex + j, interval: interval, values: values, valuesBySource: bySource)
                )
            }
        }
        return StatisticsCollectionResult(grid: grid, firstIndex: firstIndex, boundaries: boundaries, buckets: buckets)
    }

    /// The earliest start and the latest end of the samples and the rolled-up grains, or nil
    /// when there are none.
    static func extent(of raw: [StatisticsSample], _ rollups: [StatisticsGrainRollup]) -> (start: Double, end: Double)? {
        var start = Double.infinity
        var end = -Double.infinity
        if let first = raw.first {
            start = first.start
            end = first.start
            for row in raw where row.end > end {
                end = row.end
            }
        }
        // Grains are disjoint and sorted: the first holds the earliest start, the last the latest end.
        if let first = rollups.first, let last = rollups.last {
            start = min(start, first.earliestStart)
            end = max(end, last.latestEnd)
        }
        return start <= end ? (start, end) : nil
    }

    // MARK: - Row preparation

    /// Returns the rows sorted by start, with rows of equal start in (end, value, source)
    /// order. Costs one pass when the input is already sorted without ties.
    static func normalized(_ samples: [StatisticsSample]) -> [StatisticsSample] {
        guard samples.count > 1 else {
            return samples
        }
        var isSorted = true
        var hasTies = false
        var previous = samples[0].start
        for i in 1..<samples.count {
            let start = samples[i].start
            if start < previous {
                isSorted = false
                break
            }
            if start == previous {
                hasTies = true
            }
            previous = start
        }
        if isSorted && !hasTies {
            return samples
        }
        var rows = samples
        if !isSorted {
            rows.sort(by: precedes)
            return rows
        }
        var i = 0
        while i < rows.count {
            var j = i + 1
            while j < rows.count && rows[j].start == rows[i].start {
                j += 1
            }
            if j - i > 1 {
                rows[i..<j].sort(by: precedes)
            }
            i = j
        }
        return rows
    }

    private static func precedes(_ a: StatisticsSample, _ b: StatisticsSample) -> Bool {
        (a.start, a.end, a.value, a.source) < (b.start, b.end, b.value, b.source)
    }

    /// Applies the merge strategy to normalized rows; the result stays normalized.
    static func merged(_ rows: [StatisticsSample], by strategy: StatisticsMergeStrategy,
                       style: HKQuantityAggregationStyle) -> [StatisticsSample] {
        switch strategy {
        case .sumAllSources:
            return rows
        case .priority(let order):
            return style == .cumulative ? mergedByPriority(rows, order: order) : rows
        }
    }

    /// The rows of a cumulative type merged by source priority: non-overlapping between sources,
    /// each kept row or pro-rated piece of a row belonging to the highest-ranked source that
    /// covers that time.
    ///
    /// The algorithm: cut time at every start and end of a positive-length sample. In each
    /// elementary segment, find the best-ranked source among the samples covering it; those of
    /// its samples count there (a source overlapping itself counts every sample, as HealthKit
    /// sums one source), the others not at all. A sample kept over its whole span is returned
    /// unchanged, so a store with one source, or sources that never overlap, gives exactly the
    /// sums of ``StatisticsMergeStrategy/sumAllSources``; a sample kept over part of its span
    /// becomes one piece per kept stretch, with the value pro-rated by the stretch's share of the
    /// sample's duration. A zero-length sample counts unless a better-ranked source has a sample
    /// covering its instant (`start <= t < end`).
    ///
    /// Cost: O(n log n) to order the cuts, then one pass over segments, each looking at the
    /// samples covering it.
    static func mergedByPriority(_ rows: [StatisticsSample], order: [Int32]) -> [StatisticsSample] {
        guard let firstSource = rows.first?.source, rows.contains(where: { $0.source != firstSource }) else {
            return rows
        }
        guard rows.contains(where: { $0.end > $0.start }) else {
            return rows
        }
        var listed: [Int32: Int] = [:]
        for (position, source) in order.enumerated() where listed[source] == nil {
            listed[source] = position
        }
        let unlistedBase = order.count
        func rank(_ source: Int32) -> Int {
            listed[source] ?? unlistedBase + Int(source) - Int(Int32.min)
        }

        var positive: [Int] = []
        var instants: [Int] = []
        var cuts: [Double] = []
        cuts.reserveCapacity(rows.count * 2)
        for (index, row) in rows.enumerated() {
            if row.end > row.start {
                positive.append(index)
                cuts.append(row.start)
                cuts.append(row.end)
            } else {
                instants.append(index)
            }
        }
        cuts.sort()
        var unique: [Double] = []
        unique.reserveCapacity(cuts.count)
        for cut in cuts where unique.last != cut {
            unique.append(cut)
        }

        // Kept stretches per row, in time order; adjacent stretches are joined.
        var kept: [Int: [(start: Double, end: Double)]] = [:]
        var keptInstants: [Int] = []
        var active: [Int] = []
        var nextPositive = 0
        var nextInstant = 0
        for k in unique.indices {
            let cut = unique[k]
            active.removeAll { rows[$0].end <= cut }
            while nextPositive < positive.count && rows[positive[nextPositive]].start <= cut {
                active.append(positive[nextPositive])
                nextPositive += 1
            }
            let best = active.map { rank(rows[$0].source) }.min() ?? Int.max
            // Instants before the next cut are covered by exactly the active rows.
            let segmentEnd = k + 1 < unique.count ? unique[k + 1] : Double.infinity
            while nextInstant < instants.count && rows[instants[nextInstant]].start < segmentEnd {
                let index = instants[nextInstant]
                let t = rows[index].start
                let covering = t < cut ? Int.max : best
                if rank(rows[index].source) <= covering {
                    keptInstants.append(index)
                }
                nextInstant += 1
            }
            guard k + 1 < unique.count else { break }
            for index in active where rank(rows[index].source) == best {
                if var stretches = kept[index], let last = stretches.last, last.end == cut {
                    stretches[stretches.count - 1].end = segmentEnd
                    kept[index] = stretches
                } else {
                    kept[index, default: []].append((cut, segmentEnd))
                }
            }
        }

        var result: [StatisticsSample] = []
        result.reserveCapacity(rows.count)
        for index in keptInstants {
            result.append(rows[index])
        }
        for (index, stretches) in kept {
            let row = rows[index]
            if stretches.count == 1, stretches[0].start == row.start, stretches[0].end == row.end {
                result.append(row)
                continue
            }
            let duration = row.end - row.start
            for stretch in stretches {
                let share = (stretch.end - stretch.start) / duration
                result.append(StatisticsSample(start: stretch.start, end: stretch.end, value: row.value * share, source: row.source))
            }
        }
        return normalized(result)
    }

    // MARK: - Sweep

    /// Sweeps the merged rows for the totals. When merging changed the rows and statistics by
    /// source are asked for, each source's own figures come from a second sweep over the raw
    /// rows (`separateBySource` reports what each source recorded, not its share of the merge).
    private static func sweep(
        merged rows: [StatisticsSample],
        raw: [StatisticsSample],
        rollups: [StatisticsGrainRollup],
        boundaries: [Double],
        clipStart: Double,
        clipEnd: Double,
        style: HKQuantityAggregationStyle,
        options: HKStatisticsOptions,
        emit: (_ interval: Int, _ values: StatisticsValues, _ bySource: [Int32: StatisticsValues]?) -> Void
    ) {
        guard options.contains(.separateBySource), rows != raw else {
            sweep(rows, rollups: rollups, boundaries: boundaries, clipStart: clipStart, clipEnd: clipEnd, style: style, options: options,
                  emit: emit)
            return
        }
        var bySourceByInterval: [Int: [Int32: StatisticsValues]] = [:]
        sweep(raw, rollups: rollups, boundaries: boundaries, clipStart: clipStart, clipEnd: clipEnd, style: style, options: options) {
            j, _, bySource in
            bySourceByInterval[j] = bySource
        }
        var totalsOnly = options
        totalsOnly.remove(.separateBySource)
        sweep(rows, rollups: rollups, boundaries: boundaries, clipStart: clipStart, clipEnd: clipEnd, style: style, options: totalsOnly) {
            j, values, _ in
            emit(j, values, bySourceByInterval[j] ?? [:])
        }
    }

    /// Visits the intervals `[boundaries[j], boundaries[j + 1])` in order and calls `emit` for
    /// each one that holds a sample. The first and last intervals are clipped to
    /// `[clipStart, clipEnd)` for membership and weights. Rolled-up grains are merged in time
    /// order between the rows (a grain's `total`, and its sources' totals when asked for).
    private static func sweep(
        _ rows: [StatisticsSample],
        rollups: [StatisticsGrainRollup],
        boundaries: [Double],
        clipStart: Double,
        clipEnd: Double,
        style: HKQuantityAggregationStyle,
        options: HKStatisticsOptions,
        emit: (_ interval: Int, _ values: StatisticsValues, _ bySource: [Int32: StatisticsValues]?) -> Void
    ) {
        let intervalCount = boundaries.count - 1
        guard intervalCount > 0, !rows.isEmpty || !rollups.isEmpty else {
            return
        }
        let mode = StatisticsAverageMode(style)
        let bySource = options.contains(.separateBySource)

        // Per-source slots, resolved once per row before the sweep.
        var sourceIDs: [Int32] = []
        var slots: [Int] = []
        var sourceAccumulators: [StatisticsAccumulator] = []
        var touched: [Int] = []
        // Per rollup, the slot of each of its sources.
        var rollupSlots: [[Int]] = []
        if bySource {
            var slotOf: [Int32: Int] = [:]
            slots.reserveCapacity(rows.count)
            var lastSource = rows.first?.source ?? 0
            var lastSlot = -1
            for row in rows {
                if row.source != lastSource || lastSlot < 0 {
                    // A handful of sources is the norm: scan them before hashing.
                    if sourceIDs.count <= 8, let slot = sourceIDs.firstIndex(of: row.source) {
                        lastSlot = slot
                    } else if sourceIDs.count > 8, let slot = slotOf[row.source] {
                        lastSlot = slot
                    } else {
                        lastSlot = sourceIDs.count
                        slotOf[row.source] = lastSlot
                        sourceIDs.append(row.source)
                    }
                    lastSource = row.source
                }
                slots.append(lastSlot)
            }
            rollupSlots = rollups.map { rollup in
                rollup.bySource.map { entry in
                    if let slot = slotOf[entry.source] {
                        return slot
                    }
                    slotOf[entry.source] = sourceIDs.count
                    sourceIDs.append(entry.source)
                    return sourceIDs.count - 1
                }
            }
            sourceAccumulators = Array(repeating: StatisticsAccumulator(), count: sourceIDs.count)
            touched.reserveCapacity(sourceIDs.count)
        }

        // Rows admitted earlier whose end lies beyond the current interval, in row order.
        var carry: [Int] = []
        var nextCarry: [Int] = []
        var next = 0
        var nextRollup = 0
        var j = 0
        rows.withUnsafeBufferPointer { rows in
            while j < intervalCount {
                let lower = j == 0 ? max(boundaries[0], clipStart) : boundaries[j]
                let upper = j == intervalCount - 1 ? min(boundaries[j + 1], clipEnd) : boundaries[j + 1]
                var total = StatisticsAccumulator()
                nextCarry.removeAll(keepingCapacity: true)

                // Carried rows started before `lower` and end after it: they always overlap.
                for r in carry {
                    let row = rows[r]
                    let end = max(row.end, row.start)
                    total.add(start: row.start, end: end, value: row.value, lower: lower, upper: upper, mode: mode)
                    if bySource {
                        let slot = slots[r]
                        if sourceAccumulators[slot].count == 0 {
                            touched.append(slot)
                        }
                        sourceAccumulators[slot].add(
                            start: row.start, end: end, value: row.value, lower: lower, upper: upper, mode: mode
                        )
                    }
                    if end > upper {
                        nextCarry.append(r)
                    }
                }

                // Newly admitted rows: every row starting before `upper`, and the grains
                // starting there, in time order (no row overlaps a grain).
                while next < rows.count || nextRollup < rollups.count {
                    let start = next < rows.count ? rows[next].start : Double.infinity
                    if nextRollup < rollups.count, rollups[nextRollup].start < upper, rollups[nextRollup].start <= start {
                        let rollup = rollups[nextRollup]
                        total.merge(rollup.total)
                        if bySource {
                            for (entry, slot) in zip(rollup.bySource, rollupSlots[nextRollup]) {
                                if sourceAccumulators[slot].count == 0 {
                                    touched.append(slot)
                                }
                                sourceAccumulators[slot].merge(entry.totals)
                            }
                        }
                        nextRollup += 1
                        continue
                    }
                    guard start < upper else {
                        break
                    }
                    let row = rows[next]
                    let end = max(row.end, start)
                    let belongs = end > start ? end > lower : start >= lower
                    if belongs {
                        total.add(start: start, end: end, value: row.value, lower: lower, upper: upper, mode: mode)
                        if bySource {
                            let slot = slots[next]
                            if sourceAccumulators[slot].count == 0 {
                                touched.append(slot)
                            }
                            sourceAccumulators[slot].add(
                                start: start, end: end, value: row.value, lower: lower, upper: upper, mode: mode
                            )
                        }
                        if end > upper {
                            nextCarry.append(next)
                        }
                    }
                    next += 1
                }
                swap(&carry, &nextCarry)

                if total.count > 0 {
                    var perSource: [Int32: StatisticsValues]?
                    if bySource {
                        var values: [Int32: StatisticsValues] = [:]
                        values.reserveCapacity(touched.count)
                        for slot in touched {
                            values[sourceIDs[slot]] = sourceAccumulators[slot].values(options: options, mode: mode)
                            sourceAccumulators[slot] = StatisticsAccumulator()
                        }
                        touched.removeAll(keepingCapacity: true)
                        perSource = values
                    }
                    emit(j, total.values(options: options, mode: mode), perSource)
                }

                // Skip empty intervals: jump to the interval holding the next row's start.
                guard carry.isEmpty else {
                    j += 1
                    continue
                }
                let t = min(next < rows.count ? rows[next].start : Double.infinity,
                            nextRollup < rollups.count ? rollups[nextRollup].start : Double.infinity)
                guard t < Double.infinity else {
                    break
                }
                if j + 2 <= intervalCount && t >= boundaries[j + 2] {
                    if t >= boundaries[intervalCount] {
                        break
                    }
                    // Largest k with boundaries[k] <= t, in (j + 1, intervalCount).
                    var lo = j + 2
                    var hi = intervalCount
                    while hi - lo > 1 {
                        let mid = lo + (hi - lo) / 2
                        if boundaries[mid] <= t {
                            lo = mid
                        } else {
                            hi = mid
                        }
                    }
                    j = lo
                } else {
                    j += 1
                }
            }
        }
    }
}
