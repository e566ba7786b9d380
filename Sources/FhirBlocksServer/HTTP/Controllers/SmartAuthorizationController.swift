import Hummingbird

/// OAuth 2.0 and SMART App Launch: discovery (at the root and under `/fhir`), the token,
/// authorization, registration, introspection and revocation endpoints under `/oauth`. The
/// discovery document is the `DiscoveryHandler`'s, given only the configuration, base URL,
/// clock and card issuer key.
/// Introspection authenticates its caller by bearer token (``BearerAuthenticationMiddleware``,
/// `required`: the handler runs with the caller's access).
struct SmartAuthorizationController {
    let service: TrustService

    /// The largest form the token, introspection and revocation endpoints read.
    static let formLimit = 64 * 1024

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let service = self.service
        let discovery = service.discovery
        for path in [".well-known/smart-configuration", "fhir/.well-known/smart-configuration"] {
            router.get(RouterPath(path)) { _, _ in FhirBlocksRouter.bridge(discovery.smartConfiguration()) }
        }
        let oauth = router.group("oauth")
        oauth.post("token") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: Self.formLimit) { await service.token($0) }
        }
        oauth.get("authorize") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await service.authorize($0) }
        }
        oauth.post("register") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: TrustService.maximumRegistrationBody) { await service.registerClient($0) }
        }
        oauth.post("revoke") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: Self.formLimit) { await service.revoke($0) }
        }
        let introspection = BearerAuthenticationMiddleware(
            service: service, policy: .required(refusal: TrustService.introspectionUnauthenticated(), bodyLimit: Self.formLimit))
        oauth.group("introspect").add(middleware: introspection).post { request, context in
            guard let caller = context.access else { return FhirBlocksRouter.bridge(TrustService.introspectionUnauthenticated()) }
            return try await FhirBlocksRouter.handle(request, context: context, limit: Self.formLimit) { await service.introspect($0, caller: caller) }
        }
    }
}
