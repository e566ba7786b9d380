import Foundation

/// The async form of `HKCorrelationQuery` (HealthKit's `HKCorrelationQueryDescriptor`).
public struct HKCorrelationQueryDescriptor: Sendable {
    /// The correlations to read.
    public var predicate: HKSamplePredicate<HKCorrelation>
    /// Member predicates: each must be matched by some member of its type.
    public var samplePredicates: [HKSamplePredicate<HKSample>]

    /// Creates a descriptor.
    public init(predicate: HKSamplePredicate<HKCorrelation>, samplePredicates: [HKSamplePredicate<HKSample>] = []) {
        self.predicate = predicate
        self.samplePredicates = samplePredicates
    }

    /// Runs the query.
    public func result(for healthStore: HKHealthStore) async throws -> [HKCorrelation] {
        guard let type = predicate.sampleType as? HKCorrelationType else {
            throw HKError(.errorInvalidArgument, "a correlation query needs a correlation type")
        }
        var members: [HKSampleType: NSPredicate] = [:]
        for item in samplePredicates { members[item.sampleType] = item.nsPredicate ?? NSPredicate(value: true) }
        return try await CorrelationRead.run(store: healthStore, type: type, predicate: predicate.nsPredicate, samplePredicates: members)
    }
}
