import Hummingbird

/// The audit log's routes (§4.2) under `/audit`: `GET checkpoint`, `checkpoints`, `key`,
/// `entries` (released to the reader the bearer token authenticated by ``BearerAuthenticationMiddleware`` stands for),
/// `proof/inclusion`, `proof/consistency`; and `POST audit/validate`, at the root and under
/// `/smoac` (``validateRoutes``).
struct AuditController {
    let service: TrustService

    /// The log's routes, to add at `/audit`.
    var routes: RouteCollection<FhirBlocksRequestContext> {
        let service = self.service
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        routes.get("checkpoint") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in await service.latestCheckpoint() }
        }
        routes.get("checkpoints") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in await service.allCheckpoints() }
        }
        routes.get("key") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in service.auditKeyDocument() }
        }
        // Entries are released to the reader the bearer token stands for (anonymous without one).
        routes.group().add(middleware: BearerAuthenticationMiddleware(service: service, policy: .optional)).get("entries") { request, context in
            let authentication = context.authentication
            return try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await service.entries($0, authentication: authentication) }
        }
        routes.get("proof/inclusion") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await service.inclusionProof($0) }
        }
        routes.get("proof/consistency") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await service.consistencyProof($0) }
        }
        return routes
    }

    /// `POST audit/validate`, to add at `/` and at `/smoac`.
    var validateRoutes: RouteCollection<FhirBlocksRequestContext> {
        let service = self.service
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        routes.post("audit/validate") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 64 * 1024) { await service.validate($0) }
        }
        return routes
    }
}
