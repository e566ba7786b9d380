import AsyncHTTPClient
import CommonSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ExactJSON
import FhirBlocks
import HTTPClientPolicy
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// A connection to one FhirBlocks server (docs/fhirblocks-http-api.md): the transport every
/// role shares.
///
/// It owns or borrows an `HTTPClient`, keeps the server's clock offset (``clock``), fills and
/// signs SMOAC envelopes, and turns every failure into a ``FhirBlocksClientError``. The roles
/// are ``WalletClient`` and ``AppClient`` (identity-bound, over a ``CsiSession``),
/// ``FhirResourceClient`` (FHIR with a bearer token) and ``AuditClient`` (the audit log).
///
/// ```swift
/// let client = try FhirBlocksClient(baseURL: "http://127.0.0.1:8080")
/// defer { Task { try? await client.shutdown() } }
/// try await client.synchronizeClock()
/// ```
///
/// **Client lifetime**: ``init(baseURL:configuration:clock:)`` creates an `HTTPClient` that
/// this object owns; call ``shutdown()`` when done. ``init(baseURL:httpClient:configuration:clock:)``
/// borrows the caller's client, which the caller shuts down (it should not follow redirects).
public final class FhirBlocksClient: Sendable {
    /// The server's base URL (`BASE`).
    public let baseURL: ServerBaseURL
    /// Limits and choices.
    public let configuration: FhirBlocksClientConfiguration
    /// The server-adjusted clock that dates envelopes and assertions.
    public let clock: ServerClock

    private let httpClient: HTTPClient
    private let ownsClient: Bool
    private let isShutDown = Mutex(false)

    /// Creates a client with its own `HTTPClient`, set up by the package's one `HTTPClientPolicy`
    /// (redirects not followed, no decompression, TLS 1.2 or later; an https server verified
    /// against the system's trust store, or against the PEM bundle the `SSL_CERT_FILE`
    /// environment variable names, or else the folder `SSL_CERT_DIR` names).
    public convenience init(baseURL: String, configuration: FhirBlocksClientConfiguration = FhirBlocksClientConfiguration(),
                            clock: ServerClock = ServerClock()) throws(FhirBlocksClientError) {
        let base = try ServerBaseURL(baseURL)
        let client = Self.policy(configuration).makeClient()
        self.init(baseURL: base, httpClient: client, owns: true, configuration: configuration, clock: clock)
    }

    /// The policy requests are sent by: the configuration's timeouts and answer size, no
    /// redirects followed, one more try of an idempotent request after a connection failure.
    static func policy(_ configuration: FhirBlocksClientConfiguration) -> HTTPClientPolicy {
        HTTPClientPolicy(connectTimeout: configuration.connectTimeout, requestTimeout: configuration.requestTimeout,
                         maximumResponseSize: configuration.maximumResponseSize, maximumRedirects: 0, retries: 1)
    }

    /// Creates a client over the caller's `HTTPClient`, which the caller keeps and shuts down.
    public convenience init(baseURL: ServerBaseURL, httpClient: HTTPClient,
                            configuration: FhirBlocksClientConfiguration = FhirBlocksClientConfiguration(), clock: ServerClock = ServerClock()) {
        self.init(baseURL: baseURL, httpClient: httpClient, owns: false, configuration: configuration, clock: clock)
    }

    private init(baseURL: ServerBaseURL, httpClient: HTTPClient, owns: Bool, configuration: FhirBlocksClientConfiguration, clock: ServerClock) {
        self.baseURL = baseURL
        self.httpClient = httpClient
        self.ownsClient = owns
        self.configuration = configuration
        self.clock = clock
    }

    deinit {
        let needsShutdown = ownsClient && isShutDown.withLock { !$0 }
        if needsShutdown { httpClient.shutdown(queue: .global()) { _ in } }
    }

    /// Shuts down the `HTTPClient` this object created (nothing for a borrowed one, or when
    /// already shut down). Requests made afterwards fail.
    public func shutdown() async throws {
        let shouldShutDown = isShutDown.withLock { done in
            defer { done = true }
            return ownsClient && !done
        }
        if shouldShutDown { try await httpClient.shutdown() }
    }

    // MARK: Transport

    /// Sends one request and returns the answer whatever its status. `path` is relative to the
    /// base URL; `query` pairs are percent-encoded; `bearer` adds `Authorization: Bearer …`.
    public func exchange(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
                         contentType: String? = nil, accept: String = "application/json", bearer: String? = nil,
                         headers extraHeaders: [(String, String)] = []) async throws(FhirBlocksClientError) -> FhirBlocksResponse {
        let endpoint = Self.endpointName(path)
        var url = baseURL.url(path)
        if !query.isEmpty {
            url += (url.contains("?") ? "&" : "?")
                + query.map { FormURLEncoding.percentEncoded($0.0) + "=" + FormURLEncoding.percentEncoded($0.1) }.joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Accept", value: accept)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        for (name, value) in extraHeaders { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await Self.policy(configuration).execute(request, on: httpClient)
            return FhirBlocksResponse(status: response.status, headers: response.headers.map { (name: $0.name, value: $0.value) },
                                      body: response.body)
        } catch .bodyTooLarge(let limit) {
            throw .responseTooLarge(endpoint: endpoint, limit: limit)
        } catch {
            throw .transport(endpoint: endpoint, reason: error.description)
        }
    }

    /// ``exchange(_:_:query:body:contentType:accept:bearer:headers:)``, then a non-2xx status becomes
    /// ``FhirBlocksClientError/http(endpoint:status:error:errorDescription:)``.
    public func successfulExchange(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
                                   contentType: String? = nil, accept: String = "application/json", bearer: String? = nil,
                                   headers: [(String, String)] = []) async throws(FhirBlocksClientError) -> FhirBlocksResponse {
        let response = try await exchange(method, path, query: query, body: body, contentType: contentType, accept: accept,
                                          bearer: bearer, headers: headers)
        guard response.isSuccess else {
            let (code, description) = Self.errorDetails(response.body)
            throw .http(endpoint: Self.endpointName(path), status: response.status, error: code, errorDescription: description)
        }
        return response
    }

    /// GETs `path` and reads the JSON answer.
    public func getJSON(_ path: String, query: [(String, String)] = [], accept: String = "application/json",
                        bearer: String? = nil) async throws(FhirBlocksClientError) -> JSONValue {
        let response = try await successfulExchange(.GET, path, query: query, accept: accept, bearer: bearer)
        return try Self.json(response.body, endpoint: Self.endpointName(path))
    }

    /// POSTs a JSON body and reads the answer as `Response`.
    public func postJSON<Response: WireMessage>(_ path: String, body: JSONValue, as response: Response.Type) async throws(FhirBlocksClientError) -> Response {
        let answer = try await successfulExchange(.POST, path, body: JSONWriter.serialize(body), contentType: "application/json")
        return try Self.decode(Response.self, from: answer.body, endpoint: Self.endpointName(path))
    }

    /// POSTs a form (`application/x-www-form-urlencoded`, strict encoding) and reads the answer as `Response`.
    public func postForm<Response: WireMessage>(_ path: String, form: FormBody, as response: Response.Type) async throws(FhirBlocksClientError) -> Response {
        let answer = try await successfulExchange(.POST, path, body: form.encoded(), contentType: "application/x-www-form-urlencoded")
        return try Self.decode(Response.self, from: answer.body, endpoint: Self.endpointName(path))
    }

    // MARK: util/*

    /// `GET util/ping`.
    public func ping() async throws(FhirBlocksClientError) -> PingResponse {
        let answer = try await successfulExchange(.GET, SMOACEndpoint.ping.path)
        return try Self.decode(PingResponse.self, from: answer.body, endpoint: SMOACEndpoint.ping.path)
    }

    /// `GET util/getTime`: the server's clock.
    public func serverTime() async throws(FhirBlocksClientError) -> Timestamp {
        let answer = try await successfulExchange(.GET, SMOACEndpoint.getTime.path)
        let time = try Self.decode(TimeResponse.self, from: answer.body, endpoint: SMOACEndpoint.getTime.path)
        guard let timestamp = time.timestamp else {
            throw .malformedResponse(endpoint: SMOACEndpoint.getTime.path, reason: "currentTime is not a wire dateTime")
        }
        return timestamp
    }

    /// Reads the server's clock and records the offset (`server − local`, against the midpoint
    /// of the round trip) in ``clock``. Returns the offset in milliseconds.
    @discardableResult
    public func synchronizeClock() async throws(FhirBlocksClientError) -> Int64 {
        let sent = clock.localNow()
        let server = try await serverTime()
        let received = clock.localNow()
        return clock.record(serverTime: server, sentAt: sent, receivedAt: received)
    }

    /// Synchronises the clock unless that was done already.
    public func synchronizeClockIfNeeded() async throws(FhirBlocksClientError) {
        if !clock.isSynchronized { try await synchronizeClock() }
    }

    /// `GET util/getGloballyUniqueIdentifier`: a fresh GUID for a registration.
    public func newGloballyUniqueIdentifier() async throws(FhirBlocksClientError) -> CsiGuid {
        let path = SMOACEndpoint.getGloballyUniqueIdentifier.path
        let answer = try await successfulExchange(.GET, path)
        let response = try Self.decode(GuidResponse.self, from: answer.body, endpoint: path)
        guard let guid = CsiGuid(response.guid) else { throw .malformedResponse(endpoint: path, reason: "guid is not a UUID") }
        return guid
    }

    // MARK: Signed requests

    /// A fresh envelope for `csiGuid`: `dateTime` from the server-adjusted clock in the wire
    /// format, a new random nonce, no signature yet.
    public func envelope(csiGuid: CsiGuid, cipherField: SMOACEnvelope.CipherField = .cipher) -> SMOACEnvelope {
        var generator = SystemRandomNumberGenerator()
        return SMOACEnvelope(cipherField: cipherField, csiGuid: csiGuid.rawValue, dateTime: clock.now().wireText,
                             nonce: ProtocolNonce.random(using: &generator), signature: "")
    }

    /// Signs `request` in place with the configured style.
    public func sign<Request: SignedRequest>(_ request: inout Request, with key: CsiSigningKey) throws(FhirBlocksClientError) {
        do {
            try RequestSigner.sign(&request, with: key, style: configuration.signingStyle)
        } catch {
            throw .invalidRequest("\(request.endpoint.path): \(error)")
        }
    }

    /// POSTs a signed request (already signed) to its endpoint and reads the answer as `Response`.
    public func send<Response: WireMessage>(_ request: some SignedRequest, expecting response: Response.Type) async throws(FhirBlocksClientError) -> Response {
        try await postJSON(request.endpoint.path, body: request.json, as: Response.self)
    }

    // MARK: Helpers

    /// The path without its query, for error messages.
    static func endpointName(_ path: String) -> String {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return String(trimmed.prefix { $0 != "?" })
    }

    /// Parses a JSON body.
    static func json(_ body: [UInt8], endpoint: String) throws(FhirBlocksClientError) -> JSONValue {
        do {
            return try JSONParser.parse(body, maximumDepth: 128)
        } catch {
            throw .malformedResponse(endpoint: endpoint, reason: "the body is not JSON")
        }
    }

    /// Reads a wire message from a body.
    static func decode<Message: WireMessage>(_ type: Message.Type, from body: [UInt8], endpoint: String) throws(FhirBlocksClientError) -> Message {
        do {
            return try Message(jsonBytes: body)
        } catch {
            throw .malformedResponse(endpoint: endpoint, reason: error.errorDescription)
        }
    }

    /// The `error`/`error_description` of an error body, or the first issue of a FHIR
    /// `OperationOutcome` (code, then details.text or diagnostics). Texts are capped at 300 characters.
    static func errorDetails(_ body: [UInt8]) -> (String?, String?) {
        guard !body.isEmpty, let value = try? JSONParser.parse(body, maximumDepth: 16), let object = value.objectValue else { return (nil, nil) }
        func capped(_ text: String?) -> String? { text.map { String($0.prefix(300)) } }
        if let error = object["error"]?.stringValue {
            return (capped(error), capped(object["error_description"]?.stringValue))
        }
        if object["resourceType"]?.stringValue == "OperationOutcome", let issue = object["issue"]?.arrayValue?.first?.objectValue {
            let text = issue["details"]?.objectValue?["text"]?.stringValue ?? issue["diagnostics"]?.stringValue
            return (capped(issue["code"]?.stringValue), capped(text))
        }
        return (nil, nil)
    }
}
