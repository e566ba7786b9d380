import AsyncHTTPClient
import FhirBlocks
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The HTTP edge of the SMART client: GETs and form POSTs over AsyncHTTPClient, redirects not
/// followed (a bearer token is never carried to another origin), bodies capped. TLS verifies
/// the server's certificate and name against the system's trust store, or against the PEM
/// bundle the `SSL_CERT_FILE` environment variable names (as OpenSSL's clients do), and
/// against the additional certificate authorities given (a connection's `--ca-cert`).
public final class SMARTHTTP: Sendable {
    /// One answer.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The body.
        public var body: [UInt8]
        /// A header's value.
        public var headers: [(name: String, value: String)]
    }

    private let client: HTTPClient
    private let timeout: Duration
    private let maximumBody: Int

    /// Creates a client. `timeout` bounds each request; `maximumBody` each answer (a page of
    /// search results must fit); `additionalTrustRoots` are trusted besides the system's (or
    /// `SSL_CERT_FILE`'s) authorities.
    public init(timeout: Duration = .seconds(60), maximumBody: Int = 64 << 20, additionalTrustRoots: [NIOSSLCertificate] = []) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        tls.minimumTLSVersion = .tlsv12
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty { tls.trustRoots = .file(file) }
        if !additionalTrustRoots.isEmpty { tls.additionalTrustRoots = [.certificates(additionalTrustRoots)] }
        configuration.tlsConfiguration = tls
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.timeout = timeout
        self.maximumBody = maximumBody
    }

    /// A new client with this one's limits that also trusts the certificate authorities of
    /// `pem` (shut it down when done).
    public func trusting(pem: String) throws(RecordsSyncError) -> SMARTHTTP {
        SMARTHTTP(timeout: timeout, maximumBody: maximumBody, additionalTrustRoots: try Self.certificates(pem: pem))
    }

    /// The certificates of a PEM text (one or more `CERTIFICATE` blocks).
    public static func certificates(pem: String) throws(RecordsSyncError) -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw .connection("the trusted certificate authority is not a PEM certificate")
        }
        guard !certificates.isEmpty else { throw .connection("the trusted certificate authority file holds no PEM certificate") }
        return certificates
    }

    /// Closes the connections.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// GETs `url` with `accept`, and a bearer token when given.
    public func get(_ url: String, accept: String = "application/fhir+json, application/json", bearer: String? = nil) async throws(RecordsSyncError) -> Response {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: accept)
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await execute(request, what: url)
    }

    /// POSTs a form (`application/x-www-form-urlencoded`).
    public func postForm(_ url: String, fields: [(name: String, value: String)]) async throws(RecordsSyncError) -> Response {
        try await post(url, body: FormBody(fields: fields).encoded(), contentType: "application/x-www-form-urlencoded", bearer: nil)
    }

    /// POSTs a JSON body, with a bearer token when given.
    public func postJSON(_ url: String, body: [UInt8], contentType: String = "application/json", bearer: String? = nil) async throws(RecordsSyncError) -> Response {
        try await post(url, body: body, contentType: contentType, bearer: bearer)
    }

    private func post(_ url: String, body: [UInt8], contentType: String, bearer: String?) async throws(RecordsSyncError) -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: contentType)
        request.headers.add(name: "Accept", value: "application/json, application/fhir+json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        return try await execute(request, what: url)
    }

    private func execute(_ request: HTTPClientRequest, what url: String) async throws(RecordsSyncError) -> Response {
        do {
            let nanoseconds = Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            let response = try await client.execute(request, timeout: .nanoseconds(nanoseconds))
            let body = try await response.body.collect(upTo: maximumBody)
            return Response(status: Int(response.status.code), body: Array(body.readableBytesView),
                            headers: response.headers.map { (name: $0.name, value: $0.value) })
        } catch is NIOTooManyBytesError {
            throw .malformedResponse("\(Self.endpoint(url)): the answer is larger than \(maximumBody) bytes")
        } catch {
            throw .transport("\(Self.endpoint(url)): \(Self.reason(for: error))")
        }
    }

    /// Why a request failed, in words ("connection refused", "no complete answer in time"), not the
    /// client library's description of its error values.
    static func reason(for error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
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
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout: return "no complete answer in time"
            case .connectTimeout: return "no connection in time"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(clientError)"
            }
        }
        if let tls = error as? NIOSSLError { return "TLS failed (\(tls))" }
        return "\(error)"
    }

    /// The scheme, host, port and path of a URL, without its query (which may carry codes).
    static func endpoint(_ url: String) -> String {
        String(url.prefix { $0 != "?" })
    }
}
