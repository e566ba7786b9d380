import Foundation

/// How the average is formed, by aggregation style.
enum StatisticsAverageMode: Sendable {
    case arithmetic
    case temporallyWeighted
    case equivalentContinuousLevel
    case none

    init(_ style: HKQuantityAggregationStyle) {
        switch style {
        case .cumulative: self = .none
        case .discreteArithmetic: self = .arithmetic
        case .discreteTemporallyWeighted: self = .temporallyWeighted
        case .discreteEquivalentContinuousLevel: self = .equivalentContinuousLevel
        }
    }
}

/// The running totals of one interval (or one source within it), and of one rollup grain.
///
/// Every sum is an ``ExactSum``, so the figures do not depend on the order of the samples nor
/// on how they were grouped: an accumulator built from a grain's samples and merged
/// (``merge(_:)``) into an interval's gives the same bits as adding those samples one by one.
/// The duration (the union of the samples' spans) is kept as closed segments (each the
/// `end - start` of a run of overlapping spans) plus the open one; segments never join across
/// a grain that holds only its own samples, so they merge exactly too.
struct StatisticsAccumulator: Sendable, Hashable {
    /// Samples added.
    var count = 0
    /// Σ pro-rated values.
    var sum = ExactSum()
    /// Σ values.
    var valueSum = ExactSum()
    /// Σ w·v (temporally weighted) or Σ w·10^(v/10) (equivalent continuous level).
    var weightedSum = ExactSum()
    /// Σ w over positive-length samples.
    var weight = ExactSum()
    /// Σ v (or Σ 10^(v/10)) over zero-length samples.
    var instantSum = ExactSum()
    /// Zero-length samples added.
    var instantCount = 0
    var minimum = Double.infinity
    var maximum = -Double.infinity
    var recentStart = -Double.infinity
    var recentEnd = -Double.infinity
    var recentValue = -Double.infinity
    /// Σ of the closed segments of the union of clipped spans.
    var covered = ExactSum()
    /// Start of the open segment; clipped starts arrive in non-decreasing order.
    var segmentStart = -Double.infinity
    /// End of the union so far (of the open segment).
    var coveredEnd = -Double.infinity

    /// Adds a sample that belongs to the interval `[lower, upper)`.
    @inline(__always)
    mutating func add(start: Double, end: Double, value: Double, lower: Double, upper: Double, mode: StatisticsAverageMode) {
        count += 1
        valueSum.add(value)
        let length = end - start
        if length > 0 {
            let clippedStart = start > lower ? start : lower
            let clippedEnd = end < upper ? end : upper
            let w = clippedEnd - clippedStart
            sum.add(w == length ? value : value * (w / length))
            switch mode {
            case .temporallyWeighted:
                weightedSum.add(value * w)
                weight.add(w)
            case .equivalentContinuousLevel:
                weightedSum.add(w * pow(10, value / 10))
                weight.add(w)
            case .arithmetic, .none:
                break
            }
            if clippedStart >= coveredEnd {
                closeSegment()
                segmentStart = clippedStart
                coveredEnd = clippedEnd
            } else if clippedEnd > coveredEnd {
                coveredEnd = clippedEnd
            }
        } else {
            sum.add(value)
            instantSum.add(mode == .equivalentContinuousLevel ? pow(10, value / 10) : value)
            instantCount += 1
        }
        if value < minimum {
            minimum = value
        }
        if value > maximum {
            maximum = value
        }
        noteRecent(start: start, end: end, value: value)
    }

    /// Keeps the most recent sample: the latest end, then the latest start, then the largest value.
    @inline(__always)
    private mutating func noteRecent(start: Double, end: Double, value: Double) {
        if end > recentEnd || (end == recentEnd && (start > recentStart || (start == recentStart && value > recentValue))) {
            recentStart = start
            recentEnd = end
            recentValue = value
        }
    }

    /// Moves the open segment into `covered`.
    @inline(__always)
    private mutating func closeSegment() {
        if coveredEnd > segmentStart {
            covered.add(coveredEnd - segmentStart)
        }
        segmentStart = coveredEnd
    }

    /// The same totals with the open segment closed: the form a rollup stores.
    func closed() -> StatisticsAccumulator {
        var copy = self
        copy.closeSegment()
        return copy
    }

    /// Adds the totals of samples that all lie after (or touch the end of) everything added so
    /// far and before everything added next, as a rollup grain's samples do.
    mutating func merge(_ other: StatisticsAccumulator) {
        guard other.count > 0 else {
            return
        }
        let grain = other.closed()
        closeSegment()
        count += grain.count
        sum.add(grain.sum)
        valueSum.add(grain.valueSum)
        weightedSum.add(grain.weightedSum)
        weight.add(grain.weight)
        instantSum.add(grain.instantSum)
        instantCount += grain.instantCount
        if grain.minimum < minimum {
            minimum = grain.minimum
        }
        if grain.maximum > maximum {
            maximum = grain.maximum
        }
        noteRecent(start: grain.recentStart, end: grain.recentEnd, value: grain.recentValue)
        covered.add(grain.covered)
        if grain.coveredEnd > coveredEnd {
            coveredEnd = grain.coveredEnd
        }
        segmentStart = coveredEnd
    }

    /// The requested statistics; `nil` fields for an empty accumulator.
    func values(options: HKStatisticsOptions, mode: StatisticsAverageMode) -> StatisticsValues {
        var result = StatisticsValues()
        guard count > 0 else {
            return result
        }
        if options.contains(.cumulativeSum) {
            result.sum = sum.value
        }
        if options.contains(.discreteAverage) {
            let weight = weight.value
            switch mode {
            case .arithmetic, .none:
                result.average = valueSum.value / Double(count)
            case .temporallyWeighted:
                result.average = weight > 0 ? weightedSum.value / weight : instantSum.value / Double(instantCount)
            case .equivalentContinuousLevel:
                let energy = weight > 0 ? weightedSum.value / weight : instantSum.value / Double(instantCount)
                result.average = 10 * log10(energy)
            }
        }
        if options.contains(.discreteMin) {
            result.minimum = minimum
        }
        if options.contains(.discreteMax) {
            result.maximum = maximum
        }
        if options.contains(.mostRecent) {
            result.mostRecent = recentValue
            result.mostRecentInterval = DateInterval(
                start: Date(timeIntervalSinceReferenceDate: recentStart),
                duration: recentEnd - recentStart
            )
        }
        if options.contains(.duration) {
            result.duration = closed().covered.value
        }
        return result
    }
}
