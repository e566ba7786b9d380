/// A request as the service sees it, independent of the HTTP library: method, path, query
/// parameters, headers (names lowercased) and the collected body. The router has chosen the
/// endpoint already (``buildApplication(service:host:port:checkpointPeriodSeconds:connectionLimits:tls:logger:onListening:)``):
/// no endpoint looks at the path to decide what to do.
public struct ServiceRequest: Sendable {
    /// `GET`, `POST`…
    public var method: String
    /// The path as received, starting with `/` (for logs; the route's parameters are passed on their own).
    public var path: String
    /// Decoded query parameters (the first of each name).
    public var query: [String: String]
    /// The query string as received (still percent-encoded), for endpoints that must see
    /// repeated parameters and `+` as a space (`/oauth/authorize`).
    public var rawQuery: String
    /// Header fields with lowercased names.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, path: String, query: [String: String] = [:], rawQuery: String = "", headers: [String: String] = [:], body: [UInt8] = []) {
        self.rawQuery = rawQuery
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// Creates a request whose header names are lowercase already (the HTTP layer's canonical
    /// field names), without lowercasing them again.
    init(method: String, path: String, query: [String: String], rawQuery: String, lowercasedHeaders: [String: String], body: [UInt8]) {
        self.rawQuery = rawQuery
        self.method = method.uppercased()
        self.path = path
        self.query = query
        headers = lowercasedHeaders
        self.body = body
    }
}
