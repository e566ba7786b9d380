import Crypto
import FHIRCore
import FhirBlocks
import FhirBlocksStore
import Logging
import SmartHealthCards
import Synchronization

/// The FhirBlocks server's behaviour, independent of HTTP: every SMOAC, OAuth, FHIR and audit
/// endpoint as a function from ``ServiceRequest`` to ``ServiceResponse``.
///
/// Decisions are the `FhirBlocks` core's (signatures, replay, the permission ledger, VACA,
/// label filtering, Merkle proofs); this type loads what they need, stores what they return
/// through one `TrustStore.commit(_:)` per request (the audit entry in the same transaction as
/// the change it records) and answers. The permission ledger and registrations are cached in
/// memory, validated on each request against the store's ledger version (so several servers on
/// one database agree at once) and reloaded when it moved; everything else is read from the
/// store. Audit-only changes (the entry of a read, of a refusal) are committed in groups: one
/// transaction for all entries waiting, each request answering once its own entry is durable. Cryptography runs outside the lock, so requests proceed in
/// parallel.
public final class TrustService: Sendable {
    /// The store.
    public let store: any TrustStore
    /// The configuration.
    public let configuration: ServerConfiguration
    /// The audit log's signing key.
    public let auditKey: CsiSigningKey
    /// The SMART Health Cards issuer key of `$health-cards-issue` (nil: the server issues no cards).
    public let cardIssuerKey: SHCIssuerKey?
    let clock: TrustClock
    let logger: Logger
    let metrics: ServerMetrics
    let refusals = RefusalTally()
    let addressLimiter: RateLimiter
    let identityLimiter: RateLimiter
    let registrationLimiter: RateLimiter
    let authorizationLimiter: RateLimiter
    let decisionGuessLimiter: RateLimiter
    /// Wrong user codes from everyone together (see ``TrustService/guessExposureFactor``).
    let decisionGuessTotalLimiter: RateLimiter
    let state: Mutex<TrustState>
    let auditCommitter = AuditGroupCommitter()

    /// Creates a service over a migrated store. Call ``start()`` before serving.
    public init(store: any TrustStore, configuration: ServerConfiguration = ServerConfiguration(), auditKey: CsiSigningKey,
                cardIssuerKey: SHCIssuerKey? = nil, clock: TrustClock = .system, logger: Logger = Logger(label: "fhirblocks"), metrics: ServerMetrics = ServerMetrics()) {
        self.store = store
        self.configuration = configuration
        self.auditKey = auditKey
        self.cardIssuerKey = cardIssuerKey
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        addressLimiter = RateLimiter(limit: configuration.rateLimitPerAddress)
        identityLimiter = RateLimiter(limit: configuration.rateLimitPerIdentity)
        registrationLimiter = RateLimiter(limit: configuration.registrationRate)
        authorizationLimiter = RateLimiter(limit: configuration.authorizationRate)
        decisionGuessLimiter = RateLimiter(limit: configuration.decisionGuessRate)
        decisionGuessTotalLimiter = RateLimiter(limit: Self.totalGuessRate(configuration.decisionGuessRate), maximumKeys: 1)
        state = Mutex(TrustState(baseURL: configuration.publicURL ?? "http://127.0.0.1"))
    }

    /// Loads registrations, permissions and the audit log's leaves from the store.
    public func start() async throws(TrustStoreError) {
        try await reloadLedger()
        let checkpoints = try await store.checkpoints()
        state.withLock { $0.lastCheckpointSize = checkpoints.last?.treeSize ?? 0 }
        try await syncLeaves()
    }

    /// Brings the cached ledger and registrations up to the store's before a decision reads
    /// them: one read of ``TrustStore/ledgerVersion()``, and a reload only when it moved (a
    /// registration, grant or revocation committed by this server or by another one on the same
    /// database). A revocation committed anywhere is therefore in force for every request that
    /// starts after it.
    /// Returns the version read.
    @discardableResult
    func refreshLedger() async throws(SMOACError) -> Int64 {
        do {
            let version = try await store.ledgerVersion()
            guard state.withLock({ $0.ledgerVersion }) != version else { return version }
            try await reloadLedger()
            return version
        } catch {
            logger.error("reading the permission ledger failed", metadata: ["reason": "\(error.description)"])
            throw .storageFailure("the permission ledger could not be read")
        }
    }

    /// Reads the ledger's version, then registrations and permissions (at least as new as that
    /// version), and installs them unless a newer version is installed already.
    private func reloadLedger() async throws(TrustStoreError) {
        let version = try await store.ledgerVersion()
        let registrations = try await store.registrations()
        let permissions = try await store.permissions()
        let ledger = PermissionLedger(wallets: Set(registrations.filter(\.isWallet).map(\.csiGuid)), permissions: permissions,
                                      auditors: configuration.auditors)
        var cached: [CsiGuid: CsiRegistration] = [:]
        for registration in registrations { cached[registration.csiGuid] = registration.withoutClaims }
        state.withLock { state in
            guard version >= state.ledgerVersion else { return }
            state.registrations = cached
            state.ledger = ledger
            state.ledgerVersion = version
            state.tokens = [:]
        }
        metrics.ledgerReloads.increment()
    }

    /// The configured auditors that are not registered. `health serve` refuses to start with
    /// any: in compat mode a client may choose its csiGuid, so a listed but unregistered GUID
    /// could be registered by anyone and read the whole log.
    public var unregisteredAuditors: [CsiGuid] {
        configuration.auditors.filter { registration($0) == nil }.sorted { $0.rawValue < $1.rawValue }
    }

    /// Sets the base URL once the socket is bound (when no public URL was configured):
    /// `SCHEME://HOST:PORT`, `https` when the server speaks TLS.
    public func setBoundAddress(host: String, port: Int, scheme: String = "http") {
        guard configuration.publicURL == nil else { return }
        var shownHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        if shownHost.contains(":") { shownHost = "[\(shownHost)]" }   // an IPv6 literal
        state.withLock { $0.baseURL = "\(scheme)://\(shownHost):\(port)" }
    }

    /// The base URL assertion audiences and discovery use.
    public var baseURL: String { state.withLock { $0.baseURL } }

    // MARK: Shared plumbing

    var now: Timestamp { clock.now() }

    var ledger: PermissionLedger { state.withLock { $0.ledger } }

    /// The cached registration of `csi`: its key, device and class, without its claims (which
    /// stay in the store and are read only when released, so registrations cost memory by
    /// their count, not by the size of what they claim).
    func registration(_ csi: CsiGuid) -> CsiRegistration? { state.withLock { $0.registrations[csi] } }

    func random<T, E: Error>(_ body: (inout SystemRandomNumberGenerator) throws(E) -> T) throws(E) -> T {
        var generator = SystemRandomNumberGenerator()
        return try body(&generator)
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
        return try await auditCommitter.commit(change.auditEntries, writer: { [self] group, completion in
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
            // database) appended first; then the checkpoint reads the store. A follow-up still
            // queued takes this group's part too (it signs the tree as it is when it runs).
            let queue = state.withLock { state -> Bool in
                let behind = state.leaves.count <= (indexes.last ?? -1)
                guard behind || state.leaves.count - state.lastCheckpointSize >= configuration.checkpointEvery else { return false }
                defer { state.checkpointFollowUp = (true, state.checkpointFollowUp.sync || behind) }
                return !state.checkpointFollowUp.queued
            }
            guard queue else { return nil }
            return { [self] in
                let sync = state.withLock { state in
                    defer { state.checkpointFollowUp = (false, false) }
                    return state.checkpointFollowUp.sync
                }
                await checkpointIfDue(sync: sync)
            }
        })
    }

    static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
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
        let appended = state.withLock { state -> Bool in
            guard let first = indexes.first, first == state.leaves.count, indexes.count == change.auditEntries.count else { return indexes.isEmpty }
            for pending in change.auditEntries {
                state.leaves.append(pending.leafHash)
                state.frontier.append(pending.leafHash)
            }
            return true
        }
        state.withLock { state in
            for registration in change.registrations {
                state.registrations[registration.csiGuid] = registration.withoutClaims
                if registration.isWallet { state.ledger.wallets.insert(registration.csiGuid) }
            }
            for permission in change.permissions { state.ledger.insert(permission) }
            for revocation in change.revocations { _ = state.ledger.revoke(revocation.id, at: revocation.revokedAt) }
            for hash in change.revokedTokenHashes { state.tokens[hash] = nil }
        }
        if !indexes.isEmpty { metrics.auditEntries.increment(by: indexes.count) }
        return appended
    }

    /// Takes one request from `csi`'s allowance (after its signature or assertion verified, so
    /// nobody can spend another's): `rateLimited` when it is used up.
    func requireWithinRate(_ csi: CsiGuid) throws(SMOACError) {
        if let retryAfter = identityLimiter.take(csi.rawValue, now: now) {
            metrics.rateLimited(kind: "identity")
            throw .rateLimited(retryAfterSeconds: retryAfter)
        }
    }

    /// Counts a refusal of a caller that could not be verified (see ``RefusalTally``): nothing
    /// is written per request, and nobody named in the request is blamed.
    func tallyUnverifiedRefusal(_ type: AuditEventType = .authenticationFailure, error: SMOACError) {
        refusals.record(type, reason: error.errorCode)
        metrics.unverifiedRefusals(reason: error.errorCode)
    }

    /// Returns once the audit group commit is idle: no group being written or waiting, and the
    /// checkpoint that may follow the last group signed and stored. Await it before closing the
    /// store, so no late checkpoint meets a closed store.
    public func finishAuditWrites() async {
        await auditCommitter.idle()
    }

    /// Writes the events counted since the last call (see `RefusalTally`) as aggregate audit
    /// entries (agent `unverified`, with their count). The checkpoint signer calls it every period and at
    /// shutdown.
    public func flushRefusals() async {
        let drained = refusals.drain()
        guard !drained.isEmpty else { return }
        let instant = now
        var change = TrustChange()
        change.auditEntries = drained.map { item in
            PendingAuditEntry(entry: AuditEntry(type: item.key.type, recorded: instant, outcome: item.key.outcome, agent: AuditEntry.unverifiedAgent,
                                                reason: item.key.reason, count: item.count))
        }
        do {
            _ = try await commit(change)
        } catch {
            refusals.restore(drained)
            logger.error("audit of refused requests failed", metadata: ["reason": "\(error.errorCode)"])
        }
    }

    /// Records a refused request of a verified caller in the audit log (best effort: a storage
    /// failure here is logged, and the refusal is still answered).
    func auditFailure(_ type: AuditEventType = .authenticationFailure, agent: String, error: SMOACError, quirks: [CompatQuirk] = [], body: [UInt8]) async {
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: AuditEntry(type: type, recorded: now, outcome: .minorFailure, agent: agent,
                                                                    quirks: quirks.sortedUnique, requestHash: Self.hexSHA256(body),
                                                                    reason: error.errorCode))]
        do {
            try await storeCommit(change)
        } catch {
            logger.error("audit of a refused request failed", metadata: ["reason": "\(error.description)"])
        }
    }

    static func hexSHA256(_ bytes: [UInt8]) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }
}

/// The mutable part of ``TrustService``.
struct TrustState: Sendable {
    var baseURL: String
    var registrations: [CsiGuid: CsiRegistration] = [:]
    var ledger = PermissionLedger(wallets: [])
    /// The ``TrustStore/ledgerVersion()`` that `registrations` and `ledger` reflect (-1: none yet).
    var ledgerVersion: Int64 = -1
    /// Access tokens read from the store while `ledgerVersion` was current, by hash (at most
    /// ``TrustState/maximumCachedTokens``). A token changes only when it is revoked, which
    /// raises the ledger's version, so the cache is emptied whenever the version moves; expiry
    /// and the permissions behind a token are checked on every request all the same.
    var tokens: [String: TrustService.CachedAccessToken] = [:]
    /// The hashes of the tokens in ``tokens`` (or that were), by the token's text: a pure
    /// function remembered, so it outlives the ledger's version (at most
    /// ``TrustState/maximumCachedTokens``).
    var tokenHashes: [String: String] = [:]
    static let maximumCachedTokens = 10_000
    var leaves: [MerkleHash] = []
    var frontier = MerkleFrontier()
    var lastCheckpointSize = 0
    var signingCheckpoint = false
    /// A checkpoint follow-up of the audit group commit is queued and has not started (later
    /// groups join it rather than queue their own), and whether it must read the store first.
    var checkpointFollowUp: (queued: Bool, sync: Bool) = (false, false)

    init(baseURL: String) {
        self.baseURL = baseURL
    }
}

extension Array where Element == CompatQuirk {
    /// Sorted, without repeats (the audit entry's form).
    var sortedUnique: [CompatQuirk] { count < 2 ? self : Array(Set(self)).sorted() }
}
