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

    /// The matching summaries, then the ones saved after, until the consumer stops.
    public func results(for healthStore: HKHealthStore) -> Results {
        let predicate = UncheckedBox(predicate)
        let stream = AsyncThrowingStream<[HKActivitySummary], any Error> { continuation in
            let query = ActivitySummaryUpdatesQuery(predicate: predicate.value) { result in
                switch result {
                case .success(let summaries): continuation.yield(summaries)
                case .failure(let error): continuation.finish(throwing: error)
                }
            }
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

/// The long-running query behind ``HKActivitySummaryQueryDescriptor/results(for:)``: delivers
/// every matching summary, then, after each visible change, the summaries it has not delivered
/// yet (a summary saved again is a new stored row).
final class ActivitySummaryUpdatesQuery: HKQuery, @unchecked Sendable {
    private let deliver: @Sendable (Result<[HKActivitySummary], any Error>) -> Void
    private let deliveries = ActivitySummaryDeliveries()

    init(predicate: NSPredicate?, deliver: @escaping @Sendable (Result<[HKActivitySummary], any Error>) -> Void) {
        self.deliver = deliver
        super.init(objectType: HKActivitySummaryType(), predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        await listen(to: store) { [self] in
            await read(store, first: true)
        }
    }

    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        guard store.isVisibleChange(changes, to: HKActivitySummaryType()) else { return }
        await read(store, first: false)
    }

    /// Reads the summaries and delivers those not delivered before (all of them the first time).
    private func read(_ store: HKHealthStore, first: Bool) async {
        do {
            let fresh = deliveries.fresh(try await ActivitySummaryRead.run(store: store, predicate: predicate))
            guard !lifecycle.isStopped, first || !fresh.isEmpty else { return }
            deliver(.success(fresh.map(\.summary)))
        } catch {
            guard !lifecycle.isStopped else { return }
            deliver(.failure(error))
        }
    }
}
