import FhirBlocks
import Hummingbird

/// Answers 429 (`Retry-After`) to an address that sends faster than its ``RateLimit``, before
/// any parsing or authentication. `/health` is never limited. The rest of the request runs
/// with the address bound to ``ClientAddress/current`` (the service's own per-address limits).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = FhirBlocksRequestContext
    /// The per-address allowances.
    let rateLimits: RateLimits
    /// The server's clock.
    let clock: TrustClock
    /// Where refusals are counted.
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health" { return try await next(request, context) }
        // A request without a peer (HummingbirdTesting's router mode) keeps the address its
        // caller bound (`local` unless a test binds another).
        let address = context.remoteAddress.map { ClientAddress.key(of: $0) } ?? ClientAddress.current
        if let retryAfter = rateLimits.address.take(address, now: clock.now()) {
            metrics.rateLimited(kind: "address")
            let refusal = ServiceResponse.error(.rateLimited(retryAfterSeconds: retryAfter))
            return FhirBlocksRouter.bridge(refusal)
        }
        return try await ClientAddress.$current.withValue(address) { try await next(request, context) }
    }
}
