import FhirBlocksStore
import Synchronization

/// Group commit of audit entries: requests whose only write is their audit entry hand it to
/// ``commit(_:writer:afterGroup:)``, which waits; the writer takes every entry waiting, appends
/// them in one transaction (in the order they arrived, so the log's order is the commit order),
/// and resumes each request with its own indexes once the transaction is durable. While it
/// writes, newer entries gather for the next transaction, so under load one commit covers many
/// requests, and an idle server commits a lone entry at once.
///
/// A writer task takes the groups one after the other and hands each to the store; the store's
/// completion (on the store's own thread, right after `COMMIT`) resumes the group's requests at
/// once, and then the writer task, which takes the next group. The requests thus wait for no
/// hop back to a task; the writer task's own hop is the time in which the next group gathers
/// (under load, several requests a transaction rather than one each).
///
/// A failed transaction fails every request of its group (nothing of it was stored). Work that
/// may follow a durable group (signing a checkpoint) runs on a task of its own after the group's
/// requests were resumed, one such piece of work at a time in the groups' order, beside the
/// next groups' writes: it adds nothing to the answers of the group it follows.
final class AuditGroupCommitter: Sendable {
    /// Commits one combined change and calls its completion once with the log indexes of its
    /// entries, in order, as soon as the transaction ended (on the store's thread).
    typealias Writer = @Sendable (TrustChange, @escaping @Sendable (Result<[Int], TrustStoreError>) -> Void) -> Void
    /// Work that follows a durable group.
    typealias FollowUp = @Sendable () async -> Void
    /// Called (on the store's thread, after the group's requests were resumed) with a durable
    /// group's indexes; returns the work to run after it, if any. It must not block.
    typealias AfterGroup = @Sendable ([Int]) -> FollowUp?

    private struct Waiting: Sendable {
        let entries: [PendingAuditEntry]
        let continuation: CheckedContinuation<Result<[Int], TrustStoreError>, Never>
    }

    private struct Queue: Sendable {
        var waiting: [Waiting] = []
        /// A writer task runs.
        var writing = false
        /// Follow-up work not yet started, in the groups' order.
        var followUps: [FollowUp] = []
        /// A task runs follow-up work.
        var followingUp = false
        /// Callers of ``idle()`` waiting for the writes and their follow-up work to end.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        var isIdle: Bool { !writing && !followingUp && waiting.isEmpty }

        /// The idle waiters to resume when nothing is left to do (emptied).
        mutating func takeIdleWaiters() -> [CheckedContinuation<Void, Never>] {
            guard isIdle else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }

    private let queue = Mutex(Queue())

    /// Creates a committer with nothing waiting.
    init() {}

    /// How many entries wait for the next group (not counting the group being written).
    var waitingEntries: Int {
        queue.withLock { queue in queue.waiting.reduce(0) { $0 + $1.entries.count } }
    }

    /// Appends `entries` (in this order, contiguously) with the next group and returns their
    /// indexes once the group's transaction committed. `writer` commits a group and
    /// `afterGroup` follows each durable one (every caller passes the same ones; the writer
    /// uses those of the request that found it idle until it is idle again).
    func commit(_ entries: [PendingAuditEntry], writer: @escaping Writer, afterGroup: @escaping AfterGroup) async throws(TrustStoreError) -> [Int] {
        if entries.isEmpty { return [] }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[Int], TrustStoreError>, Never>) in
            let startWriter = queue.withLock { queue in
                queue.waiting.append(Waiting(entries: entries, continuation: continuation))
                guard !queue.writing else { return false }
                queue.writing = true
                return true
            }
            if startWriter { Task { await self.drain(writer, afterGroup: afterGroup) } }
        }
        return try result.get()
    }

    /// How many callers of ``idle()`` wait.
    var idleWaiterCount: Int {
        queue.withLock { $0.idleWaiters.count }
    }

    /// Returns once no group is being written and none waits, and the work that follows the
    /// groups (their checkpoints) is done: what a server awaits before it closes its store.
    func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = queue.withLock { queue -> Bool in
                guard !queue.isIdle else { return true }
                queue.idleWaiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// Writes groups until nothing waits, then stops (the next request starts a new writer task).
    private func drain(_ writer: @escaping Writer, afterGroup: @escaping AfterGroup) async {
        while true {
            let (group, idleWaiters) = queue.withLock { queue -> ([Waiting], [CheckedContinuation<Void, Never>]) in
                defer { queue.waiting = [] }
                guard queue.waiting.isEmpty else { return (queue.waiting, []) }
                queue.writing = false
                return ([], queue.takeIdleWaiters())
            }
            if group.isEmpty {
                for waiter in idleWaiters { waiter.resume() }
                return
            }
            await withCheckedContinuation { (written: CheckedContinuation<Void, Never>) in
                var change = TrustChange()
                change.auditEntries = group.flatMap(\.entries)
                let count = change.auditEntries.count
                writer(change) { [self] result in
                    finish(group, with: result.flatMap { indexes in
                        indexes.count == count ? .success(indexes) : .failure(TrustStoreError.corrupt("audit_entry"))
                    }, afterGroup: afterGroup)
                    written.resume()
                }
            }
        }
    }

    /// Resumes the requests of a written group (on the store's thread) and queues its
    /// follow-up work.
    private func finish(_ group: [Waiting], with result: Result<[Int], TrustStoreError>, afterGroup: AfterGroup) {
        switch result {
        case .failure(let error):
            for waiting in group { waiting.continuation.resume(returning: .failure(error)) }
        case .success(let indexes):
            var start = 0
            for waiting in group {
                waiting.continuation.resume(returning: .success(Array(indexes[start..<(start + waiting.entries.count)])))
                start += waiting.entries.count
            }
            guard let followUp = afterGroup(indexes) else { return }
            let startFollowUps = queue.withLock { queue -> Bool in
                queue.followUps.append(followUp)
                guard !queue.followingUp else { return false }
                queue.followingUp = true
                return true
            }
            if startFollowUps { Task { await self.runFollowUps() } }
        }
    }

    /// Runs the queued follow-up work in order until none is left.
    private func runFollowUps() async {
        while true {
            let (work, idleWaiters) = queue.withLock { queue -> (FollowUp?, [CheckedContinuation<Void, Never>]) in
                guard queue.followUps.isEmpty else { return (queue.followUps.removeFirst(), []) }
                queue.followingUp = false
                return (nil, queue.takeIdleWaiters())
            }
            guard let work else {
                for waiter in idleWaiters { waiter.resume() }
                return
            }
            await work()
        }
    }
}
