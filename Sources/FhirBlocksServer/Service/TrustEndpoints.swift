import FhirBlocks
import FhirBlocksStore
import Logging

/// What an area's endpoints are given (``AuditEndpoints``, ``SMOACEndpoints``,
/// ``SmartEndpoints``, ``FHIREndpoints``): the ledger and token cache (``TrustLedger``) and the
/// committer with the audit log (``ChangeCommitter``), and through them the configuration and
/// the clock; each conformer holds the part of the store it reads itself. The conveniences
/// every handler uses are spelled once here.
protocol TrustEndpoints: Sendable {
    /// The ledger and token cache.
    var trustLedger: TrustLedger { get }
    /// The committer of changes and the audit log.
    var committer: ChangeCommitter { get }
    /// The configuration (the ledger's).
    var configuration: ServerConfiguration { get }
    /// The logger (the ledger's).
    var logger: Logger { get }
    /// The metrics (the ledger's).
    var metrics: ServerMetrics { get }
    /// The current instant on the server's clock.
    var now: Timestamp { get }
    /// The installed permission ledger.
    var ledger: PermissionLedger { get }
    /// The base URL assertion audiences, links and discovery use.
    var baseURL: String { get }
}

extension TrustEndpoints {
    var configuration: ServerConfiguration { trustLedger.configuration }
    var logger: Logger { trustLedger.logger }
    var metrics: ServerMetrics { trustLedger.metrics }
    var now: Timestamp { trustLedger.clock.now() }
    var ledger: PermissionLedger { trustLedger.ledger }
    var baseURL: String { committer.publicBaseURL.current }

    /// The cached registration of `csi`, without its claims.
    func registration(_ csi: CsiGuid) -> CsiRegistration? { trustLedger.registration(csi) }

    /// ``TrustLedger/refresh()``.
    @discardableResult
    func refreshLedger() async throws(SMOACError) -> Int64 { try await trustLedger.refresh() }

    /// ``ChangeCommitter/commit(_:)``.
    @discardableResult
    func commit(_ change: TrustChange) async throws(SMOACError) -> [Int] { try await committer.commit(change) }

    /// ``ChangeCommitter/storeCommit(_:)``.
    @discardableResult
    func storeCommit(_ change: TrustChange) async throws(TrustStoreError) -> [Int] { try await committer.storeCommit(change) }

    /// ``ChangeCommitter/tallyUnverifiedRefusal(_:error:)``.
    func tallyUnverifiedRefusal(_ type: AuditEventType = .authenticationFailure, error: SMOACError) {
        committer.tallyUnverifiedRefusal(type, error: error)
    }

    /// ``ChangeCommitter/auditFailure(_:agent:error:quirks:body:)``.
    func auditFailure(_ type: AuditEventType = .authenticationFailure, agent: String, error: SMOACError, quirks: [CompatQuirk] = [], body: [UInt8]) async {
        await committer.auditFailure(type, agent: agent, error: error, quirks: quirks, body: body)
    }

    func random<T, E: Error>(_ body: (inout SystemRandomNumberGenerator) throws(E) -> T) throws(E) -> T {
        var generator = SystemRandomNumberGenerator()
        return try body(&generator)
    }

    static func hexSHA256(_ bytes: [UInt8]) -> String { AuditDigest.hexSHA256(bytes) }

    static func signatureDigest(_ signature: String) -> String { AuditDigest.signature(signature) }
}

/// Endpoints that also count allowances (``RateLimits``).
protocol RateLimitedEndpoints: TrustEndpoints {
    /// Every allowance counted.
    var rateLimits: RateLimits { get }
}

extension RateLimitedEndpoints {
    /// Takes one request from `csi`'s allowance (after its signature or assertion verified, so
    /// nobody can spend another's): `rateLimited` when it is used up.
    func requireWithinRate(_ csi: CsiGuid) throws(SMOACError) {
        try rateLimits.requireWithinRate(csi, now: now, metrics: metrics)
    }
}
