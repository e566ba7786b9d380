import CommonSupport
import ExactJSON
import Foundation
import HTTPTestSupport
import Hummingbird
import Logging
import NIOCore
import RecordsSync
import Synchronization
import Testing
import TestSupport
@testable import SmartHealthLinks

/// A links server that answers what a test scripts, byte for byte: manifests that are not JSON
/// or not a manifest, locations on other schemes, files that are not the link's JWE. The receiver
/// answers each with a typed error (``SHLReceiveError``) and hands over no file, so a caller has
/// nothing to store.
@Suite("SHL receiver: bad answers")
struct SHLReceiverBadAnswerTests {
    /// The scripted answers: the manifest's status, content type and body, and the files by name.
    final class ScriptedServer: Sendable {
        struct Answer: Sendable {
            var status: HTTPResponse.Status = .ok
            var contentType = "application/json"
            var body: [UInt8] = []
        }
        let manifest = Mutex(Answer())
        let files = Mutex<[String: Answer]>([:])
        let base = Mutex("")
        let application = Mutex<LoopbackApplication?>(nil)
        let requests = Mutex(0)

        static func start() async throws -> ScriptedServer {
            let server = ScriptedServer()
            let router = Router()
            router.post("shl/:id") { request, _ -> Response in
                _ = try await request.body.collect(upTo: 1 << 16)
                server.requests.withLock { $0 += 1 }
                let answer = server.manifest.withLock { $0 }
                return Self.response(answer)
            }
            router.get("file/:name") { _, context -> Response in
                let name = context.parameters.get("name") ?? ""
                guard let answer = server.files.withLock({ $0[name] }) else { return Response(status: .notFound) }
                return Self.response(answer)
            }
            guard let application = await LoopbackApplication.start(router, label: "shl-bad-answers", logLevel: .critical) else {
                throw SHLReceiveError.unreachable("the test server did not start")
            }
            server.base.withLock { $0 = application.url }
            server.application.withLock { $0 = application }
            return server
        }

        static func response(_ answer: Answer) -> Response {
            Response(status: answer.status, headers: [.contentType: answer.contentType], body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        }

        func stop() async {
            await application.withLock { $0 }?.stop()
        }

        var url: String { base.withLock { $0 } }
    }

    static func withServer(_ body: (ScriptedServer, SHLReceiver) async throws -> Void) async throws {
        let server = try await ScriptedServer.start()
        let http = SMARTHTTP(timeout: .seconds(300))  // generous: a loaded 2-core CI machine can keep an answer waiting for minutes
        do {
            try await body(server, SHLReceiver(transport: SHLReceiverTests.Transport(http: http)))
        } catch {
            try? await http.shutdown()
            await server.stop()
            throw error
        }
        try await http.shutdown()
        await server.stop()
    }

    /// What opening `link` gave: the files, or the receiver's error.
    static func outcome(_ receiver: SHLReceiver, _ link: SHLinkPayload) async -> Result<[SHLReceivedFile], SHLReceiveError> {
        do {
            return .success(try await receiver.open(link, recipient: "Dr. Test"))
        } catch {
            return .failure(error)
        }
    }

    static func isBadManifest(_ outcome: Result<[SHLReceivedFile], SHLReceiveError>) -> Bool {
        if case .failure(.invalid(.badManifest)) = outcome { return true }
        return false
    }

    @Test func aManifestThatIsNotJSONIsATypedErrorAndNoFile() async throws {
        try await Self.withServer { server, receiver in
            let key = SHLink.newKey()
            let link = try SHLinkPayload(url: server.url + "/shl/" + SHLink.newManifestID(), key: key)
            let bodies: [(String, String)] = [
                ("text/html", "<html><body>Welcome to nginx!</body></html>"),
                ("application/json", ""),
                ("application/json", "{\"files\": ["),
                ("application/json", "\u{FEFF}not json at all"),
                ("application/octet-stream", "\u{0}\u{1}\u{2}\u{FF}"),
                ("application/json", "null"),
                ("application/json", "[]"),
                ("application/json", "{\"files\": 5}"),
                ("application/json", "{}"),
                ("application/json", "{\"files\": [{\"location\": \"\(server.url)/file/a\"}]}"),
                ("application/json", "{\"files\": [{\"contentType\": \"application/fhir+json\"}]}"),
                ("application/json", "{\"files\": [{\"contentType\": \"application/fhir+json\", \"location\": \"ftp://127.0.0.1/file/a\"}]}"),
                ("application/json", "{\"files\": [{\"contentType\": \"application/fhir+json\", \"location\": \"javascript:alert(1)\"}]}"),
                ("application/json", "{\"files\": [{\"contentType\": \"application/fhir+json\", \"location\": \"http://example.org/file/a\"}]}"),
                ("application/json", String(repeating: "[", count: 10_000)),
            ]
            for (contentType, body) in bodies {
                server.manifest.withLock { $0 = ScriptedServer.Answer(contentType: contentType, body: Array(body.utf8)) }
                let outcome = await Self.outcome(receiver, link)
                #expect(Self.isBadManifest(outcome), "\(body.prefix(80)): \(outcome)")
                if case .failure(let error) = outcome {
                    #expect(error.description.hasPrefix("The server's list of shared files is not valid"), "\(error.description)")
                    // The message never carries the key.
                    #expect(!error.description.contains(Base64URL.encode(key)))
                }
            }
            #expect(server.requests.withLock { $0 } == bodies.count)
        }
    }

    @Test func badFilesAndStatusesAreTypedErrorsAndNoFile() async throws {
        try await Self.withServer { server, receiver in
            let key = SHLink.newKey()
            let link = try SHLinkPayload(url: server.url + "/shl/" + SHLink.newManifestID(), key: key)
            let content = Array(#"{"resourceType":"Bundle","type":"collection","entry":[]}"#.utf8)
            let good = try SHLFile.encrypt(content, contentType: SHLContentType.fhirJSON, key: key)
            let otherKey = try SHLFile.encrypt(content, contentType: SHLContentType.fhirJSON, key: SHLink.newKey())
            let header = Base64URL.encode(Array(#"{"alg":"RSA-OAEP","enc":"A256GCM"}"#.utf8))
            let parts = good.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let otherAlgorithm = ([header] + parts.dropFirst()).joined(separator: ".")
            let manifest = #"{"files":[{"contentType":"application/fhir+json","location":"\#(server.url)/file/a"}]}"#
            server.manifest.withLock { $0 = ScriptedServer.Answer(body: Array(manifest.utf8)) }
            // The good file opens: the server is what the cases below change.
            server.files.withLock { $0["a"] = ScriptedServer.Answer(contentType: "application/jose", body: Array(good.utf8)) }
            #expect(try await receiver.open(link, recipient: "Dr. Test").map(\.content) == [content])
            let cases: [(String, (SHLReceiveError) -> Bool)] = [
                ("<html>not a JWE</html>", { if case .invalid(.badFile) = $0 { true } else { false } }),
                ("", { if case .invalid(.badFile) = $0 { true } else { false } }),
                (otherKey, { $0 == .invalid(.doesNotDecrypt) }),
                (otherAlgorithm, { if case .invalid(.unsupportedAlgorithm) = $0 { true } else { false } }),
            ]
            for (body, expected) in cases {
                server.files.withLock { $0["a"] = ScriptedServer.Answer(contentType: "application/jose", body: Array(body.utf8)) }
                let outcome = await Self.outcome(receiver, link)
                guard case .failure(let error) = outcome else {
                    Issue.record("a bad file was handed over: \(body.prefix(60))")
                    continue
                }
                #expect(expected(error), "\(body.prefix(60)): \(error)")
            }
            // Statuses: the manifest answered 500, 404, 429; a location answered 404.
            server.manifest.withLock { $0 = ScriptedServer.Answer(status: .internalServerError, body: Array("oops".utf8)) }
            #expect(await Self.outcome(receiver, link) == .failure(.server(status: 500, what: "the link")))
            server.manifest.withLock { $0 = ScriptedServer.Answer(status: .notFound, body: []) }
            #expect(await Self.outcome(receiver, link) == .failure(.notActive))
            server.manifest.withLock { $0 = ScriptedServer.Answer(status: .tooManyRequests, body: []) }
            #expect(await Self.outcome(receiver, link) == .failure(.tooManyRequests(retryAfterSeconds: nil)))
            server.manifest.withLock { $0 = ScriptedServer.Answer(body: Array(manifest.utf8)) }
            server.files.withLock { $0 = [:] }
            #expect(await Self.outcome(receiver, link) == .failure(.notActive))
        }
    }
}
