import Foundation
import Synchronization

/// Computes statistics for every calendar interval (HealthKit's `HKStatisticsCollectionQuery`).
///
/// Intervals extend from `anchorDate` in both directions by `intervalComponents`, stepped with
/// a calendar, so a daily interval on a DST day lasts 23 or 25 hours. Setting
/// `statisticsUpdateHandler` before executing makes the query long-running.
public final class HKStatisticsCollectionQuery: HKQuery, @unchecked Sendable {
    /// The initial-results signature.
    public typealias ResultsHandler = @Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void
    /// The update signature: the statistics of an interval that changed, and the new collection.
    public typealias UpdateHandler = @Sendable (HKStatisticsCollectionQuery, HKStatistics?, HKStatisticsCollection?, (any Error)?) -> Void

    /// The anchor intervals extend from.
    public let anchorDate: Date
    /// The statistics requested.
    public let options: HKStatisticsOptions
    /// The length of each interval.
    public let intervalComponents: DateComponents

    private struct Handlers {
        var initial: ResultsHandler?
        var update: UpdateHandler?
        var grouped: (@Sendable ([HKStatistics], HKStatisticsCollection) -> Void)?
        var calendar: Calendar = .current
        var last: HKStatisticsCollection?
    }

    private let state = Mutex(Handlers())

    /// Receives the first results.
    public var initialResultsHandler: ResultsHandler? {
        get { state.withLock { $0.initial } }
        set { state.withLock { $0.initial = newValue } }
    }

    /// Receives updates after the first results; makes the query long-running.
    public var statisticsUpdateHandler: UpdateHandler? {
        get { state.withLock { $0.update } }
        set { state.withLock { $0.update = newValue } }
    }

    /// Receives every interval changed by one commit at once (the async descriptor's form).
    var groupedUpdateHandler: (@Sendable ([HKStatistics], HKStatisticsCollection) -> Void)? {
        get { state.withLock { $0.grouped } }
        set { state.withLock { $0.grouped = newValue } }
    }

    /// The calendar intervals are stepped with (OpenHealthKit API; HealthKit always uses the
    /// current calendar and time zone, which is the default here too).
    public var calendar: Calendar {
        get { state.withLock { $0.calendar } }
        set { state.withLock { $0.calendar = newValue } }
    }

    /// Creates a query, as HealthKit's `init(quantityType:quantitySamplePredicate:options:anchorDate:intervalComponents:)`.
    public init(quantityType: HKQuantityType, quantitySamplePredicate: NSPredicate?, options: HKStatisticsOptions,
                anchorDate: Date, intervalComponents: DateComponents) {
        self.anchorDate = anchorDate
        self.options = options
        self.intervalComponents = intervalComponents
        super.init(objectType: quantityType, predicate: quantitySamplePredicate)
    }

    /// The quantity type.
    public var quantityType: HKQuantityType {
        objectType as? HKQuantityType ?? HKQuantityType(HKQuantityTypeIdentifier(rawValue: objectType?.identifier ?? ""))
    }

    func compute(in store: HKHealthStore) async throws -> HKStatisticsCollection {
        try await StatisticsRead.collection(store: store, type: quantityType, predicate: predicate, options: options,
                                      anchorDate: anchorDate, intervalComponents: intervalComponents, calendar: calendar)
    }

    override func start(in store: HKHealthStore) async {
        if statisticsUpdateHandler != nil || groupedUpdateHandler != nil {
            // The first results are computed inside the listening task, so updates follow them.
            await listen(to: store) { [self] in await deliverInitial(store) }
        } else {
            await deliverInitial(store)
        }
    }

    private func deliverInitial(_ store: HKHealthStore) async {
        do {
            let collection = try await compute(in: store)
            state.withLock { $0.last = collection }
            guard !lifecycle.isStopped else { return }
            initialResultsHandler?(self, collection, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            initialResultsHandler?(self, nil, error)
        }
    }

    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        guard store.isVisibleChange(changes, to: quantityType) else { return }
        do {
            let collection = try await compute(in: store)
            let previous = state.withLock { state -> HKStatisticsCollection? in
                defer { state.last = collection }
                return state.last
            }
            let before = Dictionary(previous?.result.buckets.map { ($0.index, $0) } ?? [], uniquingKeysWith: { a, _ in a })
            var changed = collection.statistics().enumerated().filter { offset, _ in
                let bucket = collection.result.buckets[offset]
                return before[bucket.index] != bucket
            }.map(\.element)
            let now = Set(collection.result.buckets.map(\.index))
            for (index, bucket) in before where !now.contains(index) {
                changed.append(HKStatistics(quantityType: quantityType, interval: bucket.interval, values: nil, bySource: nil,
                                            sourceTable: [:]))
            }
            guard !lifecycle.isStopped, !changed.isEmpty else { return }
            groupedUpdateHandler?(changed, collection)
            if let handler = statisticsUpdateHandler {
                for statistics in changed { handler(self, statistics, collection, nil) }
            }
        } catch {
            guard !lifecycle.isStopped else { return }
            statisticsUpdateHandler?(self, nil, nil, error)
        }
    }
}
