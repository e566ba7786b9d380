import AsyncHTTPClient
import Foundation
import HTTPTypes
import HTTPTestSupport
import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import TestSupport

/// `health share create` against a `health serve` whose public URL is too long for a link's
/// manifest URL (`{public-url}/shl/{id}`, at most 128 characters): the server refuses to host
/// the link and the command says why in words. The public URL has a path, as behind a reverse
/// proxy; the test runs that proxy on loopback (it strips the path and forwards to the server).
@Suite("health share create: a public URL too long for links")
struct ShareLinkPublicURLTests {
    /// A reverse proxy on 127.0.0.1 that serves `/{any segment}/…` from `target/…`.
    enum PathProxy {
        /// Where the proxy forwards to, set once the server's port is known.
        final class Target: Sendable {
            private let origin = Mutex("")
            var value: String { origin.withLock { $0 } }
            func set(_ value: String) { origin.withLock { $0 = value } }
        }

        /// Starts the proxy in front of `target`.
        static func start(target: Target) async throws -> LoopbackApplication {
            let router = Router()
            router.add(middleware: Forward(target: target))
            guard let proxy = await LoopbackApplication.start(router, label: "share-public-url-proxy", logLevel: .error) else {
                throw ServeCommandTests.TestFailure("the proxy did not start")
            }
            return proxy
        }

        /// Every request: its path without its first segment, sent on to the target; the answer back.
        struct Forward: RouterMiddleware {
            typealias Context = BasicRequestContext
            let target: Target

            func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
                let segments = request.uri.path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
                guard segments.count == 2, segments[0].isEmpty, let slash = segments[1].firstIndex(of: "/") else { return Response(status: .notFound) }
                let rest = segments[1][slash...]
                var outgoing = HTTPClientRequest(url: target.value + rest + (request.uri.query.map { "?" + $0 } ?? ""))
                outgoing.method = .init(rawValue: request.method.rawValue)
                for field in request.headers where !["host", "content-length", "transfer-encoding", "connection"].contains(field.name.canonicalName) {
                    outgoing.headers.add(name: field.name.rawName, value: field.value)
                }
                var request = request
                outgoing.body = .bytes(try await request.collectBody(upTo: 32 << 20))
                let answer = try await HTTPExchange.client.execute(outgoing, timeout: .seconds(60))
                var fields = HTTPFields()
                for header in answer.headers {
                    guard let name = HTTPField.Name(header.name), !["content-length", "transfer-encoding", "connection"].contains(name.canonicalName) else {
                        continue
                    }
                    fields.append(HTTPField(name: name, value: header.value))
                }
                let body = try await answer.body.collect(upTo: 32 << 20)
                return Response(status: HTTPResponse.Status(code: Int(answer.status.code)), headers: fields, body: ResponseBody(byteBuffer: body))
            }
        }
    }

    @Test("a public URL of 81 characters: share create exits 1 and says the public URL is too long, at most 80 characters")
    func createSaysThePublicURLIsTooLong() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let target = PathProxy.Target()
        let proxy = try await PathProxy.start(target: target)
        let origin = proxy.url + "/"
        let publicURL = origin + String(repeating: "p", count: 81 - origin.count)
        #expect(publicURL.count == 81)
        let server: ServeCommandTests.Server
        do {
            server = try await ServeCommandTests.Server.startOnFreePort(runner, arguments: ["--public-url", publicURL]) { port in
                target.set("http://127.0.0.1:\(port)")
            }.server
        } catch {
            await proxy.stop()
            throw error
        }
        try await withTeardown({
            server.process.terminate()
            server.process.waitUntilExit()
            await proxy.stop()
        }) {
            #expect(server.url == publicURL)
            let identity = runner.folder.appendingPathComponent("w.json").path
            let wallet = ["--server", publicURL, "--identity", identity]
            let registered = try await runner.run(["wallet", "register"] + wallet
                                                      + ["--first-name", "Ana", "--last-name", "Ruiz", "--birth-date", "1980-02-03"])
            try #require(registered.status == 0, "\(registered.error)")
            let file = runner.folder.appendingPathComponent("bundle.json")
            try Data(ShareLinkCommandTests.bundle.utf8).write(to: file)
            try #require(try await runner.run(["records", "import", file.path]).status == 0)

            let created = try await runner.run(["share", "create"] + wallet + ["--records", "conditionRecord"])
            #expect(created.status == 1, "\(created.output)\(created.error)")
            #expect(created.output.isEmpty, "no link on standard output")
            #expect(created.error.contains("public URL is too long to host links") && created.error.contains("at most 80 characters")
                        && created.error.contains("(this one has 81)"), "\(created.error)")
            let listed = try await runner.run(["share", "list"] + wallet)
            #expect(listed.status == 0 && listed.output.contains("No shared links."), "\(listed.output)\(listed.error)")
        }
    }
}
