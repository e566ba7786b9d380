import FhirBlocks
@testable import FhirBlocksServer
import NIOCore
import Testing
import TestSupport

/// Over loopback: the allowances of `/oauth/register` and `/oauth/authorize` are the peer
/// address's (as ``ClientAddress`` keys it), so one client that spends its own does not refuse
/// another address.
@Suite struct PerAddressAllowanceTests {
    /// The status of one request sent from `source` (a loopback address) over its own connection.
    static func status(port: Int, from source: String, _ method: String, _ target: String, headers: [String] = [], body: String = "") async throws -> Int {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        request += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        let answer = try await ConnectionAdmissionTests.openRawConnection(to: port, from: source, sending: request).get()
        let statusLine = String(decoding: answer.prefix(12), as: UTF8.self)   // "HTTP/1.1 201"
        return Int(statusLine.dropFirst(9)) ?? 0
    }

    @Test func oneAddressSpendingItsAllowanceDoesNotRefuseAnother() async throws {
        let world = try await TestWorld.make(.sqlite) {
            $0.registrationRate = RateLimit(perSecond: 1, burst: 2)
            $0.authorizationRate = RateLimit(perSecond: 1, burst: 2)
        }
        try await withTeardown({ await world.close() }) {
            let server = try await RunningServer.start(world.service)
            defer { server.task.cancel() }
            let registration = #"{"redirect_uris":["https://app.example/callback"]}"#
            func register(from source: String) async throws -> Int {
                try await Self.status(port: server.port, from: source, "POST", "/oauth/register", headers: ["Content-Type: application/json"],
                                      body: registration)
            }
            #expect(try await register(from: "127.0.0.2") == 201)
            #expect(try await register(from: "127.0.0.2") == 201)
            #expect(try await register(from: "127.0.0.2") == 429)
            #expect(try await register(from: "127.0.0.3") == 201)

            let first = try await world.registerSmartClient()
            let second = try await world.registerSmartClient()
            func authorize(_ client: String, _ state: String, from source: String) async throws -> Int {
                try await Self.status(port: server.port, from: source, "GET", "/oauth/authorize?" + world.authorizeQuery(client: client, state: state),
                                      headers: ["Accept: application/json"])
            }
            #expect(try await authorize(first, "1", from: "127.0.0.2") == 200)
            #expect(try await authorize(first, "2", from: "127.0.0.2") == 200)
            #expect(try await authorize(second, "3", from: "127.0.0.2") == 429)
            #expect(try await authorize(second, "3", from: "127.0.0.3") == 200)
            await server.stop()
        }
    }
}
