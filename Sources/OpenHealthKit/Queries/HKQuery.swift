import Foundation
import Synchronization

/// The abstract superclass of every query (HealthKit's `HKQuery`).
///
/// Run a query with `HKHealthStore.execute(_:)`; stop a long-running one with
/// `HKHealthStore.stop(_:)`. Result handlers are called on a background task, as HealthKit
/// calls them on a background queue.
open class HKQuery: NSObject, @unchecked Sendable {
    /// The type the query reads.
    public let objectType: HKObjectType?
    /// The predicate that limits the results.
    public let predicate: NSPredicate?

    /// The sample type the query reads.
    public var sampleType: HKSampleType? { objectType as? HKSampleType }

    let lifecycle = QueryLifecycle()

    init(objectType: HKObjectType?, predicate: NSPredicate?) {
        self.objectType = objectType
        self.predicate = predicate
        super.init()
    }

    /// Runs the query once against the store; long-running queries register themselves.
    /// Subclasses override this; the base implementation does nothing.
    func start(in store: HKHealthStore) async {}

    /// Called after a committed change touching `changes`; long-running queries override it.
    func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {}

    /// Makes the query long-running: `initial` runs first, then changes are delivered to
    /// `storeDidChange` one at a time, in commit order, until the query is stopped. Changes
    /// committed while `initial` runs wait in the queue, so they are never delivered before or
    /// alongside the first results.
    func listen(to store: HKHealthStore, initial: @escaping @Sendable () async -> Void) async {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChangeSet.self)
        guard lifecycle.setContinuation(continuation) else { return }
        await store.engine.register(self)
        lifecycle.beginRun()
        Task { [self] in
            await initial()
            for await changes in stream {
                if lifecycle.isStopped { break }
                await storeDidChange(changes, in: store)
                lifecycle.didProcessChange()
            }
            lifecycle.endRun()
        }
    }

    /// Queues a change for a long-running query.
    func enqueue(_ changes: StoreChangeSet) {
        lifecycle.yield(changes)
    }
}

/// Whether a query is running, and its long-running state, behind a lock.
///
/// It also counts the query's runs in progress (an execution, a long-running query's delivery
/// loop) and the changes it has processed, so that a caller (the tests) can wait for a query to
/// be idle, or to have handled a change, instead of sleeping.
final class QueryLifecycle: Sendable {
    private struct Waiter {
        var isSatisfied: @Sendable (_ activeRuns: Int, _ processed: Int) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var stopped = false
        var continuation: AsyncStream<StoreChangeSet>.Continuation?
        var activeRuns = 0
        var processed = 0
        var waiters: [Waiter] = []

        /// Removes and returns the waiters whose condition now holds.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                guard waiter.isSatisfied(activeRuns, processed) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
    }

    private let state = Mutex(State())

    /// A run starts (counted before its task is created, so a waiter never sees a gap).
    func beginRun() {
        state.withLock { $0.activeRuns += 1 }
    }

    /// A run ended: its handlers will not be called by it again.
    func endRun() {
        let ready = state.withLock { state in
            state.activeRuns -= 1
            return state.satisfiedWaiters()
        }
        for continuation in ready { continuation.resume() }
    }

    /// A long-running query finished handling one committed change (whether or not it called a handler).
    func didProcessChange() {
        let ready = state.withLock { state in
            state.processed += 1
            return state.satisfiedWaiters()
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns when no run of the query is in progress: after ``HKHealthStore/stop(_:)`` this
    /// means no handler will be called again.
    func waitUntilIdle() async {
        await wait { activeRuns, _ in activeRuns == 0 }
    }

    /// Returns when the query has handled at least `count` committed changes.
    func waitUntilProcessed(_ count: Int) async {
        await wait { _, processed in processed >= count }
    }

    private func wait(until condition: @escaping @Sendable (Int, Int) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if condition(state.activeRuns, state.processed) { return true }
                state.waiters.append(Waiter(isSatisfied: condition, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    func stop() {
        let continuation = state.withLock { state -> AsyncStream<StoreChangeSet>.Continuation? in
            state.stopped = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.finish()
    }

    /// Installs the queue of a long-running query; false (and the queue closed) when the
    /// query was stopped before it started.
    func setContinuation(_ continuation: AsyncStream<StoreChangeSet>.Continuation) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.continuation = continuation
            return true
        }
        if !accepted { continuation.finish() }
        return accepted
    }

    func yield(_ changes: StoreChangeSet) {
        _ = state.withLock { $0.continuation }?.yield(changes)
    }
}

/// What one committed write changed: per type identifier, the bundle identifiers of the
/// sources whose samples were added or deleted.
struct StoreChangeSet: Sendable {
    var sourcesByType: [String: Set<String>] = [:]
    /// What an insert stored and found already stored (``HKSaveCounts``).
    var saveCounts = HKSaveCounts()
    /// The pair inserted last: a save's rows come in runs of one type and source.
    private var last: (type: String, source: String)?

    mutating func insert(type: String, source: String) {
        if let last, last.type == type, last.source == source { return }
        sourcesByType[type, default: []].insert(source)
        last = (type, source)
    }

    var isEmpty: Bool { sourcesByType.isEmpty }
}
