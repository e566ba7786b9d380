import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// How every HTTP client of the package talks to a server it does not control (a SMART on FHIR
/// provider, a FhirBlocks server, a card issuer): one set of rules, with the numbers each caller
/// chooses.
///
/// - **TLS**: 1.2 or later, the certificate and host name fully verified against the system's
///   trust store, or against the PEM bundle the `SSL_CERT_FILE` environment variable names (or,
///   when it is not set, the hashed certificate folder `SSL_CERT_DIR` names), plus
///   ``additionalTrustRoots``.
/// - **Redirects**: the client follows none by itself; ``execute(_:on:)`` follows at most
///   ``maximumRedirects`` for `GET` and `HEAD` (0: the 3xx answer is returned as it is), never
///   from `https` to anything but `https`, and drops `Authorization` when the origin changes.
/// - **Decompression**: off (no `Accept-Encoding` is sent, so no body can expand past the limit).
/// - **Bodies**: at most ``maximumResponseSize`` bytes are read; a larger one is
///   ``HTTPClientPolicyError/bodyTooLarge(limit:)``.
/// - **Retries**: a request whose method is idempotent (`GET`, `HEAD`, `PUT`, `DELETE`,
///   `OPTIONS`, `TRACE`) is sent again, at most ``retries`` times, when no connection could be
///   made or the server closed it before answering; `POST` and `PATCH` only when they could not
///   be written at all (the pooled connection was already closed). The client does
///   not retry connection establishment by itself.
/// - **Timeouts**: ``connectTimeout`` for each connection, ``requestTimeout`` for the whole
///   exchange (every redirect, retry and the body included) and for each read.
public struct HTTPClientPolicy: Sendable {
    /// The oldest TLS version accepted.
    public static let minimumTLSVersion: TLSVersion = .tlsv12

    /// The longest establishing one connection may take.
    public var connectTimeout: Duration
    /// The longest a whole exchange may take (redirects, retries and the body included).
    public var requestTimeout: Duration
    /// The largest answer body read, in bytes.
    public var maximumResponseSize: Int
    /// How many redirects ``execute(_:on:)`` follows for `GET` and `HEAD` (0: none).
    public var maximumRedirects: Int
    /// How many times an idempotent request is sent again after a connection failure.
    public var retries: Int
    /// Certificate authorities trusted besides the system's (or `SSL_CERT_FILE`'s).
    public var additionalTrustRoots: [NIOSSLCertificate]
    /// Where `SSL_CERT_FILE` and `SSL_CERT_DIR` are read from (the process's environment by default;
    /// `SSL_CERT_DIR` is used only when `SSL_CERT_FILE` is not set).
    public var environment: [String: String]

    /// Creates a policy.
    /// - Parameters:
    ///   - connectTimeout: the longest one connection may take to establish (default 10 s).
    ///   - requestTimeout: the longest a whole exchange may take (default 30 s).
    ///   - maximumResponseSize: the largest answer body read, in bytes (default 8 MiB).
    ///   - maximumRedirects: redirects followed for `GET` and `HEAD` (default 0: none).
    ///   - retries: how many times an idempotent request is sent again after a connection failure (default 1).
    ///   - additionalTrustRoots: certificate authorities trusted besides the system's (default none).
    ///   - environment: where `SSL_CERT_FILE` and `SSL_CERT_DIR` are read (default: the process's environment).
    public init(connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30), maximumResponseSize: Int = 8 << 20,
                maximumRedirects: Int = 0, retries: Int = 1, additionalTrustRoots: [NIOSSLCertificate] = [],
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maximumResponseSize = max(0, maximumResponseSize)
        self.maximumRedirects = max(0, maximumRedirects)
        self.retries = max(0, retries)
        self.additionalTrustRoots = additionalTrustRoots
        self.environment = environment
    }

    /// The TLS settings: 1.2 or later, full verification, the trust roots described above.
    public var tlsConfiguration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.minimumTLSVersion = Self.minimumTLSVersion
        // Bodies are framed by HTTP, so a closing connection need not wait long for the server's
        // close_notify (a server still pushing an oversized body may never send it).
        tls.shutdownTimeout = .seconds(1)
        let file = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let folder = environment["SSL_CERT_DIR"].flatMap { $0.split(separator: ":").first.map(String.init) }.flatMap { $0.isEmpty ? nil : $0 }
        var additional: [NIOSSLAdditionalTrustRoots] = []
        // The bundle file when it is named; the folder only when no file is (NIOSSL takes one
        // location as the trust roots, and a folder cannot be an additional trust root).
        if let file {
            tls.trustRoots = .file(file)
        } else if let folder {
            tls.trustRoots = .file(folder)
        }
        if !additionalTrustRoots.isEmpty { additional.append(.certificates(additionalTrustRoots)) }
        if !additional.isEmpty { tls.additionalTrustRoots = additional }
        return tls
    }

    /// The `HTTPClient` settings: ``tlsConfiguration``, no redirects followed by the client, no
    /// decompression, no retry of connection establishment, no proxy, and the timeouts.
    public var httpClientConfiguration: HTTPClient.Configuration {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.retryConnectionEstablishment = false
        // An idle connection is dropped well before servers commonly drop it (ours after 30 s,
        // many after 60 s or more), so that a request is rarely given one the server is closing.
        pool.idleTimeout = Self.pooledConnectionIdleTimeout
        return HTTPClient.Configuration(
            tlsConfiguration: tlsConfiguration,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(requestTimeout)),
            connectionPool: pool,
            proxy: nil,
            ignoreUncleanSSLShutdown: false,
            decompression: .disabled)
    }

    /// How long an idle connection stays in the client's pool.
    public static let pooledConnectionIdleTimeout = TimeAmount.seconds(10)

    /// A new client with ``httpClientConfiguration`` on the shared event loop group (shut it down when done).
    public func makeClient() -> HTTPClient {
        HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpClientConfiguration)
    }

    /// Sends `request` by this policy (``execute(_:on:)``) on a client made for it
    /// (``makeClient()``), shut down before the answer or the error is returned: for a request
    /// sent now and then, such as a key set fetched or a checkpoint sent to a witness.
    /// - Parameter request: the request; its body, if any, must be bytes (so that it can be sent again).
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientPolicyError) -> Response {
        let client = makeClient()
        let outcome: Result<Response, HTTPClientPolicyError>
        do {
            outcome = .success(try await execute(request, on: client))
        } catch {
            outcome = .failure(error)
        }
        try? await client.shutdown()
        return try outcome.get()
    }

    /// One answer, its body read in full within the limit.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The headers.
        public var headers: HTTPHeaders
        /// The body.
        public var body: [UInt8]
        /// The URL that answered (after any redirect followed).
        public var url: String
    }

    /// Sends `request` on `client` by this policy (redirects, retries, the body limit and the
    /// deadline) and reads the answer's body.
    /// - Parameters:
    ///   - request: the request; its body, if any, must be bytes (so that it can be sent again).
    ///   - client: the client, normally one made by ``makeClient()``.
    public func execute(_ request: HTTPClientRequest, on client: HTTPClient) async throws(HTTPClientPolicyError) -> Response {
        let deadline = NIODeadline.now() + TimeAmount(requestTimeout)
        var current = request
        var redirects = 0
        while true {
            let response = try await send(current, on: client, deadline: deadline)
            let status = Int(response.status.code)
            if Self.redirectStatuses.contains(status), maximumRedirects > 0,
               current.method == .GET || current.method == .HEAD {
                _ = try? await response.body.collect(upTo: maximumResponseSize)
                let target = try redirectTarget(location: response.headers.first(name: "Location"), from: current.url,
                                                redirectsSoFar: redirects)
                var next = HTTPClientRequest(url: target)
                next.method = current.method
                next.headers = current.headers
                if Self.origin(of: target) != Self.origin(of: current.url) { next.headers.remove(name: "Authorization") }
                current = next
                redirects += 1
                continue
            }
            do {
                let body = try await response.body.collect(upTo: maximumResponseSize)
                return Response(status: status, headers: response.headers, body: Array(buffer: body), url: current.url)
            } catch is NIOTooManyBytesError {
                throw .bodyTooLarge(limit: maximumResponseSize)
            } catch {
                throw Self.failure(for: error)
            }
        }
    }

    /// The URL a redirect from `current` to `location` leads to, if this policy follows it: at
    /// most ``maximumRedirects`` (`redirectsSoFar` counts those already followed), to an
    /// absolute `http` or `https` URL with a host and no user info, and from `https` only to `https`.
    /// - Parameters:
    ///   - location: the answer's `Location` header.
    ///   - current: the URL that answered with the redirect.
    ///   - redirectsSoFar: redirects already followed in this exchange.
    public func redirectTarget(location: String?, from current: String, redirectsSoFar: Int) throws(HTTPClientPolicyError) -> String {
        guard redirectsSoFar < maximumRedirects else { throw .tooManyRedirects(limit: maximumRedirects) }
        guard let location, !location.isEmpty else { throw .redirectRefused(to: "", reason: "the redirect has no Location") }
        guard let base = URL(string: current), let target = URL(string: location, relativeTo: base)?.absoluteURL else {
            throw .redirectRefused(to: location, reason: "the Location cannot be read")
        }
        let scheme = target.scheme?.lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw .redirectRefused(to: target.absoluteString, reason: "only http and https URLs are followed")
        }
        if base.scheme?.lowercased() == "https", scheme != "https" {
            throw .redirectRefused(to: target.absoluteString, reason: "a redirect from https to http is never followed")
        }
        guard let host = target.host, !host.isEmpty, target.user == nil, target.password == nil else {
            throw .redirectRefused(to: target.absoluteString, reason: "no host, or user info")
        }
        return target.absoluteString
    }

    /// Sends one request, again after a connection failure when its method is idempotent.
    private func send(_ request: HTTPClientRequest, on client: HTTPClient, deadline: NIODeadline) async throws(HTTPClientPolicyError) -> HTTPClientResponse {
        var attempt = 0
        while true {
            do {
                return try await client.execute(request, deadline: deadline)
            } catch {
                let failure = Self.failure(for: error)
                guard attempt < retries, Self.maySendAgain(request.method, after: error), NIODeadline.now() < deadline else {
                    throw failure
                }
                attempt += 1
            }
        }
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether a method may be sent twice with the effect of once (RFC 9110 §9.2.2).
    public static func isIdempotent(_ method: HTTPMethod) -> Bool {
        [.GET, .HEAD, .PUT, .DELETE, .OPTIONS, .TRACE].contains(method)
    }

    /// Whether a request that failed with `error` may be sent again: an idempotent one when no
    /// answer began, and any one (a `POST` too) when it never left this machine, because the
    /// pooled connection it was given had already been closed by the server.
    public static func maySendAgain(_ method: HTTPMethod, after error: any Error) -> Bool {
        if let channelError = error as? ChannelError, channelError == .ioOnClosedChannel { return true }
        return isIdempotent(method) && isRetryable(error)
    }

    /// Whether `error` means no answer began: no connection, or one closed before the answer.
    static func isRetryable(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let ioError = error as? IOError { return [ECONNREFUSED, ECONNRESET, EPIPE].contains(ioError.errnoCode) }
        if let clientError = error as? HTTPClientError {
            return clientError == .remoteConnectionClosed || clientError == .connectTimeout
        }
        return false
    }

    /// `scheme://host:port` of a URL, lowercased.
    static func origin(of url: String) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(parsed.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// The policy's error for a failure of the client or the network.
    public static func failure(for error: any Error) -> HTTPClientPolicyError {
        if let policyError = error as? HTTPClientPolicyError { return policyError }
        if error is CancellationError { return .cancelled }
        if error is NIOTooManyBytesError { return .transport(reason: "the answer is too large") }
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout: return .timedOut
            case .connectTimeout, .tlsHandshakeTimeout: return .connectTimedOut
            case .cancelled: return .cancelled
            case .remoteConnectionClosed: return .transport(reason: "the server closed the connection")
            default: return .transport(reason: "\(clientError)")
            }
        }
        return .transport(reason: reason(for: error))
    }

    /// Why a request failed, in words ("connection refused"), not the library's error values.
    static func reason(for error: any Error) -> String {
        if let connection = error as? NIOConnectionError {
            if let failure = connection.connectionErrors.first { return reason(for: failure.error) }
            if connection.dnsAError != nil || connection.dnsAAAAError != nil { return "its name could not be resolved" }
            return "no connection could be made"
        }
        if let ioError = error as? IOError {
            // The C library's words ("connection refused"), without NIO's errno and wrapping.
            let text = String(cString: strerror(ioError.errnoCode))
            return text.prefix(1).lowercased() + text.dropFirst()
        }
        if let tls = error as? NIOSSLError { return "TLS failed (\(tls))" }
        if let tls = error as? BoringSSLError { return "TLS failed (\(tls))" }
        return "\(error)"
    }
}

/// Why ``HTTPClientPolicy/execute(_:on:)`` got no usable answer.
public enum HTTPClientPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is larger than the policy's limit.
    case bodyTooLarge(limit: Int)
    /// A redirect the policy does not follow (to `to`, for `reason`).
    case redirectRefused(to: String, reason: String)
    /// More redirects than the policy follows.
    case tooManyRedirects(limit: Int)
    /// No complete answer before the deadline.
    case timedOut
    /// No connection in time.
    case connectTimedOut
    /// The request was cancelled.
    case cancelled
    /// The network or the server failed, in words.
    case transport(reason: String)

    public var description: String {
        switch self {
        case .bodyTooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .redirectRefused(let to, let reason): "the redirect\(to.isEmpty ? "" : " to \(to)") was not followed: \(reason)"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .timedOut: "no complete answer in time"
        case .connectTimedOut: "no connection in time"
        case .cancelled: "cancelled"
        case .transport(let reason): reason
        }
    }
}
