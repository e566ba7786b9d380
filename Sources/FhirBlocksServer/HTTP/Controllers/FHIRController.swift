import FhirBlocksStore
import HTTPTypes
import Hummingbird
import SmartHealthCards

/// The protected FHIR endpoint's routes, registered once each under `/fhir` (§1.4, §2.7):
///
/// | path | GET | POST | PUT | DELETE, PATCH |
/// |---|---|---|---|---|
/// | (the base) | – | `batch` or `transaction` Bundle | – | – |
/// | `metadata` | CapabilityStatement (no token) | create (unknown type) | – | – |
/// | `{type}` (PUT: conditional update) | search | create (`If-None-Exist`: conditional) | update the one match | – |
/// | `{type}/_history`, `{type}/{id}/_history` | history | – | – | – |
/// | `{type}/{id}/_history/{vid}` | vread | – | – | – |
/// | `{type}/{id}` | read | `{type}/$validate` | update or create (`If-Match`) | delete (`If-Match`); PATCH 405 |
/// | `Patient/{id}/$everything` | everything | – | – | – |
/// | `Patient/{id}/$health-cards-issue` (`%24` too) | – | issue cards | – | – |
/// | `{type}/{id}/**` (anything deeper) | – | – | – | – |
///
/// `Patient` and `Patient/{id}` are routed like `{type}` and `{type}/{id}`. Every path takes
/// the five methods: a dash answers 404 `unknown FHIR path`. Except the CapabilityStatement and
/// the read by id, the routes are one group behind ``BearerAuthenticationMiddleware`` with the
/// `required` policy: a handler runs only for an active bearer token, confirmed against the
/// store's ledger version, and reads the caller's access from the request context; without
/// one the answer is 401 with `WWW-Authenticate`, whatever the path (the body is collected
/// first: 413 beyond ``ServerConfiguration/maximumBodySize``). The read by id is behind the
/// middleware's `unconfirmed` policy: it confirms the token in the same store read as the resource.
struct FHIRController: TrustEndpoints {
    /// The parts of the store the handlers read themselves (every write goes through the
    /// committer): resources, their writers and search (`ResourceStore`), the audit log's
    /// entries about a patient, shown as AuditEvents (`AuditStore`), and the Bulk Data Groups
    /// read by id (`ExportStore`).
    typealias Store = ResourceStore & AuditStore & ExportStore

    /// The store's parts the handlers read (``Store``).
    let store: any Store
    /// The versions the store keeps (`vread`, `_history`, what a deletion ended); nil when it
    /// keeps none (those answer 404).
    let historyStore: (any ResourceHistoryStore)?
    let trustLedger: TrustLedger
    let committer: ChangeCommitter
    /// The SMART Health Cards issuer key of `$health-cards-issue` (nil: the server issues no cards).
    let cardIssuerKey: SHCIssuerKey?
    /// The discovery documents (the CapabilityStatement at `metadata`).
    let discovery: DiscoveryHandler

    init(store: any Store, historyStore: (any ResourceHistoryStore)?, trustLedger: TrustLedger, committer: ChangeCommitter, cardIssuerKey: SHCIssuerKey?,
         discovery: DiscoveryHandler) {
        self.store = store
        self.historyStore = historyStore
        self.trustLedger = trustLedger
        self.committer = committer
        self.cardIssuerKey = cardIssuerKey
        self.discovery = discovery
    }

    /// The controller over `service`'s components.
    init(service: TrustService) {
        self.init(store: service.store, historyStore: service.store as? any ResourceHistoryStore, trustLedger: service.trustLedger,
                  committer: service.committer, cardIssuerKey: service.cardIssuerKey, discovery: service.discovery)
    }

    /// What answers one route: the controller, the collected request, the access its token
    /// grants, the route's parameters.
    typealias Protected = @Sendable (FHIRController, ServiceRequest, BearerAccess, Parameters) async -> ServiceResponse

    /// The methods every FHIR path takes.
    static let methods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch]

    /// The routes, to add at `/fhir`.
    var routes: RouteCollection<FhirBlocksRequestContext> {
        let discovery = self.discovery
        let limit = configuration.maximumBodySize
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        // The CapabilityStatement (``DiscoveryHandler``) needs no token.
        routes.get("metadata") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: limit) { _ in discovery.metadata() }
        }
        // The read by id confirms the token itself, in the same store read as the resource.
        let reads = routes.group().add(middleware: BearerAuthenticationMiddleware(ledger: trustLedger, policy: .unconfirmed))
        for prefix in ["{type}", "Patient"] {
            reads.get(RouterPath("\(prefix)/{id}")) { request, context in
                let type = Self.type(context, prefix)
                let id = context.parameters.get("id") ?? ""
                let resolved = context.unconfirmedBearer
                return try await FhirBlocksRouter.handle(request, context: context, limit: limit) { request in
                    await readByID(type: type, id: id, resolved: resolved, request: request)
                }
            }
        }
        // A Bulk Data Group by id: the export routes hold the constant `Group` (`Group/{group}/$export`),
        // which a request for `Group/{id}` follows rather than `{type}`, so it is named here (by the same parameter).
        reads.get(RouterPath("Group/{group}")) { request, context in
            let id = context.parameters.get("group") ?? ""
            let resolved = context.unconfirmedBearer
            return try await FhirBlocksRouter.handle(request, context: context, limit: limit) { request in
                await readByID(type: "Group", id: id, resolved: resolved, request: request)
            }
        }
        // The rest need an active token.
        let protected = routes.group().add(middleware: BearerAuthenticationMiddleware(
            ledger: trustLedger, policy: .required(refusal: Self.fhirUnauthenticated(), bodyLimit: limit)))
        // `batch` and `transaction` Bundles at the base.
        add(protected, "", [.post: { fhir, request, access, _ in await fhir.processBundle(request: request, access: access) }])
        add(protected, "metadata", except: [.get], [.post: { fhir, request, access, _ in
            await fhir.write(type: "metadata", id: nil, body: request.body, access: access)
        }])
        for prefix in ["{type}", "Patient"] {
            add(protected, RouterPath(prefix), [
                .get: { fhir, request, access, parameters in await fhir.search(type: Self.type(parameters, prefix), request: request, access: access) },
                .post: { fhir, request, access, parameters in
                    await fhir.create(type: Self.type(parameters, prefix), request: request, access: access)
                },
                .put: { fhir, request, access, parameters in
                    await fhir.conditionalUpdate(type: Self.type(parameters, prefix), request: request, access: access)
                },
            ])
            add(protected, RouterPath("\(prefix)/_history"), [.get: { fhir, request, access, parameters in
                await fhir.history(type: Self.type(parameters, prefix), id: nil, request: request, access: access)
            }])
            add(protected, RouterPath("\(prefix)/{id}/_history"), [.get: { fhir, request, access, parameters in
                await fhir.history(type: Self.type(parameters, prefix), id: parameters.get("id") ?? "", request: request, access: access)
            }])
            add(protected, RouterPath("\(prefix)/{id}/_history/{vid}"), [.get: { fhir, _, access, parameters in
                await fhir.vread(type: Self.type(parameters, prefix), id: parameters.get("id") ?? "", version: parameters.get("vid") ?? "", access: access)
            }])
            add(protected, RouterPath("\(prefix)/{id}"), except: [.get], [
                .put: { fhir, request, access, parameters in
                    await fhir.write(type: Self.type(parameters, prefix), id: parameters.get("id") ?? "", body: request.body, access: access,
                                     ifMatch: request.headers["if-match"])
                },
                .post: { fhir, request, access, parameters in
                    guard Self.isValidateOperation(parameters.get("id") ?? "") else { return Self.unknownFHIRPath() }
                    return await fhir.validateResource(type: Self.type(parameters, prefix), body: request.body, access: access)
                },
                .delete: { fhir, request, access, parameters in
                    await fhir.delete(type: Self.type(parameters, prefix), id: parameters.get("id") ?? "", access: access,
                                      ifMatch: request.headers["if-match"])
                },
                .patch: { _, _, _, _ in Self.fhirNotPatchable() },
            ])
        }
        add(protected, "Patient/{id}/$everything", [.get: { fhir, request, access, parameters in
            await fhir.everything(patientID: parameters.get("id") ?? "", request: request, access: access)
        }])
        let issue: Protected = { fhir, request, access, parameters in
            await fhir.issueHealthCards(patientID: parameters.get("id") ?? "", body: request.body, access: access)
        }
        add(protected, "Patient/{id}/$health-cards-issue", [.post: issue])
        // `$` sent as `%24` (in any case: `%24`, `%2a`…): the router matches constants exactly.
        add(protected, "Patient/{id}/{operation}", [.post: { fhir, request, access, parameters in
            guard Self.isHealthCardsIssue(parameters.get("operation") ?? "") else { return Self.unknownFHIRPath() }
            return await issue(fhir, request, access, parameters)
        }])
        // Anything deeper. (Hummingbird refuses `**` beside `{type}`, so the catch-all starts
        // below `{type}/{id}`; `Patient/{id}/…` the Patient routes do not serve reaches it too, the
        // router trying `{type}` when the constant `Patient` leads nowhere.)
        add(protected, "{type}/{id}/**", [:])
        return routes
    }

    /// Adds `path` for every method of ``methods`` but `except`: the method's handler in
    /// `handlers`, else ``unknownFHIRPath()``; each with the access the group's
    /// middleware authenticated.
    private func add(_ routes: RouterGroup<FhirBlocksRequestContext>, _ path: RouterPath, except: Set<HTTPRequest.Method> = [],
                     _ handlers: [HTTPRequest.Method: Protected]) {
        let fhir = self
        let limit = configuration.maximumBodySize
        for method in Self.methods where !except.contains(method) {
            let handler: Protected = handlers[method] ?? { _, _, _, _ in Self.unknownFHIRPath() }
            routes.on(path, method: method) { request, context in
                // The group's middleware ran only this route for an active token.
                guard let access = context.access else { return FhirBlocksRouter.bridge(Self.fhirUnauthenticated()) }
                let parameters = context.parameters
                return try await FhirBlocksRouter.handle(request, context: context, limit: limit) { request in
                    await handler(fhir, request, access, parameters)
                }
            }
        }
    }

    /// The resource type of a route under `prefix`: the `{type}` parameter, or the constant.
    private static func type(_ parameters: Parameters, _ prefix: String) -> String {
        prefix == "{type}" ? parameters.get("type") ?? "" : prefix
    }

    private static func type(_ context: FhirBlocksRequestContext, _ prefix: String) -> String {
        type(context.parameters, prefix)
    }
}
