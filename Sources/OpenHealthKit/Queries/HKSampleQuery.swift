import Foundation

/// Reads samples once (HealthKit's `HKSampleQuery`).
///
/// Samples of types the caller may not read are left out exactly as if they did not exist,
/// except samples the caller saved itself while it may share the type.
public final class HKSampleQuery: HKQuery, @unchecked Sendable {
    /// The maximum number of samples; `HKObjectQueryNoLimit` for all.
    public let limit: Int
    /// The order of the results.
    public let sortDescriptors: [NSSortDescriptor]?
    /// The descriptors, for a query over several types.
    public let queryDescriptors: [HKQueryDescriptor]
    private let resultsHandler: @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(sampleType:predicate:limit:sortDescriptors:resultsHandler:)`.
    public init(sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
                resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.queryDescriptors = [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)]
        self.resultsHandler = resultsHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    /// Creates a query over several types, as HealthKit's `init(queryDescriptors:limit:resultsHandler:)`.
    public convenience init(queryDescriptors: [HKQueryDescriptor], limit: Int,
                            resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void) {
        self.init(queryDescriptors: queryDescriptors, limit: limit, sortDescriptors: nil, resultsHandler: resultsHandler)
    }

    /// Creates a sorted query over several types.
    public init(queryDescriptors: [HKQueryDescriptor], limit: Int, sortDescriptors: [NSSortDescriptor]?,
                resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.queryDescriptors = queryDescriptors
        self.resultsHandler = resultsHandler
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let samples = try await store.readSamples(descriptors: queryDescriptors, order: SampleOrder.from(sortDescriptors), limit: limit)
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, samples, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, nil, error)
        }
    }
}
