import Foundation

/// Reads the rows of a quantity type and runs the statistics engine over them.
enum StatisticsRead {
    /// The date range a predicate restricts samples to, for clipping: a top-level date
    /// predicate or one inside a top-level AND.
    static func dateRange(of node: PredicateNode) -> DateInterval? {
        switch node {
        case .dates(let start, let end, _):
            let lower = start ?? .distantPast
            let upper = end ?? .distantFuture
            guard upper >= lower, start != nil || end != nil else { return nil }
            return DateInterval(start: lower, end: upper)
        case .and(let nodes):
            return nodes.lazy.compactMap(dateRange).first
        default:
            return nil
        }
    }

    static func rows(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?) throws
        -> (rows: [StatisticsSample], sources: [Int32: HKSource], range: DateInterval?) {
        let (database, fetch) = try store.sampleFetch(type: type, predicate: predicate)
        let (rows, sources) = try database.statisticsRows(type: type, predicate: fetch.predicate, scope: fetch.scope)
        return (rows, sources, dateRange(of: fetch.predicate.node))
    }

    static func statistics(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions) throws
        -> HKStatistics {
        try validate(options, type)
        let (rows, sources, range) = try rows(store: store, type: type, predicate: predicate)
        let clip = range.flatMap { $0.start == .distantPast || $0.end == .distantFuture ? nil : $0 }
        let computed: StatisticsBucket?
        do {
            computed = try StatisticsEngine.statistics(of: rows, style: type.aggregationStyle, options: options, clippingTo: clip)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
        guard let bucket = computed else {
            throw HKError(.errorNoData, "no data available for the specified predicate")
        }
        return HKStatistics(quantityType: type, interval: bucket.interval, values: bucket.values, bySource: bucket.valuesBySource,
                            sourceTable: sources)
    }

    static func collection(store: HKHealthStore, type: HKQuantityType, predicate: NSPredicate?, options: HKStatisticsOptions,
                           anchorDate: Date, intervalComponents: DateComponents, calendar: Calendar) throws -> HKStatisticsCollection {
        try validate(options, type)
        let grid: StatisticsIntervalGrid
        do {
            grid = try StatisticsIntervalGrid(anchorDate: anchorDate, intervalComponents: intervalComponents, calendar: calendar)
        } catch {
            throw HKError(.errorInvalidArgument, error.description)
        }
        let (rows, sources, range) = try rows(store: store, type: type, predicate: predicate)
        let result: StatisticsCollectionResult
        do {
            result = try StatisticsEngine.collection(of: rows, style: type.aggregationStyle, options: options, grid: grid, range: range)
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
