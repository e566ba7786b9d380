import Foundation

/// The async form of `HKObserverQuery`: a sequence that yields the changed sample types, once
/// at the start and after every visible change, until the consumer stops iterating.
///
/// Not part of Apple's HealthKit (Apple documents no async form of `HKObserverQuery`): an
/// OpenHealthKit addition, so code written for Apple's HealthKit never depends on it, and code
/// that uses it does not build against Apple's framework. Ported code keeps using
/// `HKObserverQuery` with its update handler, which behaves as Apple's.
public struct HKObserverQueryDescriptor: Sendable {
    /// The types to observe.
    public var predicates: [HKSamplePredicate<HKSample>]

    /// Creates a descriptor.
    public init(predicates: [HKSamplePredicate<HKSample>]) {
        self.predicates = predicates
    }

    /// The changed types, as they change.
    public func results(for healthStore: HKHealthStore) -> AsyncThrowingStream<Set<HKSampleType>, any Error> {
        AsyncThrowingStream { continuation in
            let query = HKObserverQuery(queryDescriptors: predicates.map(\.queryDescriptor)) { _, types, completion, error in
                if let error {
                    continuation.finish(throwing: error)
                } else {
                    continuation.yield(types ?? [])
                }
                completion()
            }
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        }
    }
}
