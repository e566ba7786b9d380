import Crypto
import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import SmartHealthCards

/// The FhirBlocks server's behaviour, independent of HTTP: every SMOAC, OAuth, FHIR and audit
/// endpoint as a function from ``ServiceRequest`` to ``ServiceResponse``, which the router's
/// routes call once they have routed the request (``buildApplication(service:host:port:checkpointPeriodSeconds:connectionLimits:tls:logger:onListening:)``).
///
/// Decisions are the `FhirBlocks` core's (signatures, replay, the permission ledger, VACA,
/// label filtering, Merkle proofs); this type loads what they need, stores what they return
/// through one `TrustStore.commit(_:)` per request (the audit entry in the same transaction as
/// the change it records) and answers. What it holds between requests is in small components
/// it composes: the permission ledger, registrations and tokens as last read (`LedgerCache`,
/// validated on each request against the store's ledger version, so several servers on one
/// database agree at once, and reloaded when it moved), the audit log's leaves, checkpoints and
/// group commit (`AuditLog`: audit-only changes, the entry of a read or of a refusal, are
/// committed in groups, each request answering once its own entry is durable), and the rate
/// limits (`RateLimits`); everything else is read from the store. Cryptography runs outside
/// any lock, so requests proceed in parallel.
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
    /// Every allowance counted.
    let rateLimits: RateLimits
    /// The permission ledger, registrations and tokens as last read from the store.
    let ledgerCache = LedgerCache()
    /// The audit log's leaves, checkpoints, group commit and refusal tally.
    let auditLog: AuditLog
    /// The base URL (``baseURL``).
    let publicBaseURL: PublicBaseURL
    /// The discovery documents' handler (the SMART configuration, the CapabilityStatement).
    let discovery: DiscoveryHandler

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
        rateLimits = RateLimits(configuration: configuration)
        auditLog = AuditLog(store: store, key: auditKey, keyName: configuration.checkpointKeyName, checkpointEvery: configuration.checkpointEvery,
                            clock: clock, logger: logger)
        publicBaseURL = PublicBaseURL(configured: configuration.publicURL)
        discovery = DiscoveryHandler(configuration: configuration, publicBaseURL: publicBaseURL, clock: clock, cardIssuerKey: cardIssuerKey)
    }

    /// Loads registrations, permissions and the audit log's leaves from the store.
    public func start() async throws(TrustStoreError) {
        try await reloadLedger()
        try await auditLog.load()
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
            guard ledgerCache.version != version else { return version }
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
        ledgerCache.install(version: version, registrations: registrations, ledger: ledger)
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
        publicBaseURL.set(boundHost: host, port: port, scheme: scheme)
    }

    /// The base URL assertion audiences and discovery use.
    public var baseURL: String { publicBaseURL.current }

    /// The SMART configuration document (`DiscoveryHandler`).
    public func smartConfiguration() -> ServiceResponse { discovery.smartConfiguration() }

    // MARK: Shared plumbing

    var now: Timestamp { clock.now() }

    var ledger: PermissionLedger { ledgerCache.ledger }

    /// The cached registration of `csi`: its key, device and class, without its claims (which
    /// stay in the store and are read only when released, so registrations cost memory by
    /// their count, not by the size of what they claim).
    func registration(_ csi: CsiGuid) -> CsiRegistration? { ledgerCache.registration(csi) }

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
        ledgerCache.apply(change)
        if !indexes.isEmpty { metrics.auditEntries.increment(by: indexes.count) }
        return appended
    }

    /// Takes one request from `csi`'s allowance (after its signature or assertion verified, so
    /// nobody can spend another's): `rateLimited` when it is used up.
    func requireWithinRate(_ csi: CsiGuid) throws(SMOACError) {
        if let retryAfter = rateLimits.identity.take(csi.rawValue, now: now) {
            metrics.rateLimited(kind: "identity")
            throw .rateLimited(retryAfterSeconds: retryAfter)
        }
    }

    /// Counts a refusal of a caller that could not be verified (see ``RefusalTally``): nothing
    /// is written per request, and nobody named in the request is blamed.
    func tallyUnverifiedRefusal(_ type: AuditEventType = .authenticationFailure, error: SMOACError) {
        auditLog.refusals.record(type, reason: error.errorCode)
        metrics.unverifiedRefusals(reason: error.errorCode)
    }

    /// Returns once the audit group commit is idle: no group being written or waiting, and the
    /// checkpoint that may follow the last group signed and stored. Await it before closing the
    /// store, so no late checkpoint meets a closed store.
    public func finishAuditWrites() async {
        await auditLog.committer.idle()
    }

    /// Writes the events counted since the last call (see `RefusalTally`) as aggregate audit
    /// entries (agent `unverified`, with their count). The checkpoint signer calls it every period and at
    /// shutdown.
    public func flushRefusals() async {
        let drained = auditLog.refusals.drain()
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
            auditLog.refusals.restore(drained)
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

extension Array where Element == CompatQuirk {
    /// Sorted, without repeats (the audit entry's form).
    var sortedUnique: [CompatQuirk] { count < 2 ? self : Array(Set(self)).sorted() }
}
