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

    /// Whether deletions are read and reported (not by the iOS 8 integer-anchor form).
    private let reportsDeletions: Bool

    /// Creates a query, as HealthKit's `init(type:predicate:anchor:limit:resultsHandler:)`.
    public convenience init(type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int, resultsHandler handler: Handler?) {
        self.init(queryDescriptors: [HKQueryDescriptor(sampleType: type, predicate: predicate)], anchor: anchor, limit: limit,
                  reportsDeletions: true, resultsHandler: handler)
    }

    /// Creates a query with an integer anchor, as HealthKit's iOS 8
    /// `init(type:predicate:anchor:limit:completionHandler:)` (deprecated in iOS 9): pass
    /// `HKAnchoredObjectQueryNoAnchor` the first time and the anchor handed back after. It reports
    /// added samples only, as there; deletions need the `HKQueryAnchor` form.
    public convenience init(type: HKSampleType, predicate: NSPredicate?, anchor: Int, limit: Int,
                            completionHandler handler: @escaping @Sendable (HKAnchoredObjectQuery, [HKSample]?, Int, (any Error)?) -> Void) {
        self.init(queryDescriptors: [HKQueryDescriptor(sampleType: type, predicate: predicate)], anchor: HKQueryAnchor(fromValue: anchor),
                  limit: limit, reportsDeletions: false) { query, samples, _, newAnchor, error in
            handler(query, samples, newAnchor.map { Int($0.sequence) } ?? anchor, error)
        }
    }

    /// Creates a query over several types, as HealthKit's `init(queryDescriptors:anchor:limit:resultsHandler:)`.
    public convenience init(queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int, resultsHandler handler: Handler?) {
        self.init(queryDescriptors: queryDescriptors, anchor: anchor, limit: limit, reportsDeletions: true, resultsHandler: handler)
    }

    private init(queryDescriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int, reportsDeletions: Bool, resultsHandler handler: Handler?) {
        self.limit = limit
        self.queryDescriptors = queryDescriptors
        self.resultsHandler = handler
        self.anchor = Mutex(anchor)
        self.reportsDeletions = reportsDeletions
        super.init(objectType: queryDescriptors.first?.sampleType, predicate: queryDescriptors.first?.predicate)
    }

    override func start(in store: HKHealthStore) async {
        guard updateHandler != nil else {
            await deliver(store, to: resultsHandler, skipEmpty: false)
            return
        }
        // The first results are read inside the listening task, so a change committed while
        // they are read is delivered after them, from the anchor they returned.
        await listen(to: store) { [self] in
            await deliverAll(store, first: true)
        }
    }

    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        guard queryDescriptors.contains(where: { store.isVisibleChange(changes, to: $0.sampleType) }) else { return }
        await deliverAll(store, first: false)
    }

    /// Delivers page after page while pages come back full, so a long-running query with a
    /// limit does not leave changes waiting for some later, unrelated change.
    private func deliverAll(_ store: HKHealthStore, first: Bool) async {
        var isFirst = first
        while true {
            let count = await deliver(store, to: isFirst ? resultsHandler : updateHandler, skipEmpty: !isFirst)
            isFirst = false
            guard limit > 0, count >= limit, !lifecycle.isStopped else { return }
        }
    }

    /// Reads from the current anchor and hands the result over. Updates that found nothing new
    /// (a save and a delete coalesced into an earlier delivery) are not delivered.
    /// - Returns: how many changes were delivered.
    @discardableResult
    private func deliver(_ store: HKHealthStore, to handler: Handler?, skipEmpty: Bool) async -> Int {
        do {
            let result = try await AnchoredRead.run(store: store, descriptors: queryDescriptors,
                                              anchor: anchor.withLock { $0 }, limit: limit, deletions: reportsDeletions)
            anchor.withLock { $0 = result.anchor }
            let count = result.samples.count + result.deleted.count
            guard !lifecycle.isStopped, !(skipEmpty && count == 0) else { return count }
            handler?(self, result.samples, result.deleted, result.anchor, nil)
            return count
        } catch {
            guard !lifecycle.isStopped else { return 0 }
            handler?(self, nil, nil, nil, error)
            return 0
        }
    }
}

/// One anchored read over descriptors, shared by the callback query and its descriptor.
enum AnchoredRead {
    /// Reads every descriptor in one read transaction, so a deletion pruned by another writer
    /// cannot slip between the anchor check and the reads. Without `deletions` only added
    /// samples are read (and count towards the limit), and an anchor older than the kept
    /// deletion history is still good.
    static func run(store: HKHealthStore, descriptors: [HKQueryDescriptor], anchor: HKQueryAnchor?, limit: Int, deletions: Bool = true) async throws
        -> (samples: [HKSample], deleted: [HKDeletedObject], anchor: HKQueryAnchor) {
        let database = try await store.engine.databaseAsync()
        let after = try anchor?.position(in: database)
        var fetches: [SampleFetch] = []
        for descriptor in descriptors {
            var (_, fetch) = try await store.sampleFetch(type: descriptor.sampleType, predicate: descriptor.predicate)
            fetch.limit = limit
            fetches.append(fetch)
        }
        let chosen = fetches
        let (batches, through) = try await database.readChanges(after: after, deletions: deletions) { db, through in
            (try chosen.map { try database.changes(db, fetch: $0, after: after, through: through, deletions: deletions) }, through)
        }
        let merged = ChangeBatch.merge(batches, limit: limit, through: through)
        return (merged.samples, merged.deleted, HKQueryAnchor(storeID: database.storeID, sequence: merged.anchor))
    }
}
