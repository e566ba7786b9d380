import FhirBlocks
import FhirBlocksStore
import Logging
import Synchronization

/// The audit log as this server holds it: the Merkle leaves of every stored entry (leaf = hash
/// of the entry's stored bytes) and their frontier, the checkpoints it signs, the group commit
/// that writes audit-only changes (``AuditGroupCommitter``) and the tally of unverified callers'
/// refusals (``RefusalTally``).
///
/// The leaves follow the store: entries this server committed are appended directly when they
/// follow the leaves held (``cache(_:committedAs:)``), anything else (another server on the same
/// database) is read by ``sync()``. A checkpoint is signed over the leaves held, one at a time,
/// when ``ServerConfiguration/checkpointEvery`` entries were appended since the last one (or when
/// forced and the log grew).
final class AuditLog: Sendable {
    private struct State {
        /// The leaves with their complete subtrees' hashes (proofs without rehashing the log).
        var tree = MerkleSubtrees()
        var frontier = MerkleFrontier()
        var lastCheckpointSize = 0
        /// A checkpoint is being signed and stored (one at a time).
        var signingCheckpoint = false
        /// Forced checkpoints waiting for the one being signed to be stored, resumed when it is
        /// (or when their task is cancelled), by their number.
        var awaitingSigned: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        /// The origin of the latest checkpoint stored when the log was loaded, when it is the
        /// form with a scheme (`https://example.org/audit`) that logs signed before origins were
        /// schema-less: such a log keeps it (``origin(continuing:)``).
        var schemeOrigin: String?
        /// A checkpoint follow-up of the group commit is queued and has not started (later
        /// groups join it rather than queue their own), and whether it must read the store first.
        var followUp: (queued: Bool, sync: Bool) = (false, false)
        /// Each patient's entries by log index, ascending (``PatientEntries``).
        var byPatient: [String: PatientEntries] = [:]

        /// Files the entry at `index` under its patient.
        mutating func file(index: Int, patient: String?, agent: String) {
            guard let patient else { return }
            byPatient[patient, default: PatientEntries()].all.append(index)
            if agent != patient { byPatient[patient, default: PatientEntries()].byOthers.append(index) }
        }
    }

    /// The log indexes of the entries about one patient, ascending: all of them, and those
    /// another agent made (what "who saw my data" lists), so that a page of them is found
    /// without reading the log.
    struct PatientEntries: Sendable {
        var all: [Int] = []
        var byOthers: [Int] = []
    }

    /// Writes audit-only changes in groups.
    let committer = AuditGroupCommitter()
    /// Refusals of unverified callers, counted until the next flush.
    let refusals = RefusalTally()

    /// The log's entries and checkpoints, and the commit its checkpoints are stored with.
    private let store: any AuditStore & LedgerStore
    private let key: CsiSigningKey
    private let keyName: String
    private let checkpointEvery: Int
    private let clock: TrustClock
    private let logger: Logger
    private let state = Mutex(State())
    /// The largest tree size `GET /audit/checkpoint` served (nil until its first request): a
    /// cosigned checkpoint smaller than it is not served (``AuditController``).
    let largestServedSize = Mutex<Int?>(nil)

    /// A log over `store`, whose checkpoints `key` signs under `keyName`, due every `checkpointEvery` entries.
    init(store: any AuditStore & LedgerStore, key: CsiSigningKey, keyName: String, checkpointEvery: Int, clock: TrustClock, logger: Logger) {
        self.store = store
        self.key = key
        self.keyName = keyName
        self.checkpointEvery = checkpointEvery
        self.clock = clock
        self.logger = logger
    }

    /// Reads the last checkpoint's size (one row, `AuditStore.latestCheckpoint()`) and every
    /// entry's leaf from the store.
    func load() async throws(TrustStoreError) {
        let latest = try await store.latestCheckpoint()
        let origin = latest.map { String($0.note.prefix { $0 != "\n" }) }
        state.withLock { state in
            state.lastCheckpointSize = latest?.treeSize ?? 0
            state.schemeOrigin = origin.flatMap { $0.contains("://") ? $0 : nil }
        }
        try await sync()
    }

    /// Reads new entries from the store into the leaves.
    func sync() async throws(TrustStoreError) {
        while true {
            let known = state.withLock { $0.tree.count }
            let page = try await store.auditRecords(from: known, limit: 4096)
            if page.isEmpty { return }
            let parties = page.map { record in (try? AuditEntry(canonicalBytes: record.canonicalBytes)).map { ($0.patient, $0.agent) } }
            let added = state.withLock { state in
                let before = state.tree.count
                for (record, party) in zip(page, parties) where record.index == state.tree.count {
                    let leaf = MerkleHash.leaf(record.canonicalBytes)
                    state.tree.append(leaf)
                    state.frontier.append(leaf)
                    if let party { state.file(index: record.index, patient: party.0, agent: party.1) }
                }
                return state.tree.count - before
            }
            // A short page is the end; a page that adds nothing means a gap in the indexes
            // (a damaged store), which the verifier reports: stop rather than loop.
            if page.count < 4096 || added == 0 { return }
        }
    }

    /// Up to `limit` log indexes of the entries about `patient` before index `cursor`, newest
    /// first (only those another agent made when `othersOnly`), and whether older ones remain.
    /// A binary search in the patient's own list: the cost does not grow with the log.
    func patientEntries(_ patient: String, before cursor: Int, limit: Int, othersOnly: Bool) -> (indexes: [Int], more: Bool) {
        state.withLock { state in
            guard let entries = state.byPatient[patient] else { return ([], false) }
            let list = othersOnly ? entries.byOthers : entries.all
            var low = 0, high = list.count
            while low < high {
                let middle = (low + high) / 2
                if list[middle] < cursor { low = middle + 1 } else { high = middle }
            }
            let start = max(0, low - limit)
            return (Array(list[start..<low].reversed()), start > 0)
        }
    }

    /// `body` applied to the log's leaves and subtrees after reading the store's new entries
    /// (nil when the store cannot be read). Proofs from ``MerkleSubtrees`` cost O(log² n), so a
    /// proof request does not grow with the log.
    func readTree<T: Sendable>(_ body: (MerkleSubtrees) -> T) async -> T? {
        do {
            try await sync()
        } catch {
            return nil
        }
        return state.withLock { body($0.tree) }
    }

    /// Appends the leaves of `entries`, just committed as `indexes`, when they follow the leaves
    /// held (the usual case; otherwise the next ``sync()`` reads them). Returns whether they were
    /// appended (true for no entries).
    func cache(_ entries: [PendingAuditEntry], committedAs indexes: [Int]) -> Bool {
        state.withLock { state -> Bool in
            guard let first = indexes.first, first == state.tree.count, indexes.count == entries.count else { return indexes.isEmpty }
            for (pending, index) in zip(entries, indexes) {
                state.tree.append(pending.leafHash)
                state.frontier.append(pending.leafHash)
                state.file(index: index, patient: pending.entry.patient, agent: pending.entry.agent)
            }
            return true
        }
    }

    /// After a durable group committed as `indexes`: whether a checkpoint follow-up is to be
    /// queued (one is due, or the leaves lag the store, and none is queued yet). A follow-up
    /// still queued takes this group's part too (it signs the tree as it is when it runs).
    func queueFollowUp(after indexes: [Int]) -> Bool {
        state.withLock { state -> Bool in
            let behind = state.tree.count <= (indexes.last ?? -1)
            guard behind || state.tree.count - state.lastCheckpointSize >= checkpointEvery else { return false }
            defer { state.followUp = (true, state.followUp.sync || behind) }
            return !state.followUp.queued
        }
    }

    /// Starts the queued follow-up: whether it must read the store first.
    func startFollowUp() -> Bool {
        state.withLock { state in
            defer { state.followUp = (false, false) }
            return state.followUp.sync
        }
    }

    /// The Ed25519 note key derived from the audit key (`NoteSigningKey`), whose signature line
    /// follows the P-256 one on every checkpoint, for C2SP verifiers and witnesses. Its name is
    /// the origin, as C2SP `tlog-checkpoint` recommends (the P-256 key's name when the origin is
    /// not a valid key name).
    static func noteKey(origin: String, keyName: String, auditKey: CsiSigningKey) -> NoteSigningKey? {
        try? NoteSigningKey(name: CheckpointSignature.isValidKeyName(origin) ? origin : keyName, derivedFrom: auditKey)
    }

    /// The origin to sign with, given the log's schema-less origin: the same URL with its scheme
    /// when the log's checkpoints were signed so before (a log keeps its origin, and so the name
    /// and key ID of its note key that witnesses and verifiers know), else `schemaless`.
    func origin(continuing schemaless: String) -> String {
        state.withLock { state in
            guard let stored = state.schemeOrigin, let separator = stored.range(of: "://"),
                  stored[separator.upperBound...] == Substring(schemaless) else { return schemaless }
            return stored
        }
    }

    /// Signs and stores a checkpoint of the leaves, with `origin`, if ``checkpointEvery``
    /// entries were appended since the last one (or `force` and the log grew); reads the store's
    /// new entries first when `sync`. Nil when none was due or it failed (logged).
    ///
    /// One checkpoint is signed at a time. A forced checkpoint (a reader asking for the latest
    /// one) that finds one being signed (the periodic signer's) awaits its end, then signs again
    /// if the log grew meanwhile, rather than answering before that checkpoint is stored; any
    /// other caller leaves it to the signer.
    @discardableResult
    func checkpointIfDue(origin: String, force: Bool = false, sync: Bool = true) async -> StoredCheckpoint? {
        do {
            if sync { try await self.sync() }
        } catch {
            if !Task.isCancelled { logger.error("audit log sync failed", metadata: ["reason": "\(error.description)"]) }
            return nil
        }
        while true {
            let (claim, busy): ((size: Int, root: MerkleHash)?, Bool) = state.withLock { state in
                if state.signingCheckpoint { return (nil, true) }
                let grown = state.tree.count - state.lastCheckpointSize
                guard grown > 0, force || grown >= checkpointEvery else { return (nil, false) }
                state.signingCheckpoint = true
                return ((state.frontier.size, state.frontier.rootHash), false)
            }
            if let claim {
                defer {
                    let waiting = state.withLock { state in
                        state.signingCheckpoint = false
                        defer { state.awaitingSigned = [:] }
                        return state.awaitingSigned.values
                    }
                    for waiter in waiting { waiter.resume() }
                }
                return await sign(size: claim.size, root: claim.root, origin: origin)
            }
            guard busy, force, !Task.isCancelled else { return nil }
            await awaitSigned()
        }
    }

    /// Returns once no checkpoint is being signed, or when the calling task is cancelled (a
    /// reader that went away stops waiting).
    private func awaitSigned() async {
        let number = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    guard state.signingCheckpoint, !Task.isCancelled else { return true }
                    state.awaitingSigned[number] = waiter
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.awaitingSigned.removeValue(forKey: number) }?.resume()
        }
    }

    /// Signs a checkpoint of the first `size` leaves (whose root is `root`) and stores it; nil when it failed (logged).
    private func sign(size: Int, root: MerkleHash, origin: String) async -> StoredCheckpoint? {
        do {
            var signed = try SignedCheckpoint.sign(Checkpoint(origin: origin, treeSize: size, rootHash: root, timestamp: clock.now()),
                                                   keyName: keyName, key: key)
            if let noteKey = Self.noteKey(origin: origin, keyName: keyName, auditKey: key) {
                signed = signed.adding([try noteKey.signatureLine(for: signed.checkpoint.body)])
            }
            let stored = StoredCheckpoint(treeSize: size, note: signed.text)
            var change = TrustChange()
            change.checkpoints = [stored]
            try await store.commit(change)
            state.withLock { $0.lastCheckpointSize = max($0.lastCheckpointSize, size) }
            return stored
        } catch {
            if !Task.isCancelled { logger.error("checkpoint signing failed", metadata: ["reason": "\(error)"]) }
            return nil
        }
    }
}
