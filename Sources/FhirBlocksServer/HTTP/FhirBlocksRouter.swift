import FhirBlocks
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Builds the router: every path of `docs/fhirblocks-http-api.md`, bridged to the
/// ``TrustService`` through ``ServiceRequest``/``ServiceResponse``.
enum FhirBlocksRouter {
    static func make(service: TrustService, logger: Logger) -> Router<FhirBlocksRequestContext> {
        let router = Router(context: FhirBlocksRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: service.metrics))
        router.add(middleware: RateLimitMiddleware(service: service))
        router.add(middleware: LogRequestsMiddleware(.debug))

        router.get("health") { _, _ in bridge(ServiceResponse(body: Array("{\"status\":\"ok\"}".utf8))) }
        router.get("metrics") { _, _ in
            bridge(ServiceResponse(contentType: "text/plain; version=0.0.4", body: service.metrics.exposition()))
        }

        // SMOAC, at the root and under /smoac.
        let smoacPaths = SMOACEndpoint.allCases.map(\.path) + [SMOACEndpoint.givenByMeAliasPath, "util/getGUID"]
        for prefix in ["", "smoac/"] {
            for path in smoacPaths {
                for method in [HTTPRequest.Method.get, .post] {
                    router.on(RouterPath(prefix + path), method: method) { request, context in
                        try await handle(request, context: context, limit: service.configuration.maximumBodySize, stripPrefix: prefix.isEmpty ? nil : "/smoac") { serviceRequest in
                            await service.handleSMOAC(serviceRequest) ?? ServiceResponse.error(.unknownTarget("unknown endpoint"))
                        }
                    }
                }
            }
        }

        // OAuth 2.0 / SMART.
        for path in [".well-known/smart-configuration", "fhir/.well-known/smart-configuration"] {
            router.get(RouterPath(path)) { _, _ in bridge(service.smartConfiguration()) }
        }
        router.get(".well-known/jwks.json") { _, _ in bridge(service.healthCardsJWKS()) }
        router.post("oauth/token") { request, context in
            try await handle(request, context: context, limit: 64 * 1024) { await service.token($0) }
        }
        router.get("oauth/authorize") { request, context in
            try await handle(request, context: context, limit: 0) { await service.authorize($0) }
        }
        router.post("oauth/register") { request, context in
            try await handle(request, context: context, limit: TrustService.maximumRegistrationBody) { await service.registerClient($0) }
        }
        router.post("oauth/introspect") { request, context in
            try await handle(request, context: context, limit: 64 * 1024) { await service.introspect($0) }
        }
        router.post("oauth/revoke") { request, context in
            try await handle(request, context: context, limit: 64 * 1024) { await service.revoke($0) }
        }

        // FHIR.
        for method in [HTTPRequest.Method.get, .put, .post, .delete, .patch] {
            router.on("fhir/**", method: method) { request, context in
                try await handle(request, context: context, limit: service.configuration.maximumBodySize) { await service.handleFHIR($0) }
            }
        }

        // Audit log.
        for path in ["audit/checkpoint", "audit/checkpoints", "audit/key", "audit/entries", "audit/proof/inclusion", "audit/proof/consistency"] {
            router.get(RouterPath(path)) { request, context in
                try await handle(request, context: context, limit: 0) { serviceRequest in
                    await service.handleAudit(serviceRequest) ?? ServiceResponse.error(.unknownTarget("unknown endpoint"))
                }
            }
        }
        for prefix in ["", "smoac/"] {
            router.post(RouterPath(prefix + "audit/validate")) { request, context in
                try await handle(request, context: context, limit: 64 * 1024, stripPrefix: prefix.isEmpty ? nil : "/smoac") { serviceRequest in
                    await service.handleAudit(serviceRequest) ?? ServiceResponse.error(.unknownTarget("unknown endpoint"))
                }
            }
        }
        return router
    }

    /// Collects the body (refusing more than `limit` bytes with 413), builds the service
    /// request, and converts the answer.
    static func handle(_ request: Request, context: FhirBlocksRequestContext, limit: Int, stripPrefix: String? = nil,
                       _ body: @Sendable (ServiceRequest) async -> ServiceResponse) async throws -> Response {
        var request = request
        let bytes: [UInt8]
        do {
            var buffer = try await request.collectBody(upTo: max(limit, 0))
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return bridge(.error(.malformedRequest("the body is larger than \(limit) bytes")), status: 413)
        }
        var path = request.uri.path
        if let stripPrefix, path.hasPrefix(stripPrefix) { path = String(path.dropFirst(stripPrefix.count)) }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        var headers: [String: String] = [:]
        for field in request.headers where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        let serviceRequest = ServiceRequest(method: request.method.rawValue, path: path, query: query, rawQuery: request.uri.query ?? "",
                                            headers: headers, body: bytes)
        return bridge(await body(serviceRequest))
    }

    /// Converts a service response to a Hummingbird response.
    static func bridge(_ response: ServiceResponse, status: Int? = nil) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = response.contentType
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(status: HTTPResponse.Status(code: status ?? response.status), headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
