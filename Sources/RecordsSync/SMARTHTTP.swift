import AsyncHTTPClient
import FhirBlocks
import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP edge of the SMART client: GETs and form POSTs over AsyncHTTPClient, redirects not
/// followed (a bearer token is never carried to another origin), bodies capped.
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
    private let timeout: TimeAmount
    private let maximumBody: Int

    /// Creates a client. `timeout` bounds each request; `maximumBody` each answer (a page of
    /// search results must fit).
    public init(timeout: Duration = .seconds(60), maximumBody: Int = 64 << 20) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.timeout = .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        self.maximumBody = maximumBody
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
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: maximumBody)
            return Response(status: Int(response.status.code), body: Array(body.readableBytesView),
                            headers: response.headers.map { (name: $0.name, value: $0.value) })
        } catch {
            throw .transport("\(Self.endpoint(url)): \(error)")
        }
    }

    /// The scheme, host, port and path of a URL, without its query (which may carry codes).
    static func endpoint(_ url: String) -> String {
        String(url.prefix { $0 != "?" })
    }
}
