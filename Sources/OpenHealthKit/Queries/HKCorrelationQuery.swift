import Foundation

/// Reads correlations, optionally requiring members that match per-type predicates
/// (HealthKit's `HKCorrelationQuery`).
public final class HKCorrelationQuery: HKQuery, @unchecked Sendable {
    /// The correlation type.
    public let correlationType: HKCorrelationType
    /// Per member type, a predicate some member of that type must match.
    public let samplePredicates: [HKSampleType: NSPredicate]?
    private let completion: @Sendable (HKCorrelationQuery, [HKCorrelation]?, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(type:predicate:samplePredicates:completion:)`.
    public init(type correlationType: HKCorrelationType, predicate: NSPredicate?, samplePredicates: [HKSampleType: NSPredicate]?,
                completion: @escaping @Sendable (HKCorrelationQuery, [HKCorrelation]?, (any Error)?) -> Void) {
        self.correlationType = correlationType
        self.samplePredicates = samplePredicates
        self.completion = completion
        super.init(objectType: correlationType, predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let result = try await CorrelationRead.run(store: store, type: correlationType, predicate: predicate,
                                                 samplePredicates: samplePredicates ?? [:])
            guard !lifecycle.isStopped else { return }
            completion(self, result, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            completion(self, nil, error)
        }
    }
}

enum CorrelationRead {
    static func run(store: HKHealthStore, type: HKCorrelationType, predicate: NSPredicate?,
                    samplePredicates: [HKSampleType: NSPredicate]) async throws -> [HKCorrelation] {
        var correlations = try await store.readSamples(type: type, predicate: predicate,
                                                 order: [SampleOrder(key: .startDate, ascending: true)], limit: 0)
            .compactMap { $0 as? HKCorrelation }
        for (memberType, memberPredicate) in samplePredicates {
            let matching = Set(try await store.readSamples(type: memberType, predicate: memberPredicate, order: [], limit: 0).map(\.uuid))
            correlations = correlations.filter { correlation in
                correlation.objects.contains { $0.sampleType == memberType && matching.contains($0.uuid) }
            }
        }
        return correlations
    }
}
