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

    static func rows(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?) async throws
        -> (rows: [StatisticsSample], sources: [Int32: HKSource], range: (start: Date?, end: Date?)?, merge: StatisticsMergeStrategy) {
        let (database, fetch) = try await store.sampleFetch(type: type, predicate: predicate)
        let (rows, sources) = try await database.statisticsRows(type: type, predicate: fetch.predicate, scope: fetch.scope)
        // Cumulative types merge sources by priority; discrete ones count every source.
        let merge: StatisticsMergeStrategy = type.aggregationStyle == .cumulative && rows.contains(where: { $0.source != rows[0].source })
            ? .priority(try await database.statisticsSourceOrder(type: type.identifier)) : .sumAllSources
        return (rows, sources, dateRange(of: fetch.predicate.node), merge)
    }

    static func statistics(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions) async throws
        -> HKStatistics {
        try validate(options, type)
        let (rows, sources, range, merge) = try await rows(store: store, type: type, predicate: predicate)
        let clip = closed(range)
        let computed: StatisticsBucket?
        do {
            computed = try StatisticsEngine.statistics(of: rows, style: type.aggregationStyle, options: options, clippingTo: clip,
                                                       merge: merge)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
        guard let bucket = computed, let first = rows.first else {
            throw HKError(.errorNoData, "no data available for the specified predicate")
        }
        // An open end of the predicate reports the samples' own extent, as HealthKit does.
        let start = range?.start ?? Date(timeIntervalSinceReferenceDate: first.start)
        let end = range?.end ?? Date(timeIntervalSinceReferenceDate: rows.map(\.end).max() ?? first.end)
        return HKStatistics(quantityType: type, interval: DateInterval(start: start, end: max(start, end)), values: bucket.values,
                            bySource: bucket.valuesBySource, sourceTable: sources)
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
        let (rows, sources, range, merge) = try await rows(store: store, type: type, predicate: predicate)
        let result: StatisticsCollectionResult
        do {
            result = try StatisticsEngine.collection(of: rows, style: type.aggregationStyle, options: options, grid: grid,
                                                     range: closed(range), merge: merge)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
        return HKStatisticsCollection(quantityType: type, result: result, sourceTable: sources,
                                      wantsSources: options.contains(.separateBySource))
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
