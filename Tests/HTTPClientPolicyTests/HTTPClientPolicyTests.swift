import AsyncHTTPClient
import Foundation
import HTTPTestSupport
import HTTPClientPolicy
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing
import TestSupport

/// The policy against real servers on 127.0.0.1: plain HTTP, and HTTPS with a certificate issued
/// by an authority made for the test run.
@Suite("HTTPClientPolicy")
struct HTTPClientPolicyTests {
    /// Runs `body` with a client made by `policy`, shut down afterwards.
    static func withClient<Value: Sendable>(_ policy: HTTPClientPolicy, _ body: (HTTPClient) async throws -> Value) async throws -> Value {
        let client = policy.makeClient()
        do {
            let value = try await body(client)
            try await client.shutdown()
            return value
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func get(_ url: String, policy: HTTPClientPolicy) async throws -> Result<HTTPClientPolicy.Response, HTTPClientPolicyError> {
        try await withClient(policy) { client in
            do {
                return .success(try await policy.execute(HTTPClientRequest(url: url), on: client))
            } catch let error as HTTPClientPolicyError {
                return .failure(error)
            } catch {
                return .failure(.transport(reason: "\(error)"))
            }
        }
    }

    @Test("a redirect from https to http is refused with a typed error; http to http is followed, within the limit")
    func redirects() async throws {
        let authority = try TestCertificateAuthority.make()
        let secure = try await LoopbackServer(authority: authority)
        let plain = try await LoopbackServer(authority: nil)
        try await withTeardown({
            await secure.stop()
            await plain.stop()
        }) {
            plain.route("/end", .init(body: "plain end"))
            plain.route("/hop", .init(status: .found, headers: [("Location", "/end")]))
            plain.route("/loop", .init(status: .found, headers: [("Location", "/loop")]))
            secure.route("/down", .init(status: .movedPermanently, headers: [("Location", plain.url("/end"))]))
            let policy = HTTPClientPolicy(maximumRedirects: 3, additionalTrustRoots: [authority.root], environment: [:])

            let refused = try await Self.get(secure.url("/down"), policy: policy)
            guard case .failure(.redirectRefused(let target, _)) = refused else {
                Issue.record("expected the redirect to http to be refused, got \(refused)")
                return
            }
            #expect(target == plain.url("/end"))
            #expect(plain.count("/end") == 0)

            let followed = try await Self.get(plain.url("/hop"), policy: policy).get()
            #expect(followed.body == Array("plain end".utf8))
            #expect(followed.url == plain.url("/end"))

            let looping = try await Self.get(plain.url("/loop"), policy: policy)
            #expect(throws: HTTPClientPolicyError.tooManyRedirects(limit: 3)) { try looping.get() }
            #expect(plain.count("/loop") == 4)

            // With no redirects allowed, the 3xx answer itself comes back.
            let unfollowed = try await Self.get(plain.url("/hop"), policy: HTTPClientPolicy(environment: [:])).get()
            #expect(unfollowed.status == 302)
        }
    }

    @Test("a body over the limit is refused with a typed error, with Content-Length or chunked; one at the limit is read")
    func bodyLimit() async throws {
        let server = try await LoopbackServer(authority: nil)
        try await withTeardown({
            await server.stop()
        }) {
            let body = [UInt8](repeating: 0x61, count: 1000)
            server.route("/big", .init(body: body))
            server.route("/chunked", .init(body: body, chunked: true))
            let small = HTTPClientPolicy(maximumResponseSize: 999, environment: [:])
            await #expect(throws: HTTPClientPolicyError.bodyTooLarge(limit: 999)) { try await Self.get(server.url("/big"), policy: small).get() }
            await #expect(throws: HTTPClientPolicyError.bodyTooLarge(limit: 999)) { try await Self.get(server.url("/chunked"), policy: small).get() }
            let exact = HTTPClientPolicy(maximumResponseSize: 1000, environment: [:])
            let read = try await Self.get(server.url("/big"), policy: exact).get()
            #expect(read.body.count == 1000)
        }
    }

    @Test("SSL_CERT_FILE is honoured: the test authority in that file makes the loopback server trusted; without it TLS fails")
    func sslCertFile() async throws {
        let authority = try TestCertificateAuthority.make()
        let server = try await LoopbackServer(authority: authority)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await withTeardown({
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }) {
            server.route("/ok", .init(body: "trusted"))
            let file = folder.appendingPathComponent("roots.pem")
            try Data(authority.rootPEM.utf8).write(to: file)

            let trusting = HTTPClientPolicy(environment: ["SSL_CERT_FILE": file.path])
            let trusted = try await Self.get(server.url("/ok"), policy: trusting).get()
            #expect(trusted.body == Array("trusted".utf8))

            let untrusting = HTTPClientPolicy(environment: [:])
            let refused = try await Self.get(server.url("/ok"), policy: untrusting)
            guard case .failure(.transport(let reason)) = refused else {
                Issue.record("expected a TLS failure, got \(refused)")
                return
            }
            #expect(reason.contains("TLS"), "\(reason)")
            #expect(HTTPClientPolicy(environment: [:]).tlsConfiguration.minimumTLSVersion == .tlsv12)
        }
    }

    @Test("only idempotent methods are retried, and any request that was never written; a refused connection is reported in words")
    func retriesAndRefusal() async throws {
        #expect(HTTPClientPolicy.isIdempotent(.GET) && HTTPClientPolicy.isIdempotent(.PUT) && HTTPClientPolicy.isIdempotent(.DELETE))
        #expect(!HTTPClientPolicy.isIdempotent(.POST) && !HTTPClientPolicy.isIdempotent(.PATCH))
        // A request written on a pooled connection the server had already closed never left:
        // any method goes again. A connection closed before the answer: only idempotent ones.
        #expect(HTTPClientPolicy.maySendAgain(.POST, after: ChannelError.ioOnClosedChannel))
        #expect(HTTPClientPolicy.maySendAgain(.GET, after: HTTPClientError.remoteConnectionClosed))
        #expect(!HTTPClientPolicy.maySendAgain(.POST, after: HTTPClientError.remoteConnectionClosed))
        #expect(!HTTPClientPolicy.maySendAgain(.GET, after: HTTPClientError.readTimeout))
        #expect(!HTTPClientPolicy.maySendAgain(.POST, after: ChannelError.outputClosed))
        let server = try await LoopbackServer(authority: nil)
        let url = server.url("/gone")
        await server.stop()
        let refused = try await Self.get(url, policy: HTTPClientPolicy(environment: [:]))
        #expect(throws: HTTPClientPolicyError.transport(reason: "connection refused")) { try refused.get() }
    }
}
