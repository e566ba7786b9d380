import FhirBlocks
import FhirBlocksStore
import Logging
import SmartHealthCards

/// The FhirBlocks server's composition: the store, the configuration and keys, and the small
/// components every area's endpoints are given, built once and started here. The endpoints
/// themselves live with their routes (``buildApplication(service:host:port:checkpointPeriodSeconds:connectionLimits:tls:logger:onListening:)``
/// registers them: the SMOAC, OAuth/SMART, FHIR and audit controllers), each handler receiving
/// the request already routed and, where the route takes a bearer token, already authenticated.
///
/// Decisions are the `FhirBlocks` core's (signatures, replay, the permission ledger, VACA,
/// label filtering, Merkle proofs); the endpoints load what they need, store what they return
/// through one `TrustStore.commit(_:)` per request (the audit entry in the same transaction as
/// the change it records) and answer. What the server holds between requests is in small
/// components: the permission ledger, registrations and tokens as last read (the ledger and
/// token cache, validated on each request against the store's ledger version, so several
/// servers on one database agree at once, and reloaded when it moved), the audit log's
/// leaves, checkpoints and group commit with the committer that keeps both in step with the
/// store (audit-only changes, the entry of a read or of a refusal, are committed in groups,
/// each request answering once its own entry is durable), and the rate limits; everything
/// else is read from the store. Cryptography runs outside any lock, so requests proceed in
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
    /// Every allowance counted.
    let rateLimits: RateLimits
    /// The permission ledger, registrations and tokens as last read from the store.
    let trustLedger: TrustLedger
    /// The committer of every change, with the audit log's leaves, checkpoints, group commit
    /// and refusal tally.
    let committer: ChangeCommitter
    /// The base URL (``baseURL``).
    let publicBaseURL: PublicBaseURL
    /// The discovery documents' handler (the SMART configuration, the CapabilityStatement).
    let discovery: DiscoveryHandler

    /// Creates a service over a migrated store. Call ``start()`` before serving.
    ///
    /// - Parameters:
    ///   - store: The migrated store.
    ///   - configuration: The configuration.
    ///   - auditKey: The key that signs the audit log's checkpoints.
    ///   - cardIssuerKey: The SMART Health Cards issuer key (nil: the server issues no cards).
    ///   - clock: Where the service reads the time.
    ///   - logger: The logger.
    ///   - metrics: The metrics the server counts into.
    public init(store: any TrustStore, configuration: ServerConfiguration = ServerConfiguration(), auditKey: CsiSigningKey,
                cardIssuerKey: SHCIssuerKey? = nil, clock: TrustClock = .system, logger: Logger = Logger(label: "fhirblocks"),
                metrics: ServerMetrics = ServerMetrics()) {
        self.store = store
        self.configuration = configuration
        self.auditKey = auditKey
        self.cardIssuerKey = cardIssuerKey
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        rateLimits = RateLimits(configuration: configuration)
        publicBaseURL = PublicBaseURL(configured: configuration.publicURL)
        trustLedger = TrustLedger(store: store, configuration: configuration, clock: clock, logger: logger, metrics: metrics)
        let auditLog = AuditLog(store: store, key: auditKey, keyName: configuration.checkpointKeyName, checkpointEvery: configuration.checkpointEvery,
                                clock: clock, logger: logger)
        committer = ChangeCommitter(store: store, trustLedger: trustLedger, auditLog: auditLog, publicBaseURL: publicBaseURL, clock: clock,
                                    logger: logger, metrics: metrics)
        discovery = DiscoveryHandler(configuration: configuration, publicBaseURL: publicBaseURL, clock: clock, cardIssuerKey: cardIssuerKey)
    }

    /// Loads registrations, permissions and the audit log's leaves from the store.
    public func start() async throws(TrustStoreError) {
        try await trustLedger.reload()
        try await committer.auditLog.load()
    }

    /// The configured auditors that are not registered. `health serve` refuses to start with
    /// any: in compat mode a client may choose its csiGuid, so a listed but unregistered GUID
    /// could be registered by anyone and read the whole log.
    public var unregisteredAuditors: [CsiGuid] {
        configuration.auditors.filter { trustLedger.registration($0) == nil }.sorted { $0.rawValue < $1.rawValue }
    }

    /// The configured card sources that are not registered clients. `health serve` refuses to
    /// start with any: in compat mode a client may choose its csiGuid, so a listed but
    /// unregistered GUID could be registered by anyone, and its writes signed.
    public var unregisteredCardSources: [CsiGuid] {
        configuration.cardSources.filter { trustLedger.registration($0) == nil }.sorted { $0.rawValue < $1.rawValue }
    }

    /// Sets the base URL once the socket is bound (when no public URL was configured):
    /// `SCHEME://HOST:PORT`, `https` when the server speaks TLS.
    ///
    /// - Parameters:
    ///   - host: The host the server listens on.
    ///   - port: The bound port.
    ///   - scheme: `http`, or `https` when the server speaks TLS.
    public func setBoundAddress(host: String, port: Int, scheme: String = "http") {
        publicBaseURL.set(boundHost: host, port: port, scheme: scheme)
    }

    /// The base URL assertion audiences and discovery use.
    public var baseURL: String { publicBaseURL.current }

    /// The current instant on the service's clock.
    var now: Timestamp { clock.now() }

    /// The installed permission ledger.
    var ledger: PermissionLedger { trustLedger.ledger }

    /// The access an `Authorization` header value grants now (``TrustLedger/bearer(authorization:)``).
    func bearer(authorization header: String?) async -> BearerAccess? {
        await trustLedger.bearer(authorization: header)
    }

    /// Commits `change` with its audit entries (``ChangeCommitter/commit(_:)``).
    @discardableResult
    func commit(_ change: TrustChange) async throws(SMOACError) -> [Int] {
        try await committer.commit(change)
    }

    // MARK: The audit log

    /// Appends `entry` to the audit log and returns its index once it is durable. The entry
    /// joins the next group commit, exactly as a protected read's entry does (its canonical bytes
    /// and leaf hash are computed here, on the caller's task); a storage failure is
    /// `server_error` and nothing of the entry's group was stored.
    ///
    /// - Parameter entry: The entry to append.
    /// - Returns: The entry's index in the log.
    public func appendAuditEntry(_ entry: AuditEntry) async throws(SMOACError) -> Int {
        try await committer.append(entry)
    }

    /// Signs and stores a checkpoint of the current tree if it is due (or `force` and the tree grew).
    @discardableResult
    func checkpointIfDue(force: Bool = false) async -> StoredCheckpoint? {
        await committer.checkpointIfDue(force: force)
    }

    /// Returns once the audit group commit is idle: no group being written or waiting, and the
    /// checkpoint that may follow the last group signed and stored. Await it before closing the
    /// store, so no late checkpoint meets a closed store.
    public func finishAuditWrites() async {
        await committer.auditLog.committer.idle()
    }

    /// Writes the events counted since the last call (see `RefusalTally`) as aggregate audit
    /// entries (agent `unverified`, with their count). The checkpoint signer calls it every period and at
    /// shutdown.
    public func flushRefusals() async {
        await committer.flushRefusals()
    }

    // MARK: Endpoints called without HTTP

    /// The SMART configuration document (`DiscoveryHandler`).
    ///
    /// - Returns: The `/.well-known/smart-configuration` answer.
    public func smartConfiguration() -> ServiceResponse { discovery.smartConfiguration() }

    /// `/.well-known/jwks.json`: the card issuer key's public JWK, 404 when the server has no
    /// issuer key.
    ///
    /// - Returns: The key set answer.
    public func healthCardsJWKS() -> ServiceResponse { HealthCardsController.jwks(cardIssuerKey) }

    /// `POST /oauth/token`: `client_credentials` with a `private_key_jwt` client assertion
    /// (SMART backend services), or `authorization_code` (a VACA code) with one; for SMART
    /// public clients `authorization_code` with a PKCE `code_verifier` and `refresh_token`.
    ///
    /// - Parameter request: The token request (its form body).
    /// - Returns: The token response, or the OAuth error.
    public func token(_ request: ServiceRequest) async -> ServiceResponse {
        await SmartAuthorizationController(service: self).token(request)
    }

    /// `GET /oauth/authorize`: SMART App Launch standalone launch, approved by the patient's
    /// wallet with a user code.
    ///
    /// - Parameter request: The authorization request (its query string and `Accept`).
    /// - Returns: The waiting page or document, the redirect with the outcome, or the refusal.
    public func authorize(_ request: ServiceRequest) async -> ServiceResponse {
        await SmartAuthorizationController(service: self).authorize(request)
    }

    /// `POST /oauth/register`: RFC 7591 dynamic client registration.
    ///
    /// - Parameter request: The registration request (its JSON body).
    /// - Returns: `201` with the client's `client_id`, or the registration error.
    public func registerClient(_ request: ServiceRequest) async -> ServiceResponse {
        await SmartAuthorizationController(service: self).registerClient(request)
    }

    /// `POST /oauth/introspect` (RFC 7662), the caller authenticated by its own bearer token in
    /// the request's `authorization` header.
    ///
    /// - Parameter request: The introspection request (its form body and headers).
    /// - Returns: The introspection response, or `invalid_client` without an active bearer token.
    public func introspect(_ request: ServiceRequest) async -> ServiceResponse {
        await SmartAuthorizationController(service: self).introspect(request)
    }

    /// `POST /oauth/revoke` (RFC 7009): revokes the access or refresh token given in the form.
    ///
    /// - Parameter request: The revocation request (its form body).
    /// - Returns: `200` (an unknown token included), or the error when the form has no token or the store fails.
    public func revoke(_ request: ServiceRequest) async -> ServiceResponse {
        await SmartAuthorizationController(service: self).revoke(request)
    }
}
