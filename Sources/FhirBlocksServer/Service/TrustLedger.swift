import FhirBlocks
import FhirBlocksStore
import Logging

/// The permission ledger, the registrations and the access tokens as the endpoints read them:
/// the in-memory ``LedgerCache`` kept up to the store's ledger version, and the bearer tokens
/// resolved against it. One per server, given to every area's endpoints and to
/// ``BearerAuthenticationMiddleware``.
final class TrustLedger: Sendable {
    /// The store the ledger is read from.
    let store: any LedgerStore & TokenStore
    /// The configuration (protocol mode, auditors).
    let configuration: ServerConfiguration
    let clock: TrustClock
    let logger: Logger
    let metrics: ServerMetrics
    /// What was last read, with its version.
    let cache = LedgerCache()

    init(store: any LedgerStore & TokenStore, configuration: ServerConfiguration, clock: TrustClock, logger: Logger, metrics: ServerMetrics) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// The installed ledger.
    var ledger: PermissionLedger { cache.ledger }

    /// The cached registration of `csi`: its key, device and class, without its claims (which
    /// stay in the store and are read only when released, so registrations cost memory by
    /// their count, not by the size of what they claim).
    func registration(_ csi: CsiGuid) -> CsiRegistration? { cache.registration(csi) }

    /// Brings the cached ledger and registrations up to the store's before a decision reads
    /// them: one read of ``TrustStore/ledgerVersion()``, and a reload only when it moved (a
    /// registration, grant or revocation committed by this server or by another one on the same
    /// database). A revocation committed anywhere is therefore in force for every request that
    /// starts after it.
    /// Returns the version read.
    @discardableResult
    func refresh() async throws(SMOACError) -> Int64 {
        do {
            let version = try await store.ledgerVersion()
            guard cache.version != version else { return version }
            try await reload()
            return version
        } catch {
            logger.error("reading the permission ledger failed", metadata: ["reason": "\(error.description)"])
            throw .storageFailure("the permission ledger could not be read")
        }
    }

    /// Reads the ledger's version, then registrations and permissions (at least as new as that
    /// version), and installs them unless a newer version is installed already.
    func reload() async throws(TrustStoreError) {
        let version = try await store.ledgerVersion()
        let registrations = try await store.registrations()
        let permissions = try await store.permissions()
        let ledger = PermissionLedger(wallets: Set(registrations.filter(\.isWallet).map(\.csiGuid)), permissions: permissions,
                                      auditors: configuration.auditors)
        cache.install(version: version, registrations: registrations, ledger: ledger)
        metrics.ledgerReloads.increment()
    }

    // MARK: Bearer tokens

    /// Authenticates an `Authorization` header value (``BearerAuthenticationMiddleware`` does, once
    /// per request): `.none` without one, `.inactive` when its token is not active, else the
    /// access it grants, confirmed against the store's ledger version.
    func authenticate(authorization header: String?) async -> BearerAuthentication {
        guard let header else { return .none }
        guard let access = await bearer(authorization: header) else { return .inactive }
        return .active(access)
    }

    /// Resolves an `Authorization` header value to its token's stored record and the grants
    /// still usable now, after bringing the ledger up to the store's; nil when missing,
    /// unknown, expired, revoked, or no longer backed by a permission.
    func bearer(authorization header: String?) async -> TrustService.BearerAccess? {
        guard let header, let presented = BearerCredential.token(fromAuthorization: header, mode: configuration.mode) else { return nil }
        let version: Int64
        do {
            version = try await refresh()
        } catch {
            return nil
        }
        return await access(presented, ledgerVersion: version, ledger: ledger)
    }

    /// Resolves an `Authorization` header value against the ledger installed now, without
    /// reading the store's version (see ``BearerResolution``): the middleware's answer, which
    /// the endpoint confirms.
    func provisionalBearer(authorization header: String) async -> BearerResolution {
        let (version, ledger) = cache.snapshot
        guard let presented = BearerCredential.token(fromAuthorization: header, mode: configuration.mode) else {
            return BearerResolution(header: header, access: nil, ledgerVersion: version)
        }
        return BearerResolution(header: header, access: await access(presented, ledgerVersion: version, ledger: ledger), ledgerVersion: version)
    }

    /// The presented token's record and the grants `ledger` (of version `version`) backs now.
    private func access(_ presented: Accepted<String>, ledgerVersion version: Int64, ledger: PermissionLedger) async -> TrustService.BearerAccess? {
        guard let cached = await token(presented: presented.value, ledgerVersion: version), !cached.stored.revoked else { return nil }
        var grants = cached.stored.accessToken(presented: presented.value).grants(at: clock.now(), ledger: ledger)
        if grants.isEmpty { grants = BackendServices.systemGrants(of: cached.stored, at: clock.now(), ledger: ledger) }
        guard !grants.isEmpty else { return nil }
        return TrustService.BearerAccess(token: cached.stored, grants: grants, quirks: presented.quirks, scopeText: cached.scopeText)
    }

    /// The stored token presented as `presented`: from memory when it was read while the
    /// ledger's version was `ledgerVersion` (the version this request read; a revocation raises
    /// it and empties the cache), else from the store by its hash, kept for the next request if
    /// that version is still the one installed. Unknown tokens are not kept (one may be issued
    /// at any time). The token's hash (SHA-256, the store's key) is remembered by the token's
    /// text, so a token presented again costs a dictionary lookup, not a hash.
    func token(presented: String, ledgerVersion version: Int64) async -> TrustService.CachedAccessToken? {
        let (known, cached) = cache.token(presented: presented, version: version)
        if let cached { return cached }
        let hash = known ?? AccessToken.hash(of: presented)
        guard let stored = try? await store.token(hash: hash) else { return nil }
        let read = TrustService.CachedAccessToken(stored)
        if !stored.revoked { cache.keep(read, presented: presented, hash: hash, version: version) }
        return read
    }

    // MARK: Who a token stands for

    /// Whether the token is the patient's own wallet's (its client is the patient, a wallet):
    /// nothing in the compartment is kept from it, and it sees every Consent and AuditEvent
    /// about itself. A grantee's token never is, whatever its labels.
    func isOwnerToken(_ access: TrustService.BearerAccess) -> Bool {
        access.token.client == access.token.patient && ledger.wallets.contains(access.token.client)
    }

    /// Who reads the audit log: anonymous without an `Authorization` header; nil when a bearer
    /// token is presented but is not active.
    func auditReader(_ authentication: BearerAuthentication) -> AuditReader? {
        switch authentication {
        case .none: .anonymous
        case .inactive: nil
        case .active(let access): auditReader(access)
        }
    }

    /// The reader a token stands for: an auditor (a listed client with the auditor scope), a
    /// wallet over its own data, or a client reading about its own actions.
    func auditReader(_ access: TrustService.BearerAccess) -> AuditReader {
        let client = access.token.client
        if configuration.auditors.contains(client), access.grants.contains(where: { $0.isSubset(of: .auditor) }) { return .auditor }
        if isOwnerToken(access) { return .patient(client) }
        return .agent(client)
    }
}
