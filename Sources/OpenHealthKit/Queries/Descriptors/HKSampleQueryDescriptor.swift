import Foundation

/// The async form of `HKSampleQuery` (HealthKit's `HKSampleQueryDescriptor`).
///
/// ```swift
/// let descriptor = HKSampleQueryDescriptor(
///     predicates: [.quantitySample(type: HKQuantityType(.heartRate))],
///     sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)],
///     limit: 10)
/// let samples = try await descriptor.result(for: store)
/// ```
public struct HKSampleQueryDescriptor<Sample: HKSample>: Sendable {
    /// What to read.
    public var predicates: [HKSamplePredicate<Sample>]
    /// The order: by start or end date, or by any other key path of the sample (sorted once read).
    public var sortDescriptors: [SortDescriptor<Sample>]
    /// The maximum number of samples; nil for all.
    public var limit: Int?

    /// Creates a descriptor.
    public init(predicates: [HKSamplePredicate<Sample>], sortDescriptors: [SortDescriptor<Sample>], limit: Int? = nil) {
        self.predicates = predicates
        self.sortDescriptors = sortDescriptors
        self.limit = limit
    }

    /// Runs the query.
    public func result(for healthStore: HKHealthStore) async throws -> [Sample] {
        let orders = sortDescriptors.map { descriptor in
            let keyPath = descriptor.keyPath
            if keyPath == \Sample.startDate as PartialKeyPath<Sample> { return SampleOrder(key: .startDate, ascending: descriptor.order == .forward) }
            if keyPath == \Sample.endDate as PartialKeyPath<Sample> { return SampleOrder(key: .endDate, ascending: descriptor.order == .forward) }
            // Any other key path (a workout's duration, a sample's UUID string): sorted once read;
            // the descriptor compares in its own order.
            return SampleOrder(key: .other(SampleComparator { lhs, rhs in
                guard let lhs = lhs as? Sample, let rhs = rhs as? Sample else {
                    let missing = SampleOrder.missingFirst(lhs is Sample, rhs is Sample) ?? .orderedSame
                    return descriptor.order == .forward ? missing : SampleOrder.reversed(missing)
                }
                return descriptor.compare(lhs, rhs)
            }), ascending: true)
        }
        return try await healthStore.readSamples(descriptors: predicates.map(\.queryDescriptor), order: orders, limit: limit ?? 0)
            .compactMap { $0 as? Sample }
    }
}
