import FhirBlocksStore
import Synchronization

/// Group commit of audit entries: requests whose only write is their audit entry hand it to
/// ``commit(_:)``, which waits; one writer task takes every entry waiting, appends them in one
/// transaction (in the order they arrived, so the log's order is the commit order), and
/// resumes each request with its own indexes once the transaction is durable. While it
/// writes, newer entries gather for the next transaction, so under load one fsync covers many
/// requests, and an idle server commits a lone entry at once.
///
/// A failed transaction fails every request of its group (nothing of it was stored).
final class AuditGroupCommitter: Sendable {
    /// Commits one combined change and returns the log indexes of its entries, in order.
    typealias Writer = @Sendable (TrustChange) async throws(TrustStoreError) -> [Int]

    private struct Waiting: Sendable {
        let entries: [PendingAuditEntry]
        let continuation: CheckedContinuation<Result<[Int], TrustStoreError>, Never>
    }

    private struct Queue: Sendable {
        var waiting: [Waiting] = []
        var writing = false
    }

    private let queue = Mutex(Queue())

    /// Creates a committer with nothing waiting.
    init() {}

    /// Appends `entries` (in this order, contiguously) with the next group and returns their
    /// indexes once the group's transaction committed. `writer` commits a group (every caller
    /// passes the same one; the writer task uses the one of the request that started it).
    func commit(_ entries: [PendingAuditEntry], writer: @escaping Writer) async throws(TrustStoreError) -> [Int] {
        if entries.isEmpty { return [] }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[Int], TrustStoreError>, Never>) in
            let startWriter = queue.withLock { queue in
                queue.waiting.append(Waiting(entries: entries, continuation: continuation))
                guard !queue.writing else { return false }
                queue.writing = true
                return true
            }
            if startWriter { Task { await self.drain(writer) } }
        }
        return try result.get()
    }

    /// Commits groups until nothing waits, then stops (the next request starts a new writer).
    private func drain(_ writer: Writer) async {
        while true {
            let group = queue.withLock { queue -> [Waiting] in
                let taken = queue.waiting
                queue.waiting = []
                if taken.isEmpty { queue.writing = false }
                return taken
            }
            if group.isEmpty { return }
            var change = TrustChange()
            change.auditEntries = group.flatMap(\.entries)
            do throws(TrustStoreError) {
                let indexes = try await writer(change)
                guard indexes.count == change.auditEntries.count else { throw TrustStoreError.corrupt("audit_entry") }
                var start = 0
                for waiting in group {
                    waiting.continuation.resume(returning: .success(Array(indexes[start..<(start + waiting.entries.count)])))
                    start += waiting.entries.count
                }
            } catch {
                for waiting in group { waiting.continuation.resume(returning: .failure(error)) }
            }
        }
    }
}
