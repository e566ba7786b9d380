import FhirBlocks
import FhirBlocksStore
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// CORS for browser apps (SMART App Launch 2.2) on the FHIR endpoint (`/fhir/…`), the Bulk
/// Data status and files (`/bulk-export/…`), the token, introspection and revocation endpoints
/// and discovery: a request whose `Origin` is the origin of a redirect URI a SMART client
/// registered gets `Access-Control-Allow-Origin` naming that origin (never `*` on these
/// authenticated endpoints; discovery keeps its own `*` for other origins), `Vary: Origin`
/// and the headers a FHIR client reads; its preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered here, `204` with the methods and headers
/// allowed. Any other origin gets no CORS header (its preflight `403`), so a browser keeps the
/// answer from the page.
struct SmartCORSMiddleware: RouterMiddleware {
    typealias Context = FhirBlocksRequestContext

    /// The origins registered clients' redirect URIs allow.
    let origins: RegisteredOrigins

    /// The methods a preflight allows.
    static let allowedMethods = "GET, POST, PUT, DELETE, OPTIONS"
    /// The request headers a preflight allows.
    static let allowedHeaders = "Authorization, Content-Type, Accept, Prefer, If-Match, If-None-Match, If-None-Exist, If-Modified-Since"
    /// The answer headers a script may read.
    static let exposedHeaders = "Location, Content-Location, ETag, Last-Modified, X-Progress, Retry-After, WWW-Authenticate"

    /// Whether `path` is one of the endpoints this middleware serves.
    static func applies(to path: String) -> Bool {
        path == "/fhir" || path.hasPrefix("/fhir/") || path.hasPrefix("/bulk-export/")
            || ["/oauth/token", "/oauth/introspect", "/oauth/revoke", "/.well-known/smart-configuration"].contains(path)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.applies(to: request.uri.path), let origin = request.headers[.origin] else { return try await next(request, context) }
        let allowed = await origins.contains(origin)
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            guard allowed else { return Response(status: .forbidden, headers: [.vary: "Origin"]) }
            var fields = HTTPFields()
            fields[.accessControlAllowOrigin] = origin
            fields[.accessControlAllowMethods] = Self.allowedMethods
            fields[.accessControlAllowHeaders] = Self.allowedHeaders
            fields[.accessControlMaxAge] = "600"
            fields[.vary] = "Origin"
            return Response(status: .noContent, headers: fields)
        }
        var response = try await next(request, context)
        guard allowed else { return response }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        response.headers[.vary] = "Origin"
        return response
    }
}

/// The origins (`scheme://host[:port]`, lowercased) of the redirect URIs SMART clients
/// registered, read from the store and kept: read again when an origin not among them arrives
/// and the number of registered clients changed since, or a minute went by (any server on the
/// database may have registered one; a client forgotten stops counting by the next read).
final class RegisteredOrigins: Sendable {
    private struct Snapshot {
        var origins: Set<String> = []
        var clientCount = -1
        var readAt: ContinuousClock.Instant?
    }

    private let store: any TokenStore
    private let limit: Int
    private let snapshot = Mutex(Snapshot())

    /// Origins of `store`'s clients (at most `limit` clients read).
    init(store: any TokenStore, limit: Int) {
        self.store = store
        self.limit = limit
    }

    /// Whether `origin` (an `Origin` header) is the origin of a registered redirect URI.
    func contains(_ origin: String) async -> Bool {
        guard let wanted = Self.origin(of: origin) else { return false }
        let (known, count, readAt) = snapshot.withLock { ($0.origins.contains(wanted), $0.clientCount, $0.readAt) }
        if known { return true }
        guard let current = try? await store.smartClientCount() else { return false }
        let fresh = readAt.map { ContinuousClock.now - $0 < .seconds(60) } ?? false
        if current == count, fresh { return false }
        guard let clients = try? await store.smartClients(limit: limit) else { return false }
        let origins = Set(clients.flatMap { $0.redirectURIs.compactMap(Self.origin(of:)) })
        snapshot.withLock { $0 = Snapshot(origins: origins, clientCount: current, readAt: .now) }
        return origins.contains(wanted)
    }

    /// The origin of an absolute `http`/`https` URL (or an `Origin` header), lowercased with
    /// the default port left out; nil for anything else.
    static func origin(of text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host?.lowercased(), !host.isEmpty else { return nil }
        let port = components.port.flatMap { (scheme == "https" && $0 == 443) || (scheme == "http" && $0 == 80) ? nil : $0 }
        return "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
    }
}
