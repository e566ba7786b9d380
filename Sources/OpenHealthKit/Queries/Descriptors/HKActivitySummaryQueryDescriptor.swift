import Foundation
import Synchronization

/// The async form of ``HKActivitySummaryQuery`` (HealthKit's `HKActivitySummaryQueryDescriptor`).
///
/// `result(for:)` reads the matching summaries once, oldest day first; `results(for:)` is a
/// long-running sequence whose first element holds every matching summary and whose later
/// elements hold only the summaries saved since (a day's summary saved again comes again). The
/// sequence ends when the task iterating it is cancelled or stops iterating.
public struct HKActivitySummaryQueryDescriptor: @unchecked Sendable {
    /// The long-running sequence of activity summaries (HealthKit's
    /// `HKActivitySummaryQueryDescriptor.Results`).
    public typealias Results = QueryDescriptorResults<[HKActivitySummary]>

    /// The summaries to read; nil for every summary.
    public var predicate: NSPredicate?

    /// Creates a descriptor, as HealthKit's `init(predicate:)`.
    /// - Parameter predicate: Limits the summaries, e.g. `HKQuery.predicate(forActivitySummariesBetweenStart:end:)`; nil for all.
    public init(predicate: NSPredicate?) {
        self.predicate = predicate
    }

    /// Reads the matching summaries once, oldest day first.
    public func result(for healthStore: HKHealthStore) async throws -> [HKActivitySummary] {
        try await ActivitySummaryRead.run(store: healthStore, predicate: predicate).map(\.summary)
    }

    /// The matching summaries, then the ones saved after, until the consumer stops: an
    /// ``HKActivitySummaryQuery`` with an update handler, stopped when the sequence ends.
    public func results(for healthStore: HKHealthStore) -> Results {
        let predicate = UncheckedBox(predicate)
        let stream = AsyncThrowingStream<[HKActivitySummary], any Error> { continuation in
            let deliver: HKActivitySummaryQuery.Handler = { _, summaries, error in
                if let error { continuation.finish(throwing: error) } else { continuation.yield(summaries ?? []) }
            }
            let query = HKActivitySummaryQuery(predicate: predicate.value, resultsHandler: deliver)
            query.updateHandler = deliver
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        }
        return Results(stream: stream)
    }
}

/// Reads stored activity summaries, oldest day first.
enum ActivitySummaryRead {
    static func run(store: HKHealthStore, predicate: NSPredicate?) async throws -> [ActivitySummarySample] {
        try await store.readSamples(type: HKActivitySummaryType(), predicate: predicate,
                                    order: [SampleOrder(key: .startDate, ascending: true)], limit: 0)
            .compactMap { $0 as? ActivitySummarySample }
    }
}
