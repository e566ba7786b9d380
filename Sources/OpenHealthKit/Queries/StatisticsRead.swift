import Foundation

/// Reads the rows of a quantity type and runs the statistics engine over them.
enum StatisticsRead {
    /// The date range a predicate restricts samples to, for clipping: the intersection of the
    /// date predicates reachable through ANDs from the top. Open ends are nil.
    static func dateRange(of node: PredicateNode) -> (start: Date?, end: Date?)? {
        switch node {
        case .dates(let start, let end, _):
            return start == nil && end == nil ? nil : (start, end)
        case .and(let nodes):
            var result: (start: Date?, end: Date?)?
            for range in nodes.compactMap(dateRange) {
                guard let current = result else {
                    result = range
                    continue
                }
                let start = [current.start, range.start].compactMap { $0 }.max()
                let end = [current.end, range.end].compactMap { $0 }.min()
                result = (start, end)
            }
            return result
        default:
            return nil
        }
    }

    /// A range with open ends closed far away, for the engine (which clips numerically).
    static func closed(_ range: (start: Date?, end: Date?)?) -> DateInterval? {
        guard let range else { return nil }
        let start = range.start ?? .distantPast
        let end = max(start, range.end ?? .distantFuture)
        return DateInterval(start: start, end: end)
    }

    /// What a statistics computation reads: raw rows, rolled-up grains (empty on the exact
    /// path), the sources by number, the predicate's date range and how sources merge.
    struct Input {
        var rows: [StatisticsSample]
        var rollups: [StatisticsGrainRollup] = []
        var sources: [Int32: HKSource]
        var range: (start: Date?, end: Date?)?
        var merge: StatisticsMergeStrategy
    }

    /// Whether rollups can serve a predicate: it narrows only by dates (or not at all).
    static func narrowsOnlyByDates(_ node: PredicateNode) -> Bool {
        switch node {
        case .constant(let value): return value
        case .dates: return true
        case .and(let nodes): return nodes.allSatisfy(narrowsOnlyByDates)
        default: return false
        }
    }

    /// The input of a statistics computation: from rollups when the read sees every source and
    /// the predicate narrows only by dates (`buckets` is the collection's grid), else (or when
    /// `exact`) every matching row for the exact engine.
    static func input(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, buckets: StatisticsIntervalGrid?,
                      exact: Bool = false) async throws -> Input {
        let (database, fetch) = try await store.sampleFetch(type: type, predicate: predicate)
        let range = dateRange(of: fetch.predicate.node)
        if !exact, fetch.scope == .everything, narrowsOnlyByDates(fetch.predicate.node) {
            let clip = closed(range)
            let low = clip?.start.timeIntervalSinceReferenceDate ?? -Double.greatestFiniteMagnitude
            let high = clip?.end.timeIntervalSinceReferenceDate ?? Double.greatestFiniteMagnitude
            if let served = try await database.rollupStatisticsInput(type: type, predicate: fetch.predicate, range: (low, high), buckets: buckets) {
                // Cumulative types merge by priority; with one source that changes nothing.
                let merge: StatisticsMergeStrategy = type.aggregationStyle == .cumulative ? .priority(served.order) : .sumAllSources
                return Input(rows: served.rows, rollups: served.rollups, sources: served.sources, range: range, merge: merge)
            }
        }
        let (rows, sources) = try await database.statisticsRows(type: type, predicate: fetch.predicate, scope: fetch.scope)
        // Cumulative types merge sources by priority; discrete ones count every source.
        let merge: StatisticsMergeStrategy = type.aggregationStyle == .cumulative && rows.contains(where: { $0.source != rows[0].source })
            ? .priority(try await database.statisticsSourceOrder(type: type.identifier)) : .sumAllSources
        return Input(rows: rows, sources: sources, range: range, merge: merge)
    }

    static func statistics(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions) async throws
        -> HKStatistics {
        let (computed, input) = try await statisticsResult(store: store, type: type, predicate: predicate, options: options)
        let range = input.range
        guard let bucket = computed, let extent = extent(of: input) else {
            throw HKError(.errorNoData, "no data available for the specified predicate")
        }
        // An open end of the predicate reports the samples' own extent, as HealthKit does.
        let start = range?.start ?? Date(timeIntervalSinceReferenceDate: extent.start)
        let end = range?.end ?? Date(timeIntervalSinceReferenceDate: extent.end)
        return HKStatistics(quantityType: type, interval: DateInterval(start: start, end: max(start, end)), values: bucket.values,
                            bySource: bucket.valuesBySource, sourceTable: input.sources)
    }

    /// The engine's statistics of one interval, and what they were computed from (`exact`:
    /// through the exact engine over every row, as the property tests compare).
    static func statisticsResult(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
                                 exact: Bool = false) async throws -> (bucket: StatisticsBucket?, input: Input) {
        try validate(options, type)
        let input = try await input(store: store, type: type, predicate: predicate, buckets: nil, exact: exact)
        do {
            return (try StatisticsEngine.statistics(of: input.rows, rollups: input.rollups, style: type.aggregationStyle, options: options,
                                                    clippingTo: closed(input.range), merge: input.merge), input)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
    }

    /// The earliest start and latest end of the input's samples.
    private static func extent(of input: Input) -> (start: Double, end: Double)? {
        var start = Double.infinity
        var end = -Double.infinity
        for row in input.rows {
            start = min(start, row.start)
            end = max(end, row.end)
        }
        if let first = input.rollups.first, let last = input.rollups.last {
            start = min(start, first.earliestStart)
            end = max(end, last.latestEnd)
        }
        return start <= end ? (start, end) : nil
    }

    static func collection(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
                           anchorDate: Date, intervalComponents: DateComponents, calendar: Calendar) async throws -> HKStatisticsCollection {
        try validate(options, type)
        let grid: StatisticsIntervalGrid
        do {
            grid = try StatisticsIntervalGrid(anchorDate: anchorDate, intervalComponents: intervalComponents, calendar: calendar)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
        let (result, input) = try await collectionResult(store: store, type: type, predicate: predicate, options: options, grid: grid)
        return HKStatisticsCollection(quantityType: type, result: result, sourceTable: input.sources,
                                      wantsSources: options.contains(.separateBySource))
    }

    /// The engine's collection, and what it was computed from (`exact`: through the exact engine
    /// over every row).
    static func collectionResult(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
                                 grid: StatisticsIntervalGrid, exact: Bool = false) async throws -> (result: StatisticsCollectionResult, input: Input) {
        let input = try await input(store: store, type: type, predicate: predicate, buckets: grid, exact: exact)
        do {
            return (try StatisticsEngine.collection(of: input.rows, rollups: input.rollups, style: type.aggregationStyle, options: options,
                                                    grid: grid, range: closed(input.range), merge: input.merge), input)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
    }

    /// Statistics errors are argument errors in HealthKit's terms.
    private static func validate(_ options: HKStatisticsOptions, _ type: HKQuantityType) throws {
        do {
            try HKStatisticsOptions.validate(options, for: type.aggregationStyle)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
    }
}
