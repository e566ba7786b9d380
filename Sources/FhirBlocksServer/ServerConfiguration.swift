import FhirBlocks

/// How a FhirBlocks server behaves: protocol mode, limits, lifetimes and the audit log's
/// checkpoint cadence. Where it listens is the HTTP layer's (``FhirBlocksApplication``).
public struct ServerConfiguration: Sendable {
    /// `strict` (the default) or `compat` (accepts the legacy clients' quirks, §1.10, and
    /// audits each one).
    public var mode: ProtocolMode
    /// The public base URL (no trailing slash); assertion audiences are checked against it.
    /// Nil: `http://<host>:<port>` of the bound socket.
    public var publicURL: String?
    /// Label filtering policy (§2.7).
    public var labelPolicy: LabelPolicy
    /// `dateTime` window and nonce retention (§1.6).
    public var replayPolicy: ReplayPolicy
    /// Authorization code lifetime (≤ 60 s).
    public var codeLifetimeSeconds: Int64
    /// Access token lifetime (≤ 300 s).
    public var tokenLifetimeSeconds: Int64
    /// Sign a checkpoint when this many entries were appended since the last one.
    public var checkpointEvery: Int
    /// The name of the log's signing key in checkpoint signature lines.
    public var checkpointKeyName: String
    /// The largest request body accepted (bytes).
    public var maximumBodySize: Int
    /// The server version reported by `util/ping`.
    public var version: String
    /// The rate one IP address may send at (every route but `/health`), 200/s with a burst of
    /// 1,000 by default.
    public var rateLimitPerAddress: RateLimit
    /// The rate one verified identity (csiGuid) may make signed requests and assertions at,
    /// 100/s with a burst of 1,000 by default.
    public var rateLimitPerIdentity: RateLimit
    /// How long a GUID from `util/getGloballyUniqueIdentifier` may be used to register
    /// (seconds); older ones are forgotten.
    public var guidLifetimeSeconds: Int64
    /// Registered clients that may read every audit entry with a `system/AuditEvent.rs`
    /// token (everyone else sees only the entries about them, §4.2).
    public var auditors: Set<CsiGuid>
    /// SMART App Launch: how long an `/authorize` request waits for the wallet (seconds).
    public var authorizationLifetimeSeconds: Int64
    /// SMART App Launch: how long an approval lasts when the wallet does not say (seconds).
    public var defaultApprovalSeconds: Int64
    /// SMART App Launch: the most public clients dynamic registration keeps.
    public var maximumSmartClients: Int
    /// SMART App Launch: the rate at which the whole server accepts dynamic registrations (on
    /// top of the per-address limit every route has), 1/s with a burst of 20 by default.
    public var registrationRate: RateLimit
    /// SMART App Launch: the rate at which the whole server opens new `/authorize` requests
    /// (reloading a waiting one is not counted), 10/s with a burst of 100 by default.
    public var authorizationRate: RateLimit
    /// SMART App Launch: the rate at which one wallet may name an unknown, expired or decided
    /// user code (guessing), 1/s with a burst of 10 by default.
    public var decisionGuessRate: RateLimit
    /// How long each database statement of a FHIR search may run (the SQLite store: the
    /// statements of each of the search's reads together) before it is stopped and the search
    /// answered 503 with an OperationOutcome and `Retry-After`; nil for no limit. 10 s by
    /// default.
    public var searchTimeBudget: Duration? = .seconds(10)
    /// SMART Health Cards: the identities (registered clients, by csiGuid) whose writes the
    /// server vouches for as an issuer. `$health-cards-issue` signs only resources whose
    /// current version one of them wrote, or that a `Provenance` one of them wrote targets,
    /// never what the patient's wallet or another app wrote. Empty (the default): the server
    /// signs nothing and does not advertise card issuing.
    public var cardSources: Set<CsiGuid> = []
    /// Bulk Data export: how long a job and its files are kept after it was asked for, in
    /// seconds (24 h by default; `health serve --export-retention`).
    public var exportRetentionSeconds: Int64 = 86_400
    /// Bulk Data export: the most export files one server sends at once (6 by default; at least
    /// 1). A download holds at most three pieces of its file in memory at a time (one being
    /// written, one waiting to be, one read ahead or being copied from its row): 1 MiB each
    /// from a file on disk, a chunk of 1 to about 3 MiB from PostgreSQL, so 6 downloads hold at
    /// most about 18 MiB (SQLite) or 54 MiB (PostgreSQL, every chunk at its largest) while being
    /// read; the last piece or two of a download may wait in its connection's buffers after its
    /// place is given back, until the client reads them. A download
    /// past the cap is answered at once with `503`, `Retry-After` and an OperationOutcome
    /// (`throttled`); nothing waits for a place.
    public var maximumExportDownloads = 6
    /// SMART Backend Services: whether a client may register a `jwks_uri` on `http` to a
    /// loopback address (127.0.0.1, `::1`, `localhost`), for tests; otherwise (the default)
    /// only `https` key set URLs are accepted.
    public var allowsLoopbackKeySetURLs = false
    /// SMART Backend Services: the most backend clients registration keeps (1,000 by default);
    /// past it `/oauth/register` refuses a backend client with `429`.
    public var maximumBackendClients = 1_000

    /// Creates a configuration.
    public init(mode: ProtocolMode = .strict, publicURL: String? = nil, labelPolicy: LabelPolicy = .default, replayPolicy: ReplayPolicy = .default,
                codeLifetimeSeconds: Int64 = 60, tokenLifetimeSeconds: Int64 = 300, checkpointEvery: Int = 64,
                checkpointKeyName: String = "fhirblocks-audit", maximumBodySize: Int = 1 << 20, version: String = "1.0.0",
                auditors: Set<CsiGuid> = [], guidLifetimeSeconds: Int64 = 600,
                rateLimitPerAddress: RateLimit = RateLimit(perSecond: 200, burst: 1000),
                rateLimitPerIdentity: RateLimit = RateLimit(perSecond: 100, burst: 1000),
                authorizationLifetimeSeconds: Int64 = 600, defaultApprovalSeconds: Int64 = 30 * 86_400, maximumSmartClients: Int = 10_000,
                registrationRate: RateLimit = RateLimit(perSecond: 1, burst: 20),
                authorizationRate: RateLimit = RateLimit(perSecond: 10, burst: 100),
                decisionGuessRate: RateLimit = RateLimit(perSecond: 1, burst: 10)) {
        self.authorizationRate = authorizationRate
        self.decisionGuessRate = decisionGuessRate
        self.authorizationLifetimeSeconds = max(1, authorizationLifetimeSeconds)
        self.defaultApprovalSeconds = max(1, defaultApprovalSeconds)
        self.maximumSmartClients = max(0, maximumSmartClients)
        self.registrationRate = registrationRate
        self.rateLimitPerAddress = rateLimitPerAddress
        self.rateLimitPerIdentity = rateLimitPerIdentity
        self.guidLifetimeSeconds = max(1, guidLifetimeSeconds)
        self.mode = mode
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.labelPolicy = labelPolicy
        self.replayPolicy = replayPolicy
        self.codeLifetimeSeconds = codeLifetimeSeconds
        self.tokenLifetimeSeconds = tokenLifetimeSeconds
        self.checkpointEvery = max(1, checkpointEvery)
        self.checkpointKeyName = checkpointKeyName
        self.maximumBodySize = maximumBodySize
        self.version = version
        self.auditors = auditors
    }

    /// Why this configuration must not be served on `host`, or nil. Compat mode accepts the
    /// legacy payloads, which sign too little (a claims lookup and a revocation sign the same
    /// bytes; a grant's `accessType` is unsigned): they are safe only where nobody can change a
    /// request on the way. So compat is served on loopback, or behind TLS (an `https`
    /// ``publicURL``), never as plain HTTP to the network.
    public func transportProblem(host: String) -> String? {
        guard mode == .compat else { return nil }
        if Self.isLoopback(host) { return nil }
        if let publicURL, publicURL.lowercased().hasPrefix("https://") { return nil }
        return "compat mode is served only on loopback or behind TLS: bind 127.0.0.1, or give --public-url https://… for the TLS proxy in front"
    }

    /// Whether `host` is a loopback name or address.
    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        return lower == "localhost" || lower == "::1" || lower == "[::1]" || lower.hasPrefix("127.")
    }
}
