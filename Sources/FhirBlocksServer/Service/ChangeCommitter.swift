import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore

/// Stores each request's ``FhirBlocksStore/TrustChange`` (the audit entry in the same
/// transaction as the change it records) and keeps the server's memory in step: the ledger
/// cache (``TrustLedger``) and the audit log (``AuditLog``: its leaves, the group commit of
/// audit-only changes, the checkpoints it signs and the tally of unverified callers'
/// refusals). One per server, given to every area's endpoints.
final class ChangeCommitter: Sendable {
    /// Where changes are committed (the ledger's writes: ``FhirBlocksStore/LedgerStore/commit(_:)``).
    let store: any LedgerStore
    /// The ledger and token cache a committed change updates.
    let trustLedger: TrustLedger
    /// The audit log's leaves, checkpoints, group commit and refusal tally.
    let auditLog: AuditLog
    /// The base URL (the checkpoints' origin).
    let publicBaseURL: PublicBaseURL
    let clock: TrustClock
    let logger: Logger
    let metrics: ServerMetrics

    init(store: any LedgerStore, trustLedger: TrustLedger, auditLog: AuditLog, publicBaseURL: PublicBaseURL, clock: TrustClock, logger: Logger,
         metrics: ServerMetrics) {
        self.store = store
        self.trustLedger = trustLedger
        self.auditLog = auditLog
        self.publicBaseURL = publicBaseURL
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// The checkpoint origin line: this log's URL without its scheme (`example.org/audit`), as
    /// C2SP `tlog-checkpoint` asks of an origin (a schema-less URL).
    /// A log whose checkpoints were signed with the scheme before keeps that form
    /// (``AuditLog/origin(continuing:)``).
    var checkpointOrigin: String { auditLog.origin(continuing: Self.checkpointOrigin(publicBaseURL: publicBaseURL.current)) }

    /// The checkpoint origin of a log served at `publicBaseURL`: its `/audit` URL without the scheme.
    static func checkpointOrigin(publicBaseURL: String) -> String {
        var base = Substring(publicBaseURL)
        if let separator = base.range(of: "://") { base = base[separator.upperBound...] }
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/audit"
    }

    /// Commits `change` and updates the caches. Storage failures become `server_error`.
    @discardableResult
    func commit(_ change: TrustChange) async throws(SMOACError) -> [Int] {
        do {
            return try await storeCommit(change)
        } catch .alreadyRegistered {
            throw .alreadyRegistered
        } catch {
            logger.error("store commit failed", metadata: ["reason": "\(error.description)"])
            throw .storageFailure("the change could not be stored")
        }
    }

    /// Commits `change` and updates the caches, keeping the store's error. A change of audit
    /// entries only joins the next group commit (``AuditGroupCommitter``); it returns, like any
    /// other, once its entries are durable. A checkpoint that falls due with a group is signed
    /// after the group's requests were answered (it signs entries already durable).
    @discardableResult
    func storeCommit(_ change: TrustChange) async throws(TrustStoreError) -> [Int] {
        guard change.isAuditOnly else {
            let (indexes, inCache) = try await commitNow(change)
            if !indexes.isEmpty { await checkpointIfDue(sync: !inCache) }
            return indexes
        }
        let handedIn = ContinuousClock.now
        defer { metrics.auditWaitTime.recordNanoseconds(Self.nanoseconds(since: handedIn)) }
        return try await auditLog.committer.commit(change.auditEntries, writer: { [self] group, completion in
            let started = ContinuousClock.now
            store.commit(group) { [self] result in
                // On the store's thread, right after COMMIT: the caches, then the group's requests.
                if case .success(let indexes) = result {
                    _ = cache(group, committedAs: indexes)
                    metrics.auditGroupCommits.increment()
                    metrics.auditGroupWriteTime.recordNanoseconds(Self.nanoseconds(since: started))
                }
                completion(result)
            }
        }, afterGroup: { [self] indexes in
            // The leaf cache holds the group unless other writers (servers sharing the
            // database) appended first; then the checkpoint reads the store.
            guard auditLog.queueFollowUp(after: indexes) else { return nil }
            return { [self] in
                await checkpointIfDue(sync: auditLog.startFollowUp())
            }
        })
    }

    static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        TimeAmount(ContinuousClock.now - start).nanoseconds
    }

    /// Commits `change` in its own transaction and updates the caches; returns the indexes of
    /// its audit entries and whether the leaf cache took them (it does when they follow it).
    private func commitNow(_ change: TrustChange) async throws(TrustStoreError) -> (indexes: [Int], inCache: Bool) {
        let indexes = try await store.commit(change)
        return (indexes, cache(change, committedAs: indexes))
    }

    /// Updates the caches with a committed `change` whose audit entries got `indexes`; returns
    /// whether the leaf cache took them (it does when they follow it).
    private func cache(_ change: TrustChange, committedAs indexes: [Int]) -> Bool {
        // The entries just stored extend the leaf cache directly when they follow it (the usual
        // case); otherwise the next sync reads them from the store.
        let appended = auditLog.cache(change.auditEntries, committedAs: indexes)
        trustLedger.cache.apply(change)
        if !indexes.isEmpty { metrics.auditEntries.increment(by: indexes.count) }
        return appended
    }

    /// Appends `entry` to the audit log and returns its index once it is durable (it joins the
    /// next group commit); a storage failure is `server_error`.
    func append(_ entry: AuditEntry) async throws(SMOACError) -> Int {
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: entry)]
        guard let index = try await commit(change).first else { throw .storageFailure("the audit entry could not be stored") }
        return index
    }

    /// Signs and stores a checkpoint of the current tree if `checkpointEvery` entries were
    /// appended since the last one (or `force` and the tree grew): ``AuditLog/checkpointIfDue(origin:force:sync:)``.
    @discardableResult
    func checkpointIfDue(force: Bool = false, sync: Bool = true) async -> StoredCheckpoint? {
        await auditLog.checkpointIfDue(origin: checkpointOrigin, force: force, sync: sync)
    }

    /// Counts a refusal of a caller that could not be verified (see ``RefusalTally``): nothing
    /// is written per request, and nobody named in the request is blamed.
    func tallyUnverifiedRefusal(_ type: AuditEventType = .authenticationFailure, error: SMOACError) {
        auditLog.refusals.record(type, reason: error.errorCode)
        metrics.unverifiedRefusals(reason: error.errorCode)
    }

    /// Writes the events counted since the last call (see ``RefusalTally``) as aggregate audit
    /// entries (agent `unverified`, with their count).
    func flushRefusals() async {
        let drained = auditLog.refusals.drain()
        guard !drained.isEmpty else { return }
        let instant = clock.now()
        var change = TrustChange()
        change.auditEntries = drained.map { item in
            PendingAuditEntry(entry: AuditEntry(type: item.key.type, recorded: instant, outcome: item.key.outcome, agent: AuditEntry.unverifiedAgent,
                                                reason: item.key.reason, count: item.count))
        }
        do {
            _ = try await commit(change)
        } catch {
            auditLog.refusals.restore(drained)
            logger.error("audit of refused requests failed", metadata: ["reason": "\(error.errorCode)"])
        }
    }

    /// Records a refused request of a verified caller in the audit log (best effort: a storage
    /// failure here is logged, and the refusal is still answered).
    func auditFailure(_ type: AuditEventType = .authenticationFailure, agent: String, error: SMOACError, quirks: [CompatQuirk] = [], body: [UInt8]) async {
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: type, recorded: clock.now(), outcome: .minorFailure, agent: agent,
                                                                    quirks: quirks.sortedUnique, requestHash: AuditDigest.hexSHA256(body),
                                                                    reason: error.errorCode))]
        do {
            try await storeCommit(change)
        } catch {
            logger.error("audit of a refused request failed", metadata: ["reason": "\(error.description)"])
        }
    }
}
