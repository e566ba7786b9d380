import Foundation
import Synchronization

/// Reads activity summaries (HealthKit's `HKActivitySummaryQuery`), oldest day first.
///
/// Predicates come from ``HKQuery/predicateForActivitySummary(with:)`` and
/// ``HKQuery/predicate(forActivitySummariesBetweenStart:end:)``; nil reads every summary.
/// An app reads them once authorized to read ``HKActivitySummaryType``. Setting
/// ``updateHandler`` before executing makes the query long-running: after the results, each
/// change hands it the matching summaries saved since (a day's summary saved again comes again)
/// until `HKHealthStore.stop(_:)`.
public final class HKActivitySummaryQuery: HKQuery, @unchecked Sendable {
    /// The handler signature HealthKit uses for results and updates.
    public typealias Handler = @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void

    private let resultsHandler: Handler
    private let handlers: Mutex<Handler?> = Mutex(nil)
    /// The stored summaries already handed over (a long-running query hands each over once).
    private let delivered = Mutex(Set<UUID>())

    /// Delivers the summaries saved after the results; set before executing to make the query
    /// long-running (HealthKit's `updateHandler`).
    public var updateHandler: Handler? {
        get { handlers.withLock { $0 } }
        set { handlers.withLock { $0 = newValue } }
    }

    /// Creates a query, as HealthKit's `init(predicate:resultsHandler:)`.
    public init(predicate: NSPredicate?, resultsHandler handler: @escaping Handler) {
        resultsHandler = handler
        super.init(objectType: HKActivitySummaryType(), predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        guard updateHandler != nil else {
            await read(store, first: true)
            return
        }
        await listen(to: store) { [self] in
            await read(store, first: true)
        }
    }

    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        guard store.isVisibleChange(changes, to: HKActivitySummaryType()) else { return }
        await read(store, first: false)
    }

    /// Reads the summaries: all of them to the results handler the first time, then those not
    /// delivered before to the update handler.
    private func read(_ store: HKHealthStore, first: Bool) async {
        let handler = first ? resultsHandler : updateHandler
        do {
            let stored = try await ActivitySummaryRead.run(store: store, predicate: predicate)
            let fresh = delivered.withLock { seen in
                defer { seen = Set(stored.map(\.uuid)) }
                return stored.filter { !seen.contains($0.uuid) }
            }
            guard !lifecycle.isStopped, first || !fresh.isEmpty else { return }
            handler?(self, fresh.map(\.summary), nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            handler?(self, nil, error)
        }
    }
}

extension HKQuery {
    /// Matches the activity summary of one day (`dateComponents` needs year, month and day;
    /// a day that does not exist matches nothing).
    public class func predicateForActivitySummary(with dateComponents: DateComponents) -> NSPredicate {
        predicate(forActivitySummariesBetweenStart: dateComponents, end: dateComponents)
    }

    /// Matches the activity summaries from the day `startDateComponents` through the day
    /// `endDateComponents`, both included.
    public class func predicate(forActivitySummariesBetweenStart startDateComponents: DateComponents,
                                end endDateComponents: DateComponents) -> NSPredicate {
        guard let first = HKActivitySummary.day(of: startDateComponents), let last = HKActivitySummary.day(of: endDateComponents) else {
            return NSPredicate(value: false)
        }
        let start = HKActivitySummary.storedStart(of: first)
        let end = HKActivitySummary.storedStart(of: last).addingTimeInterval(86_400)
        return predicateForSamples(withStart: start, end: end, options: [.strictStartDate, .strictEndDate])
    }
}
