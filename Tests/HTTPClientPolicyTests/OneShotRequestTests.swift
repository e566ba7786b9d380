import AsyncHTTPClient
import HTTPClientPolicy
import HTTPTestSupport
import NIOCore
import Testing
import TestSupport

/// ``HTTPClientPolicy/execute(_:)``, one request on a client made for it (the witness's
/// checkpoint, a backend client's key set), against a real server on 127.0.0.1.
@Suite("HTTPClientPolicy: one-shot requests")
struct OneShotRequestTests {
    @Test("a one-shot request is sent as written and its answer read within the policy's limit; a refused connection is the policy's error")
    func oneShot() async throws {
        let server = try await LoopbackServer(authority: nil)
        let url = server.url("/note")
        try await withTeardown({ await server.stop() }) {
            server.route("/note", .init(body: "answered"))
            server.route("/large", .init(body: String(repeating: "x", count: 65)))
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            request.body = .bytes(ByteBuffer(string: "a note"))
            let response = try await HTTPClientPolicy(environment: [:]).execute(request)
            #expect(response.status == 200)
            #expect(response.body == Array("answered".utf8))
            #expect(server.requests("/note").map(\.method) == [.POST])
            let limited = HTTPClientPolicy(maximumResponseSize: 64, environment: [:])
            await #expect(throws: HTTPClientPolicyError.bodyTooLarge(limit: 64)) {
                _ = try await limited.execute(HTTPClientRequest(url: server.url("/large")))
            }
        }
        await #expect(throws: HTTPClientPolicyError.transport(reason: "connection refused")) {
            _ = try await HTTPClientPolicy(environment: [:]).execute(HTTPClientRequest(url: url))
        }
    }
}
