import FhirBlocks

/// Every allowance the server counts, one ``RateLimiter`` each, built from the
/// ``ServerConfiguration`` once: the routes' middleware and the endpoints are given this one
/// value and spend from it (all read the service's clock, so tests move time instead of waiting).
struct RateLimits: Sendable {
    /// Requests per client address, before anything is parsed (``RateLimitMiddleware``).
    let address: RateLimiter
    /// Requests per csiGuid, once its signature or assertion verified.
    let identity: RateLimiter
    /// Dynamic client registrations per address.
    let registration: RateLimiter
    /// New `/authorize` requests per address and per client.
    let authorization: RateLimiter
    /// Wrong user codes per wallet and per address.
    let decisionGuess: RateLimiter
    /// Wrong user codes from everyone together (see ``guessExposureFactor``).
    let decisionGuessTotal: RateLimiter

    /// The limits `configuration` sets.
    init(configuration: ServerConfiguration) {
        address = RateLimiter(limit: configuration.rateLimitPerAddress)
        identity = RateLimiter(limit: configuration.rateLimitPerIdentity)
        registration = RateLimiter(limit: configuration.registrationRate)
        authorization = RateLimiter(limit: configuration.authorizationRate)
        decisionGuess = RateLimiter(limit: configuration.decisionGuessRate)
        decisionGuessTotal = RateLimiter(limit: Self.totalGuessRate(configuration.decisionGuessRate), maximumKeys: 1)
    }
}

extension RateLimits {
    /// Takes one request from `csi`'s allowance at `now` (after its signature or assertion
    /// verified, so nobody can spend another's): `rateLimited` when it is used up, counted in
    /// `metrics`.
    func requireWithinRate(_ csi: CsiGuid, now: Timestamp, metrics: ServerMetrics) throws(SMOACError) {
        if let retryAfter = identity.take(csi.rawValue, now: now) {
            metrics.rateLimited(kind: "identity")
            throw .rateLimited(retryAfterSeconds: retryAfter)
        }
    }

    /// How many times the per-caller guess rate all callers together may name codes that do
    /// not wait (see ``totalGuessRate(_:)``).
    static let guessExposureFactor: Double = 10

    /// The rate of wrong user codes from everyone together: ``guessExposureFactor`` times the
    /// per-wallet and per-address rate. It bounds how many guesses any one pending request is
    /// exposed to in its lifetime (burst + lifetime × rate), however many wallets and addresses
    /// the guesser has; a code that waits is never slowed down by it.
    static func totalGuessRate(_ perCaller: RateLimit) -> RateLimit {
        RateLimit(perSecond: perCaller.perSecond * guessExposureFactor, burst: perCaller.burst * guessExposureFactor)
    }
}
