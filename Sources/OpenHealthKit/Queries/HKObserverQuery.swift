import Foundation

/// The handler an observer's update handler must call when it has processed an update.
public typealias HKObserverQueryCompletionHandler = @Sendable () -> Void

/// Tells an app that samples of a type changed (HealthKit's `HKObserverQuery`).
///
/// The update handler runs once when the query starts and then after every committed save or
/// delete of a matching type that the caller may see (changes the caller cannot read raise
/// no notification). It does not say what changed: follow up with an anchored object query.
/// Notifications are delivered in-process while the query runs.
public final class HKObserverQuery: HKQuery, @unchecked Sendable {
    /// HealthKit's update-handler signature.
    public typealias UpdateHandler = @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void
    /// The update-handler signature of the multi-type form.
    public typealias DescriptorUpdateHandler = @Sendable (HKObserverQuery, Set<HKSampleType>?, @escaping HKObserverQueryCompletionHandler,
                                                         (any Error)?) -> Void

    /// The descriptors observed.
    public let queryDescriptors: [HKQueryDescriptor]
    private let updateHandler: DescriptorUpdateHandler

    /// Creates a query, as HealthKit's `init(sampleType:predicate:updateHandler:)`.
    public init(sampleType: HKSampleType, predicate: NSPredicate?, updateHandler: @escaping UpdateHandler) {
        self.queryDescriptors = [HKQueryDescriptor(sampleType: sampleType, predicate: predicate)]
        self.updateHandler = { query, _, completion, error in updateHandler(query, completion, error) }
        super.init(objectType: sampleType, predicate: predicate)
    }

    /// Creates a query over several types, as HealthKit's `init(queryDescriptors:updateHandler:)`.
    public init(queryDescriptors: [HKQueryDescriptor], updateHandler: @escaping DescriptorUpdateHandler) {
        self.queryDescriptors = queryDescriptors
        self.updateHandler = updateHandler
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            _ = try await store.engine.databaseAsync()
            for descriptor in queryDescriptors { _ = try HKQueryPredicate.node(from: descriptor.predicate) }
        } catch {
            updateHandler(self, nil, {}, error)
            return
        }
        await listen(to: store) { [self] in
            guard !lifecycle.isStopped else { return }
            updateHandler(self, Set(queryDescriptors.map(\.sampleType)), {}, nil)
        }
    }

    /// Fires for any visible change to an observed type. The descriptors' predicates are not
    /// evaluated against the change (HealthKit does not say what changed either): follow up
    /// with an anchored query.
    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        let changed = Set(queryDescriptors.map(\.sampleType).filter { store.isVisibleChange(changes, to: $0) })
        guard !changed.isEmpty, !lifecycle.isStopped else { return }
        updateHandler(self, changed, {}, nil)
    }
}
