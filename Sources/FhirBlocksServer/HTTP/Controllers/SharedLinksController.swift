import FhirBlocksStore
import Hummingbird

/// SMART Health Links hosted for wallets (``SharedLinkHost``): the public link endpoints of the
/// links specification — `POST /shl/{id}` (the manifest), `GET /shl/{id}?recipient=` (a `U`
/// link's file), `GET /shl/file/{token}` (a file location), each with its CORS preflight
/// (`OPTIONS`) — and the wallet's management endpoints `POST`/`GET /shl-links`,
/// `PUT`/`DELETE /shl-links/{id}` (the wallet's own bearer token).
struct SharedLinksController {
    let host: SharedLinkHost

    /// The controller over the hosted links (`links`), the ledger that says whose bearer token
    /// manages them (`trustLedger`) and the committer of their audit entries (`committer`).
    init(links: any LinkStore, trustLedger: TrustLedger, committer: ChangeCommitter) {
        host = SharedLinkHost(linkStore: links, trustLedger: trustLedger, committer: committer)
    }

    func addRoutes(to router: Router<FhirBlocksRequestContext>) {
        let host = self.host
        let preflight: @Sendable (Request, FhirBlocksRequestContext) async throws -> Response = { _, _ in
            FhirBlocksRouter.bridge(SharedLinkHost.preflight())
        }
        router.on("shl/{id}", method: .options, use: preflight)
        router.on("shl/file/{token}", method: .options, use: preflight)
        router.post("shl/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await FhirBlocksRouter.handle(request, context: context, limit: SharedLinkHost.maximumManifestRequestBytes) {
                await host.manifest(id: id, body: $0.body)
            }
        }
        router.get("shl/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await FhirBlocksRouter.handle(request, context: context, limit: 0) {
                await host.directFile(id: id, recipient: $0.query["recipient"])
            }
        }
        router.get("shl/file/{token}") { request, context in
            let token = context.parameters.get("token") ?? ""
            return try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in await host.location(token: token) }
        }
        router.post("shl-links") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: SharedLinkHost.maximumManagementBytes) { await host.create($0) }
        }
        router.get("shl-links") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await host.list($0) }
        }
        router.put("shl-links/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await FhirBlocksRouter.handle(request, context: context, limit: SharedLinkHost.maximumManagementBytes) {
                await host.update(id: id, $0)
            }
        }
        router.delete("shl-links/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await host.revoke(id: id, $0) }
        }
    }
}
