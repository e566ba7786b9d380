import Foundation

/// Finds the sources that saved samples of a type (HealthKit's `HKSourceQuery`).
public final class HKSourceQuery: HKQuery, @unchecked Sendable {
    private let completionHandler: @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(sampleType:samplePredicate:completionHandler:)`.
    public init(sampleType: HKSampleType, samplePredicate objectPredicate: NSPredicate?,
                completionHandler: @escaping @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void) {
        self.completionHandler = completionHandler
        super.init(objectType: sampleType, predicate: objectPredicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let sources = try await SourceRead.run(store: store, type: sampleType ?? HKWorkoutType(), predicate: predicate)
            guard !lifecycle.isStopped else { return }
            completionHandler(self, sources, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            completionHandler(self, nil, error)
        }
    }
}

enum SourceRead {
    static func run(store: HKHealthStore, type: HKSampleType, predicate: NSPredicate?) async throws -> Set<HKSource> {
        let (database, fetch) = try await store.sampleFetch(type: type, predicate: predicate)
        return try await database.sources(types: fetch.types, predicate: fetch.predicate, scope: fetch.scope)
    }
}
