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
    /// The order (start or end date).
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
            SampleOrder(key: descriptor.keyPath == \Sample.endDate as PartialKeyPath<Sample> ? .endDate : .startDate,
                        ascending: descriptor.order == .forward)
        }
        return try await healthStore.readSamples(descriptors: predicates.map(\.queryDescriptor), order: orders, limit: limit ?? 0)
            .compactMap { $0 as? Sample }
    }
}
