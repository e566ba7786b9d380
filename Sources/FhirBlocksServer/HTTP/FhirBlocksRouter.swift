import FhirBlocks
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Builds the router: every path of `docs/fhirblocks-http-api.md` registered once, as a
/// concrete route of one area's controller (``FHIRController``, ``SMOACController``,
/// ``SmartAuthorizationController``, ``HealthCardsController``, ``AuditController``,
/// ``StatusController``), most as Hummingbird `RouteCollection`s. A handler receives the
/// request already routed (its path parameters in the context) and, on the groups that take a
/// bearer token, already authenticated (``BearerAuthenticationMiddleware``: the caller's access
/// in ``FhirBlocksRequestContext/authentication``), and answers with its controller's handler
/// through ``ServiceRequest``/``ServiceResponse``. A path no route serves answers Hummingbird's 404
/// (under `/fhir`, the FHIR controller's own catch-all route answers instead).
enum FhirBlocksRouter {
    static func make(service: TrustService, logger: Logger) -> Router<FhirBlocksRequestContext> {
        let router = Router(context: FhirBlocksRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: service.metrics))
        router.add(middleware: SharedLinkHeadersMiddleware())
        router.add(middleware: SmartCORSMiddleware(origins: RegisteredOrigins(store: service.store, limit: service.configuration.maximumSmartClients)))
        router.add(middleware: RateLimitMiddleware(rateLimits: service.rateLimits, clock: service.clock, metrics: service.metrics))
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.addRoutes(FHIRController(service: service).routes, atPath: "fhir")
        let bulkExport = BulkExportController(service: service)
        router.addRoutes(bulkExport.kickoffRoutes, atPath: "fhir")
        router.addRoutes(bulkExport.jobRoutes, atPath: "bulk-export")
        StatusController(metrics: service.metrics).addRoutes(to: router)
        let smoac = SMOACController(service: service).routes
        router.addRoutes(smoac)
        router.addRoutes(smoac, atPath: "smoac")
        SmartAuthorizationController(service: service).addRoutes(to: router)
        HealthCardsController(issuerKey: service.cardIssuerKey).addRoutes(to: router)
        SharedLinksController(links: service.store, trustLedger: service.trustLedger, committer: service.committer).addRoutes(to: router)
        ViewerController().addRoutes(to: router)
        let audit = AuditController(service: service)
        router.addRoutes(audit.routes, atPath: "audit")
        router.addRoutes(audit.validateRoutes)
        router.addRoutes(audit.validateRoutes, atPath: "smoac")
        return router
    }

    /// Collects the body (refusing more than `limit` bytes with 413), builds the service
    /// request, and converts the answer.
    static func handle(_ request: Request, context: FhirBlocksRequestContext, limit: Int,
                       _ body: @Sendable (ServiceRequest) async -> ServiceResponse) async throws -> Response {
        var request = request
        let bytes: [UInt8]
        do {
            var buffer = try await request.collectBody(upTo: max(limit, 0))
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return bodyTooLarge(limit: limit)
        }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        // Field names' canonical form is lowercase already: the request takes them as they are.
        var headers = [String: String](minimumCapacity: request.headers.count)
        for field in request.headers where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        let serviceRequest = ServiceRequest(method: request.method.rawValue, path: request.uri.path, query: query, rawQuery: request.uri.query ?? "",
                                            lowercasedHeaders: headers, body: bytes)
        return bridge(await body(serviceRequest))
    }

    /// Collects `request`'s body into the request (so collecting it again costs nothing):
    /// nil when it fits in `limit` bytes, else the 413 answer.
    static func collectBody(of request: inout Request, limit: Int) async -> Response? {
        do {
            _ = try await request.collectBody(upTo: max(limit, 0))
            return nil
        } catch {
            return bodyTooLarge(limit: limit)
        }
    }

    /// 413: the body is larger than `limit` bytes.
    static func bodyTooLarge(limit: Int) -> Response {
        bridge(.error(.malformedRequest("the body is larger than \(limit) bytes")), status: 413)
    }

    /// Converts a service response to a Hummingbird response.
    static func bridge(_ response: ServiceResponse, status: Int? = nil) -> Response {
        var fields = HTTPFields()
        // Appended: the subscript setter would first look for fields of the name to replace.
        fields.append(HTTPField(name: .contentType, value: response.contentType))
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(status: HTTPResponse.Status(code: status ?? response.status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
