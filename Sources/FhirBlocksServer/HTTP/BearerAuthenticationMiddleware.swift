import Hummingbird

/// Authenticates the `Authorization: Bearer` header once, before the route runs, into the
/// typed request context (``FhirBlocksRequestContext/authentication``): the token's stored
/// record and the grants the permission ledger backs now, confirmed against the store's
/// ledger version (``TrustLedger/authenticate(authorization:)``). Added to the route groups
/// that take a token; how a group treats a request without an active one is its ``Policy``.
struct BearerAuthenticationMiddleware: RouterMiddleware {
    typealias Context = FhirBlocksRequestContext

    /// How a route group treats the bearer token.
    enum Policy: Sendable {
        /// The route runs whatever the token is, and answers `.none` or `.inactive` its own way
        /// (the audit log's entries: leaf hashes only, or `invalid_client`).
        case optional
        /// Without an active token the answer is `refusal`, and the route does not run. The
        /// body is collected first, up to `bodyLimit` bytes (413 beyond it), as the route
        /// would collect it: a body too large is refused as too large whatever the token.
        case required(refusal: ServiceResponse, bodyLimit: Int)
        /// The header is resolved against the ledger installed now, without reading the
        /// store's version, into ``FhirBlocksRequestContext/unconfirmedBearer``: for the FHIR
        /// read by id, which confirms it in the same store read as the resource.
        case unconfirmed
    }

    /// The ledger and token cache the header is resolved against.
    let ledger: TrustLedger
    let policy: Policy

    init(ledger: TrustLedger, policy: Policy = .optional) {
        self.ledger = ledger
        self.policy = policy
    }

    /// The middleware over `service`'s ledger.
    init(service: TrustService, policy: Policy = .optional) {
        self.init(ledger: service.trustLedger, policy: policy)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The first `Authorization` field, as the service reads headers (``FhirBlocksRouter`` keeps
        // the first of each name): `headers[.authorization]` would join every value of the field.
        let header = request.headers.first(where: { $0.name == .authorization })?.value
        var context = context
        switch policy {
        case .optional:
            context.authentication = await ledger.authenticate(authorization: header)
            return try await next(request, context)
        case .required(let refusal, let bodyLimit):
            var request = request
            if let tooLarge = await FhirBlocksRouter.collectBody(of: &request, limit: bodyLimit) { return tooLarge }
            context.authentication = await ledger.authenticate(authorization: header)
            guard context.access != nil else { return FhirBlocksRouter.bridge(refusal) }
            return try await next(request, context)
        case .unconfirmed:
            if let header { context.unconfirmedBearer = await ledger.provisionalBearer(authorization: header) }
            return try await next(request, context)
        }
    }
}
