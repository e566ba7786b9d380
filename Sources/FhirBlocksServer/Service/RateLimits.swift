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
    /// Wrong user codes from everyone together (see ``TrustService/guessExposureFactor``).
    let decisionGuessTotal: RateLimiter

    /// The limits `configuration` sets.
    init(configuration: ServerConfiguration) {
        address = RateLimiter(limit: configuration.rateLimitPerAddress)
        identity = RateLimiter(limit: configuration.rateLimitPerIdentity)
        registration = RateLimiter(limit: configuration.registrationRate)
        authorization = RateLimiter(limit: configuration.authorizationRate)
        decisionGuess = RateLimiter(limit: configuration.decisionGuessRate)
        decisionGuessTotal = RateLimiter(limit: TrustService.totalGuessRate(configuration.decisionGuessRate), maximumKeys: 1)
    }
}
