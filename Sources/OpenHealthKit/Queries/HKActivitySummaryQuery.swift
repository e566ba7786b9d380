import Foundation

/// Reads activity summaries once (HealthKit's `HKActivitySummaryQuery`), oldest day first.
///
/// Predicates come from ``HKQuery/predicateForActivitySummary(with:)`` and
/// ``HKQuery/predicate(forActivitySummariesBetweenStart:end:)``; nil reads every summary.
/// An app reads them once authorized to read ``HKActivitySummaryType``.
public final class HKActivitySummaryQuery: HKQuery, @unchecked Sendable {
    private let resultsHandler: @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(predicate:resultsHandler:)`.
    public init(predicate: NSPredicate?,
                resultsHandler handler: @escaping @Sendable (HKActivitySummaryQuery, [HKActivitySummary]?, (any Error)?) -> Void) {
        resultsHandler = handler
        super.init(objectType: HKActivitySummaryType(), predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let summaries = try await store.readSamples(type: HKActivitySummaryType(), predicate: predicate,
                                                  order: [SampleOrder(key: .startDate, ascending: true)], limit: 0)
                .compactMap { ($0 as? ActivitySummarySample)?.summary }
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, summaries, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, nil, error)
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
