import Foundation

/// The async form of `HKAnchoredObjectQuery` (HealthKit's `HKAnchoredObjectQueryDescriptor`).
///
/// `result(for:)` reads once; `results(for:)` is a long-running sequence that yields the
/// initial changes and then every later change until the loop ends or its task is cancelled.
public struct HKAnchoredObjectQueryDescriptor<Sample: HKSample>: Sendable {
    /// One delivery of changes.
    public struct Result: Sendable {
        /// Samples added since the anchor.
        public let addedSamples: [Sample]
        /// Objects deleted since the anchor.
        public let deletedObjects: [HKDeletedObject]
        /// The anchor to continue from.
        public let newAnchor: HKQueryAnchor
    }

    /// The long-running sequence of changes (HealthKit's `HKAnchoredObjectQueryDescriptor.Results`).
    public typealias Results = QueryDescriptorResults<HKAnchoredObjectQueryDescriptor<Sample>.Result>

    /// What to read.
    public var predicates: [HKSamplePredicate<Sample>]
    /// Where to start; nil for everything currently stored.
    public var anchor: HKQueryAnchor?
    /// The maximum number of changes per delivery; nil for all.
    public var limit: Int?

    /// Creates a descriptor.
    public init(predicates: [HKSamplePredicate<Sample>], anchor: HKQueryAnchor?, limit: Int? = nil) {
        self.predicates = predicates
        self.anchor = anchor
        self.limit = limit
    }

    /// Reads the changes since the anchor once.
    public func result(for healthStore: HKHealthStore) async throws -> Result {
        let read = try await AnchoredRead.run(store: healthStore, descriptors: predicates.map(\.queryDescriptor), anchor: anchor,
                                        limit: limit ?? 0)
        return Result(addedSamples: read.samples.compactMap { $0 as? Sample }, deletedObjects: read.deleted, newAnchor: read.anchor)
    }

    /// The initial changes and then every later one, until the consumer stops iterating (or its
    /// task is cancelled).
    public func results(for healthStore: HKHealthStore) -> Results {
        Results(stream: AsyncThrowingStream { continuation in
            let handler: HKAnchoredObjectQuery.Handler = { _, added, deleted, anchor, error in
                if let error {
                    continuation.finish(throwing: error)
                    return
                }
                guard let anchor else { return }
                continuation.yield(Result(addedSamples: (added ?? []).compactMap { $0 as? Sample }, deletedObjects: deleted ?? [],
                                          newAnchor: anchor))
            }
            let query = HKAnchoredObjectQuery(queryDescriptors: predicates.map(\.queryDescriptor), anchor: anchor,
                                              limit: limit ?? 0, resultsHandler: handler)
            query.updateHandler = handler
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        })
    }
}
