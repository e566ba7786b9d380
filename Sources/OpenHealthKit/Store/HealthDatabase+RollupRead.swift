import Foundation
import GRDB

/// The input of a statistics computation served by rollups: the grains used whole, and the
/// raw rows of everything else (the ragged edges).
struct RollupStatisticsInput {
    var rows: [StatisticsSample]
    var rollups: [StatisticsGrainRollup]
    var sources: [Int32: HKSource]
    /// The source order cumulative statistics merge by (source numbers, best first).
    var order: [Int32]
    /// How many grains the gathering looked at: the grains of the stored rollup pages in the
    /// range, however long the samples there are.
    var grainsExamined = 0
}

/// Ranges of rollup grains (the grains long samples overlap), merged and asked by binary search.
struct GrainRanges {
    private var ranges: [ClosedRange<Int64>] = []

    mutating func insert(_ range: ClosedRange<Int64>) {
        ranges.append(range)
    }

    /// Sorts and joins the ranges; call after the last ``insert(_:)``, before ``contains(_:)``.
    mutating func merge() {
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int64>] = []
        for range in ranges {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        ranges = merged
    }

    func contains(_ grain: Int64) -> Bool {
        var lo = 0
        var hi = ranges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid].upperBound < grain { lo = mid + 1 } else { hi = mid }
        }
        return lo < ranges.count && ranges[lo].contains(grain)
    }
}

extension HealthDatabase {
    /// Gathers a statistics computation's input from rollups, for a predicate that narrows
    /// only by dates (`range`, closed, in reference-date seconds) and a read that sees every
    /// source. A grain is used whole when it lies inside `range` and inside one of `buckets`
    /// (nil: one bucket, the range), no sample crosses its edges, no long sample overlaps it,
    /// and (for a merged total) its sources still rank in the order it was merged with. The
    /// rows of every other grain holding samples, and the long samples, are read raw with the
    /// predicate.
    /// - Returns: nil when the grid cannot cover the data (the exact engine then decides).
    func rollupStatisticsInput(type: HKQuantityType, predicate: SQLPredicate, range: (low: Double, high: Double),
                               buckets: StatisticsIntervalGrid?) async throws -> RollupStatisticsInput? {
        let style = type.aggregationStyle
        let grainSeconds = RollupPage.grainSeconds
        let gathering = try await readAsync { db -> Gathering? in
            let numbers = try Self.sourceNumbers(db)
            let order = style == .cumulative ? try statisticsSourceOrder(db, type: type.identifier) : []
            var rank: [Int32: Int] = [:]
            for (position, source) in order.enumerated() { rank[source] = position }

            let limit = RollupPage.timeLimit
            let low = max(range.low, -limit)
            let high = min(range.high, limit)
            guard low <= high else {
                return Gathering(candidates: [], gathered: GatheredValues(), numbers: numbers, order: order)
            }
            let firstPage = RollupPage.page(ofGrain: RollupPage.grain(containing: low))
            let lastPage = RollupPage.page(ofGrain: RollupPage.grain(containing: high))

            // Grains that long samples overlap, within the pages read: ranges of grains, not each
            // grain (a sample over centuries spans millions), asked only of the grains pages hold.
            // A grain no page holds has no other sample, so it needs no raw read of its own.
            var longGrains = GrainRanges()
            let firstGrain = firstPage * Int64(RollupPage.grainsPerPage)
            let lastGrain = (lastPage + 1) * Int64(RollupPage.grainsPerPage) - 1
            for row in try Row.fetchAll(db, sql: """
                SELECT start, "end" FROM sample
                WHERE type = \(SampleTypeCode.parameter) AND kind = 1 AND \(RollupPage.longCondition) AND start <= ? AND "end" >= ?
                """, arguments: [type.identifier, high, low]) {
                let start = max(row[0] as Double, Double(firstGrain) * grainSeconds)
                let end = min(row[1] as Double, Double(lastGrain + 1) * grainSeconds)
                guard start <= end else { continue }
                longGrains.insert(RollupPage.grains(start: start, end: end))
            }
            longGrains.merge()

            // Every grain with samples or crossed, with whether it could be used whole.
            var candidates: [Candidate] = []
            for row in try Row.fetchAll(db, sql: "SELECT page, sealed FROM rollup_page WHERE type = ? AND page >= ? AND page <= ? ORDER BY page",
                                        arguments: [type.identifier, firstPage, lastPage]) {
                let page: Int64 = row[0]
                let sealed: Data = row[1]
                let opened = try RollupPage(opening: sealed, type: type.identifier, page: page, cipher: cipher)
                for grain in opened.grains {
                    let number = page * Int64(RollupPage.grainsPerPage) + Int64(grain.index)
                    let start = Double(number) * grainSeconds
                    var whole = !grain.crossed && !longGrains.contains(number) && start >= range.low && start + grainSeconds <= range.high
                    if whole, let rollup = grain.rollup, style == .cumulative, rollup.bySource.count > 1 {
                        let positions = grain.order.map { rank[$0] ?? Int.max }
                        whole = grain.order.count == rollup.bySource.count && zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }
                            && positions.last.map { $0 < Int.max } ?? false
                    }
                    candidates.append(Candidate(start: start, rollup: grain.rollup, whole: whole))
                }
            }
            candidates.sort { $0.start < $1.start }

            // Inside one bucket of the grid?
            if let buckets, let first = candidates.first(where: \.whole), let last = candidates.last(where: \.whole) {
                guard let (_, boundaries) = try? buckets.boundaries(from: first.start, to: last.start + grainSeconds) else {
                    return nil
                }
                var k = 0
                for index in candidates.indices where candidates[index].whole {
                    let start = candidates[index].start
                    while k + 1 < boundaries.count && boundaries[k + 1] <= start { k += 1 }
                    candidates[index].whole = k + 1 < boundaries.count && boundaries[k] <= start
                        && start + grainSeconds <= boundaries[k + 1]
                }
            }

            // The raw rows: every grain not used whole, joined into runs, and the long samples.
            var gathered = GatheredValues()
            var runs: [(low: Double, high: Double)] = []
            for candidate in candidates where !candidate.whole {
                if let last = runs.last, last.high >= candidate.start {
                    runs[runs.count - 1].high = max(last.high, candidate.start + grainSeconds)
                } else {
                    runs.append((candidate.start, candidate.start + grainSeconds))
                }
            }
            for run in runs {
                var arguments: StatementArguments = [run.low - RollupPage.pageSeconds, run.high, run.low, run.low]
                arguments += predicate.arguments
                try appendQuantityRows(
                    db, to: &gathered, type: type.identifier,
                    filter: "s.start >= ? AND s.start < ? AND (s.\"end\" > ? OR s.start >= ?) AND NOT \(RollupPage.longCondition) AND "
                        + predicate.filter,
                    arguments: arguments, numbers: numbers)
            }
            try appendQuantityRows(db, to: &gathered, type: type.identifier, filter: "\(RollupPage.longCondition) AND " + predicate.filter,
                                   arguments: predicate.arguments, numbers: numbers)
            try fetchBlocks(db, of: &gathered)
            return Gathering(candidates: candidates, gathered: gathered, numbers: numbers, order: order)
        }
        guard let gathering else { return nil }
        let rows = try gathering.gathered.open(cipher: cipher, type: type.identifier)
        let rollups = gathering.candidates.compactMap { $0.whole ? $0.rollup : nil }
        return RollupStatisticsInput(rows: rows, rollups: rollups, sources: gathering.numbers.sources, order: gathering.order,
                                     grainsExamined: gathering.candidates.count)
    }

    /// What the read transaction gathered.
    private struct Gathering {
        var candidates: [Candidate]
        var gathered: GatheredValues
        var numbers: SourceNumbers
        var order: [Int32]
    }

    /// A grain found in the pages read.
    private struct Candidate {
        var start: Double
        var rollup: StatisticsGrainRollup?
        var whole: Bool
    }
}
