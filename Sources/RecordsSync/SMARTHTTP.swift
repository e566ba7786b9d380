import AsyncHTTPClient
import CommonSupport
import Foundation
import HTTPClientPolicy
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The HTTP edge of the SMART client: GETs and form POSTs over AsyncHTTPClient under the
/// package's one `HTTPClientPolicy`: redirects not followed (a bearer token is never carried to
/// another origin), bodies capped, TLS 1.2 or later verifying the server's certificate and name
/// against the system's trust store, or against the PEM bundle the `SSL_CERT_FILE` (or else the
/// folder `SSL_CERT_DIR`) environment variable names (as OpenSSL's clients do), and against the
/// additional certificate authorities given (a connection's `--ca-cert`); a GET is sent again
/// once when no connection could be made.
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
    private let policy: HTTPClientPolicy

    /// Creates a client. `timeout` bounds each request; `maximumBody` each answer (a page of
    /// search results must fit); `additionalTrustRoots` are trusted besides the system's (or
    /// `SSL_CERT_FILE`'s) authorities.
    public init(timeout: Duration = .seconds(60), maximumBody: Int = 64 << 20, additionalTrustRoots: [NIOSSLCertificate] = []) {
        policy = HTTPClientPolicy(connectTimeout: min(timeout, .seconds(10)), requestTimeout: timeout, maximumResponseSize: maximumBody,
                                  maximumRedirects: 0, retries: 1, additionalTrustRoots: additionalTrustRoots)
        client = policy.makeClient()
    }

    /// A new client with this one's limits that also trusts the certificate authorities of
    /// `pem` (shut it down when done).
    public func trusting(pem: String) throws(RecordsSyncError) -> SMARTHTTP {
        SMARTHTTP(timeout: policy.requestTimeout, maximumBody: policy.maximumResponseSize,
                  additionalTrustRoots: policy.additionalTrustRoots + (try Self.certificates(pem: pem)))
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
    public func get(_ url: String, accept: String = "application/fhir+json, application/json",
                    bearer: String? = nil) async throws(RecordsSyncError) -> Response {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: accept)
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        return try await execute(request, what: url)
    }

    /// POSTs a form (`application/x-www-form-urlencoded`).
    public func postForm(_ url: String, fields: [(name: String, value: String)]) async throws(RecordsSyncError) -> Response {
        try await post(url, body: FormURLEncoding.encode(fields), contentType: "application/x-www-form-urlencoded", bearer: nil)
    }

    /// POSTs a JSON body, with a bearer token when given.
    public func postJSON(_ url: String, body: [UInt8], contentType: String = "application/json",
                         bearer: String? = nil) async throws(RecordsSyncError) -> Response {
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
            let response = try await policy.execute(request, on: client)
            return Response(status: response.status, body: response.body, headers: response.headers.map { (name: $0.name, value: $0.value) })
        } catch .bodyTooLarge(let limit) {
            throw .malformedResponse("\(Self.endpoint(url)): the answer is larger than \(limit) bytes")
        } catch {
            throw .transport("\(Self.endpoint(url)): \(error)")
        }
    }

    /// The scheme, host, port and path of a URL, without its query (which may carry codes).
    static func endpoint(_ url: String) -> String {
        String(url.prefix { $0 != "?" })
    }
}
