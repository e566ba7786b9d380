import Hummingbird

/// Resolves the `Authorization` header once, before the route runs, into the typed request
/// context (``FhirBlocksRequestContext/bearer``): the token's stored record and the grants the
/// installed ledger backs, to be confirmed against the store's ledger version by the endpoint
/// (see ``BearerResolution``). It refuses nothing itself: each endpoint answers a missing or inactive
/// token its own way (the FHIR endpoint 401 with `WWW-Authenticate`, the audit log anonymously
/// or `invalid_client`, introspection `invalid_client`).
struct BearerAuthenticationMiddleware: RouterMiddleware {
    typealias Context = FhirBlocksRequestContext
    let service: TrustService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The first `Authorization` field, as the service reads it (``FhirBlocksRouter`` keeps
        // the first of each name): `headers[.authorization]` would join every value of the field.
        guard let header = request.headers.first(where: { $0.name == .authorization })?.value else { return try await next(request, context) }
        var context = context
        context.bearer = await service.provisionalBearer(authorization: header)
        return try await next(request, context)
    }
}
