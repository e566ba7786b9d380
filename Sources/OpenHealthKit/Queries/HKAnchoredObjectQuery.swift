import Foundation
import Synchronization

/// Reads what changed since an anchor: added samples and deleted objects, and the anchor to
/// continue from (HealthKit's `HKAnchoredObjectQuery`).
///
/// A nil anchor returns everything currently stored. With a `limit` the changes come in
/// batches: run again with the returned anchor until nothing new comes back. Setting
/// `updateHandler` before executing makes the query long-running: every later change is
/// delivered there until `HKHealthStore.stop(_:)`.
public final class HKAnchoredObjectQuery: HKQuery, @unchecked Sendable {
    /// The handler signature HealthKit uses for results and updates.
    public typealias Handler = @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void

    /// The maximum number of changes per delivery; `HKObjectQueryNoLimit` for all.
    public let limit: Int
    /// The descriptors the query reads.
    public let queryDescriptors: [HKQueryDescriptor]
    private let resultsHandler: Handler?
    private let handlers: Mutex<Handler?> = Mutex(nil)
    private let anchor: Mutex<HKQueryAnchor?>

    /// Delivers later changes; set before executing to make the query long-running.
    public var updateHandler: Handler? {
        get { handlers.withLock { $0 } }
        set { handlers.withLock { $0 = newValue } }
    }

    /// Creates a query, as HealthKit's `init(type:predicate:anchor:limit:resultsHandler:)`.
    public init(type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int, resultsHandler handler: Handler?) {
        self.limit = limit
        self.queryDescriptors = [HKQueryDescriptor(sampleType: type, predicate: predicate)]
        self.resultsHandler = handler
        self.anchor = Mutex(anchor)
        super.init(objectType: type, predicate: predicate)
    }

    /// Creates a query over several types, as HealthKit's `init(queryDescriptors:anchor:limit:resultsHandler:)`.
    public init(queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int, resultsHandler handler: Handler?) {
        self.limit = limit
        self.queryDescriptors = queryDescriptors
        self.resultsHandler = handler
        self.anchor = Mutex(anchor)
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }

    override func start(in store: HKHealthStore) async {
        let long = updateHandler != nil
        // Register before reading, so a change committed during the first read is not missed.
        if long { listen(to: store) }
        deliver(store, to: resultsHandler)
    }

    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        let relevant = queryDescriptors.contains { descriptor in
            changes.sourcesByType[descriptor.sampleType.identifier]?.contains {
                store.engine.canSee(type: descriptor.sampleType.identifier, source: $0)
            } ?? false
        }
        guard relevant else { return }
        deliver(store, to: updateHandler, skipEmpty: true)
    }

    /// Reads from the current anchor and hands the result over. Updates that found nothing new
    /// (a save and a delete coalesced into an earlier delivery) are not delivered.
    private func deliver(_ store: HKHealthStore, to handler: Handler?, skipEmpty: Bool = false) {
        do {
            let result = try AnchoredRead.run(store: store, descriptors: queryDescriptors,
                                              anchor: anchor.withLock { $0 }, limit: limit)
            anchor.withLock { $0 = result.anchor }
            guard !lifecycle.isStopped, !(skipEmpty && result.samples.isEmpty && result.deleted.isEmpty) else { return }
            handler?(self, result.samples, result.deleted, result.anchor, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            handler?(self, nil, nil, nil, error)
        }
    }
}

/// One anchored read over descriptors, shared by the callback query and its descriptor.
enum AnchoredRead {
    static func run(store: HKHealthStore, descriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int) throws
        -> (samples: [HKSample], deleted: [HKDeletedObject], anchor: HKQueryAnchor) {
        let database = try store.engine.database()
        let after = try anchor?.position(in: database)
        let through = try database.anchorBound(after: after)
        var batches: [ChangeBatch] = []
        for descriptor in descriptors {
            var (_, fetch) = try store.sampleFetch(type: descriptor.sampleType, predicate: descriptor.predicate)
            fetch.limit = limit
            batches.append(try database.changes(fetch: fetch, after: after, through: through))
        }
        let merged = ChangeBatch.merge(batches, limit: limit, through: through)
        return (merged.samples, merged.deleted, HKQueryAnchor(storeID: database.storeID, sequence: merged.anchor))
    }
}
