import Hummingbird

/// The audit log (§4.2) under `/audit`: checkpoints, the key, entries (released by the bearer
/// token's reader, ``BearerAuthenticationMiddleware``), proofs; and `audit/validate`, also
/// under `/smoac`. Each calls ``TrustService/handleAudit(_:)``.
struct AuditController {
    let service: TrustService

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let service = self.service
        let audit = router.group("audit").add(middleware: BearerAuthenticationMiddleware(service: service))
        for path in ["checkpoint", "checkpoints", "key", "entries", "proof/inclusion", "proof/consistency"] {
            audit.get(RouterPath(path)) { request, context in
                try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await Self.answer(service, $0) }
            }
        }
        for (group, prefix) in [(router.group(), nil), (router.group("smoac"), "/smoac")] as [(RouterGroup<FhirBlocksRequestContext>, String?)] {
            group.post("audit/validate") { request, context in
                try await FhirBlocksRouter.handle(request, context: context, limit: 64 * 1024, stripPrefix: prefix) { await Self.answer(service, $0) }
            }
        }
    }

    private static func answer(_ service: TrustService, _ request: ServiceRequest) async -> ServiceResponse {
        await service.handleAudit(request) ?? ServiceResponse.error(.unknownTarget("unknown endpoint"))
    }
}
