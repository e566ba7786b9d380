import Foundation

/// The async form of `HKSourceQuery` (HealthKit's `HKSourceQueryDescriptor`).
public struct HKSourceQueryDescriptor<Sample: HKSample>: Sendable {
    /// What to look at.
    public var predicate: HKSamplePredicate<Sample>

    /// Creates a descriptor.
    public init(predicate: HKSamplePredicate<Sample>) {
        self.predicate = predicate
    }

    /// The sources that saved matching samples, ordered by name.
    public func result(for healthStore: HKHealthStore) async throws -> [HKSource] {
        try await SourceRead.run(store: healthStore, type: predicate.sampleType, predicate: predicate.nsPredicate)
            .sorted { ($0.name, $0.bundleIdentifier) < ($1.name, $1.bundleIdentifier) }
    }
}
