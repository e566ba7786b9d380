import FhirBlocksStore
import Synchronization

/// Group commit of audit entries: requests whose only write is their audit entry hand it to
/// ``commit(_:)``, which waits; one writer task takes every entry waiting, appends them in one
/// transaction (in the order they arrived, so the log's order is the commit order), and
/// resumes each request with its own indexes once the transaction is durable. While it
/// writes, newer entries gather for the next transaction, so under load one fsync covers many
/// requests, and an idle server commits a lone entry at once.
///
/// A failed transaction fails every request of its group (nothing of it was stored). Work that
/// may follow a durable group (signing a checkpoint) runs after its requests were resumed,
/// before the next group is taken, so it adds nothing to the answers of the group it follows.
final class AuditGroupCommitter: Sendable {
    /// Commits one combined change and returns the log indexes of its entries, in order.
    typealias Writer = @Sendable (TrustChange) async throws(TrustStoreError) -> [Int]
    /// Runs after a group's requests were resumed, with the group's indexes.
    typealias AfterGroup = @Sendable ([Int]) async -> Void

    private struct Waiting: Sendable {
        let entries: [PendingAuditEntry]
        let continuation: CheckedContinuation<Result<[Int], TrustStoreError>, Never>
    }

    private struct Queue: Sendable {
        var waiting: [Waiting] = []
        var writing = false
        /// Callers of ``idle()`` waiting for the writer task to stop.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
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
    /// `afterGroup` follows each durable one (every caller passes the same ones; the writer task
    /// uses those of the request that started it).
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

    /// Returns once no group is being written and none waits, including the work that follows
    /// the last group (its checkpoint): what a server awaits before it closes its store.
    func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = queue.withLock { queue -> Bool in
                guard queue.writing else { return true }
                queue.idleWaiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// Commits groups until nothing waits, then stops (the next request starts a new writer).
    private func drain(_ writer: Writer, afterGroup: AfterGroup) async {
        while true {
            let (group, idleWaiters) = queue.withLock { queue -> ([Waiting], [CheckedContinuation<Void, Never>]) in
                let taken = queue.waiting
                queue.waiting = []
                guard taken.isEmpty else { return (taken, []) }
                queue.writing = false
                let waiters = queue.idleWaiters
                queue.idleWaiters = []
                return (taken, waiters)
            }
            if group.isEmpty {
                for waiter in idleWaiters { waiter.resume() }
                return
            }
            var change = TrustChange()
            change.auditEntries = group.flatMap(\.entries)
            let indexes: [Int]
            do throws(TrustStoreError) {
                indexes = try await writer(change)
                guard indexes.count == change.auditEntries.count else { throw TrustStoreError.corrupt("audit_entry") }
            } catch {
                for waiting in group { waiting.continuation.resume(returning: .failure(error)) }
                continue
            }
            var start = 0
            for waiting in group {
                waiting.continuation.resume(returning: .success(Array(indexes[start..<(start + waiting.entries.count)])))
                start += waiting.entries.count
            }
            await afterGroup(indexes)
        }
    }
}
