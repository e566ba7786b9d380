import Foundation

/// The outcome of ``StatisticsEngine/collection(of:style:options:grid:range:merge:)``.
struct StatisticsCollectionResult: Sendable, Equatable {
    /// The grid the intervals come from.
    let grid: StatisticsIntervalGrid
    /// The grid index of the first computed interval.
    let firstIndex: Int
    /// The boundaries of the computed intervals in reference-date seconds (`count + 1` values,
    /// or none when no sample fell in the range). The computed intervals run from the one
    /// holding the first sample through the one holding the last.
    let boundaries: [Double]
    /// The computed intervals that hold at least one sample, in chronological order.
    let buckets: [StatisticsBucket]

    /// The number of computed intervals, populated or not.
    var intervalCount: Int {
        max(0, boundaries.count - 1)
    }

    /// Every source number that appears in `valuesBySource`, ascending; empty unless
    /// `separateBySource` was requested.
    var sources: [Int32] {
        var seen = Set<Int32>()
        for bucket in buckets {
            if let keys = bucket.valuesBySource?.keys {
                seen.formUnion(keys)
            }
        }
        return seen.sorted()
    }

    /// The populated interval with grid index `index`, or `nil` when it holds no sample or was
    /// not computed.
    ///
    /// - Parameter index: A grid index, as from ``StatisticsIntervalGrid/index(containing:)``.
    /// - Returns: The bucket, or `nil`.
    func bucket(at index: Int) -> StatisticsBucket? {
        var lo = 0
        var hi = buckets.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if buckets[mid].index < index {
                lo = mid + 1
            } else {
                hi = mid
            }
        }
        return lo < buckets.count && buckets[lo].index == index ? buckets[lo] : nil
    }

    /// The populated interval that contains `date`, or `nil` when that interval holds no
    /// sample or lies outside the computed range. For an empty interval, HealthKit's
    /// `statistics(for:)` still returns an object: take its dates from
    /// ``StatisticsIntervalGrid/interval(at:)``.
    ///
    /// - Parameter date: Any date.
    /// - Returns: The bucket, or `nil`.
    func bucket(containing date: Date) -> StatisticsBucket? {
        let t = date.timeIntervalSinceReferenceDate
        guard let first = boundaries.first, let last = boundaries.last, t >= first, t < last else {
            return nil
        }
        // Largest j with boundaries[j] <= t.
        var lo = 0
        var hi = boundaries.count - 1
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if boundaries[mid] <= t {
                lo = mid
            } else {
                hi = mid
            }
        }
        return bucket(at: firstIndex + lo)
    }
}
