import HTTPTypes
import HealthWebApp
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// DNS rebinding: a site whose name resolves to 127.0.0.1 sends its own name as `Host`; only
/// `127.0.0.1:PORT`, `localhost:PORT` and `[::1]:PORT` are answered, before anything else (the live server on
/// loopback, a real HTTP client that sets `Host` as a browser would).
@Suite("health ui Host check")
struct HostCheckTests {
    /// Runs the application on a free port of 127.0.0.1 for the time of `body`.
    static func withServer(_ fixture: WebTestFixture, _ body: @Sendable (Int) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = fixture.webApp.application(port: 0) { port in continuation.yield(port) }
        let server = Task { try await application.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw WebTestFailure("the server did not start") }
        try await body(port)
    }

    static func status(_ port: Int, _ path: String, authority: String?, cookie: String? = nil) async throws -> HTTPResponse.Status {
        try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            var headers = HTTPFields()
            if let cookie { headers[.cookie] = cookie }
            return try await client.execute(TestClient.Request(path, method: .get, authority: authority, headers: headers)).status
        }
    }

    @Test("Only 127.0.0.1:PORT, localhost:PORT and [::1]:PORT are answered; any other Host is 421 and none 400, before the start secret is spent")
    func hostIsChecked() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await Self.withServer(fixture) { port in
            let secret = "/session?secret=\(fixture.webApp.session.startSecret)"
            // Refused before the session is looked at: the start secret stays good.
            for authority in ["evil.example:\(port)", "evil.example", "127.0.0.1", "localhost", "127.0.0.1:\(port + 1)", "localhost:\(port)0",
                              "127.0.0.1.evil.example:\(port)", "localhost.evil.example:\(port)", "[::1]", "[::1]:\(port + 1)", "[::2]:\(port)",
                              "[::1].evil.example:\(port)", "[0:0:0:0:0:0:0:1]:\(port)", "::1:\(port)", "0.0.0.0:\(port)",
                              "127.0.0.1:\(port)@evil.example", "LOCALHOST:\(port).evil"] {
                let start = try await Self.status(port, secret, authority: authority)
                let page = try await Self.status(port, "/", authority: authority)
                #expect(start == .misdirectedRequest && page == .misdirectedRequest, "\(authority): \(start) \(page)")
            }
            let noHost = try await Self.status(port, secret, authority: nil)
            #expect(noHost == .badRequest)
            // The names the application answers at: without a session 401, and the secret still opens one.
            let named = try await Self.status(port, "/", authority: "localhost:\(port)")
            let upper = try await Self.status(port, "/", authority: "LocalHost:\(port)")
            let ipv6 = try await Self.status(port, "/", authority: "[::1]:\(port)")
            let opened = try await Self.status(port, secret, authority: "127.0.0.1:\(port)")
            #expect(named == .unauthorized && upper == .unauthorized && ipv6 == .unauthorized && opened == .seeOther, "\(named) \(upper) \(ipv6) \(opened)")
        }
    }
}
