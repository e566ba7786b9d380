import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOSSL

/// The tests' one HTTP client, and one exchange over it, for every test that talks to a server
/// it started (in this process or as a `health serve` child).
public enum HTTPExchange {
    /// `HTTPClient.shared`'s configuration, but its idle connections leave the pool after 2 s,
    /// long before a server closes an idle one (30 s). The shared client keeps them 600 s, and on a
    /// loaded machine a request sent on one the server was closing at that moment was reset
    /// (ECONNRESET). A request waits for a pooled connection as long as it may wait for its answer
    /// (16 clients share 8 connections per server in LoadTests).
    public static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

    /// The same client, but it answers a redirect with the redirect itself (for tests that read
    /// a 303's `Location` and cookie).
    public static let clientNotFollowingRedirects: HTTPClient = {
        var notFollowing = configuration
        notFollowing.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: notFollowing)
    }()

    /// A client with ``client``'s configuration that also trusts `roots` (a test's own certificate
    /// authority, for a server started with `--tls-cert`). It does not follow redirects when
    /// `followingRedirects` is false. The caller shuts it down.
    public static func makeClient(trusting roots: [NIOSSLCertificate], followingRedirects: Bool = true) -> HTTPClient {
        var trusting = configuration
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates(roots)]
        trusting.tlsConfiguration = tls
        if !followingRedirects { trusting.redirectConfiguration = .disallow }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: trusting)
    }

    /// The tests' clients' configuration (see ``client``).
    private static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.idleTimeout = .seconds(2)
        configuration.timeout.connect = .seconds(300)
        return configuration
    }

    /// Sends one request with ``client`` and collects its answer (at most 16 MiB).
    public static func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws
        -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        // Generous: on a loaded 2-core CI machine an answer that takes milliseconds alone can wait minutes.
        let response = try await client.execute(request, timeout: .seconds(300))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), response.headers.map { ($0.name, $0.value) }, Array(buffer.readableBytesView))
    }
}
