import Foundation

/// Reads the medications a person tracks, one at a time (HealthKit's
/// `HKUserAnnotatedMedicationQuery`, iOS 26). An app sees the medications the person let it
/// read; none otherwise.
public final class HKUserAnnotatedMedicationQuery: HKQuery, @unchecked Sendable {
    private let limit: Int
    /// Not `@Sendable`, as Apple declares it: each execution of the query calls it from its own task, one call after
    /// another (a query executed twice at once calls it from two tasks, as HealthKit would from two queues).
    private let resultsHandler: (HKUserAnnotatedMedicationQuery, HKUserAnnotatedMedication?, Bool, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(predicate:limit:resultsHandler:)`.
    /// - Parameters:
    ///   - predicate: The predicate medications must match (`predicateForUserAnnotatedMedications(…)`), or nil.
    ///   - limit: The most medications to return; `HKObjectQueryNoLimit` for no limit.
    ///   - resultsHandler: Called once per medication with `done` false, then once with `done`
    ///     true and no medication (or with the error).
    public init(predicate: NSPredicate?, limit: Int,
                resultsHandler: @escaping (HKUserAnnotatedMedicationQuery, HKUserAnnotatedMedication?, Bool, (any Error)?) -> Void) {
        self.limit = limit
        self.resultsHandler = resultsHandler
        super.init(objectType: HKUserAnnotatedMedicationType(), predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let medications = try await store.userAnnotatedMedications(predicate: predicate, limit: limit == HKObjectQueryNoLimit ? nil : limit)
            for medication in medications {
                guard !lifecycle.isStopped else { return }
                resultsHandler(self, medication, false, nil)
            }
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, nil, true, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, nil, true, error)
        }
    }
}

/// The async form of ``HKUserAnnotatedMedicationQuery`` (HealthKit's
/// `HKUserAnnotatedMedicationQueryDescriptor`, iOS 26).
public struct HKUserAnnotatedMedicationQueryDescriptor: @unchecked Sendable {
    /// The predicate the medications must match (`predicateForUserAnnotatedMedications(…)`).
    public var predicate: NSPredicate?
    /// The most medications to return; nil for no limit.
    public var limit: Int?

    /// Creates a descriptor, as HealthKit's `init(predicate:limit:)`.
    /// - Parameters:
    ///   - predicate: The predicate the medications must match; nil for all.
    ///   - limit: The most medications to return; nil for no limit.
    public init(predicate: NSPredicate? = nil, limit: Int? = nil) {
        self.predicate = predicate
        self.limit = limit
    }

    /// The medications that match, in the order they were added; empty when none match or
    /// the app may not read medications.
    /// - Parameter healthStore: The store to read.
    public func result(for healthStore: HKHealthStore) async throws -> [HKUserAnnotatedMedication] {
        try await healthStore.userAnnotatedMedications(predicate: predicate, limit: limit)
    }
}
