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

/// The receiver against a small SHL server on loopback, reached with the application's HTTP client
/// (RecordsSync's `SMARTHTTP`): the public example files, passcodes counted to lockout, `U` links,
/// embedded and located files, and refusals.
struct SHLReceiverTests {
    /// The HTTP client behind ``SHLTransport``.
    struct Transport: SHLTransport {
        let http: SMARTHTTP
        func postJSON(_ url: String, json: [UInt8]) async throws -> SHLHTTPResponse {
            let answer = try await http.postJSON(url, body: json)
            return SHLHTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        }
        func get(_ url: String) async throws -> SHLHTTPResponse {
            let answer = try await http.get(url, accept: "application/jose")
            return SHLHTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        }
    }

    /// What the small server holds: one link's files, its passcode, its attempt budget.
    final class Server: Sendable {
        struct State {
            var files: [String] = []
            var passcode: String?
            var attemptsLeft = 3
            var embedFirst = false
            var recipients: [String] = []
            var alterFile: Int?
        }
        let state = Mutex(State())
        let base = Mutex("")
        let application = Mutex<LoopbackApplication?>(nil)

        func stop() async {
            await application.withLock { $0 }?.stop()
        }

        static func start() async throws -> Server {
            let server = Server()
            let router = Router()
            router.post("shl/:id") { request, _ -> Response in
                let body = Array(try await request.body.collect(upTo: 1 << 16).readableBytesView)
                let base = server.base.withLock { $0 }
                let answer: (HTTPResponse.Status, [UInt8]) = server.state.withLock { state in
                    guard let asked = try? SHLManifestRequest(json: body) else { return (.badRequest, []) }
                    state.recipients.append(asked.recipient)
                    guard state.attemptsLeft > 0 else { return (.notFound, []) }
                    if let passcode = state.passcode, asked.passcode != passcode {
                        state.attemptsLeft -= 1
                        return state.attemptsLeft == 0 ? (.notFound, []) : (.unauthorized, SHLPasscodeRefusal(remainingAttempts: state.attemptsLeft).json)
                    }
                    let files = state.files.enumerated().map { index, jwe in
                        index == 0 && state.embedFirst && jwe.utf8.count <= (asked.embeddedLengthMax ?? 0)
                            ? SHLManifestFile(contentType: SHLContentType.smartHealthCard, source: .embedded(jwe))
                            : SHLManifestFile(contentType: SHLContentType.smartHealthCard, source: .location("\(base)/file/\(index)"))
                    }
                    return (.ok, SHLManifest(files: files).json)
                }
                return Response(status: answer.0, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer.1)))
            }
            router.get("file/:index") { _, context -> Response in
                let index = context.parameters.get("index").flatMap { Int($0) } ?? -1
                let file: String? = server.state.withLock { state in
                    guard state.files.indices.contains(index) else { return nil }
                    guard state.alterFile == index else { return state.files[index] }
                    var parts = state.files[index].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                    parts[3] = String(parts[3].reversed())
                    return parts.joined(separator: ".")
                }
                guard let file else { return Response(status: .notFound) }
                return Response(status: .ok, headers: [.contentType: "application/jose"], body: .init(byteBuffer: ByteBuffer(string: file)))
            }
            router.get("direct/:id") { request, _ -> Response in
                let recipient = request.uri.queryParameters.get("recipient") ?? ""
                let file: String? = server.state.withLock { state in
                    state.recipients.append(recipient)
                    return recipient.isEmpty ? nil : state.files.first
                }
                guard let file else { return Response(status: .badRequest) }
                return Response(status: .ok, headers: [.contentType: "application/jose"], body: .init(byteBuffer: ByteBuffer(string: file)))
            }
            guard let application = await LoopbackApplication.start(router, label: "shl-test-server", logLevel: .critical) else {
                throw SHLReceiveError.unreachable("the test server did not start")
            }
            server.base.withLock { $0 = application.url }
            server.application.withLock { $0 = application }
            return server
        }
    }

    /// The public example with a passcode: its key and encrypted files, served by the test server.
    static func passcodeExample() throws -> (key: [UInt8], files: [String], passcode: String) {
        let example = try SHLFileTests.example("ERn18l4lL3_5yPXMSzx3ZejyMM_XIeWeseXa3DXsJD0")
        let link = try SHLink.parse(try #require(example["link"]?.stringValue))
        let files = try #require(example["jweFiles"]?.arrayValue).compactMap(\.stringValue)
        return (link.key, files, try #require(example["passcode"]?.stringValue))
    }

    static func withServer(_ body: (Server, SHLReceiver) async throws -> Void) async throws {
        let server = try await Server.start()
        let http = SMARTHTTP(timeout: .seconds(300))  // generous: a loaded 2-core CI machine can keep an answer waiting for minutes
        do {
            try await body(server, SHLReceiver(transport: Transport(http: http)))
        } catch {
            try? await http.shutdown()
            await server.stop()
            throw error
        }
        try await http.shutdown()
        await server.stop()
    }

    @Test func theExampleOpensWithItsPasscodeAndEachWrongGuessCounts() async throws {
        let example = try Self.passcodeExample()
        try await Self.withServer { server, receiver in
            server.state.withLock { $0.files = example.files; $0.passcode = example.passcode; $0.attemptsLeft = 3; $0.embedFirst = true }
            let link = try SHLinkPayload(url: server.base.withLock { $0 } + "/shl/" + SHLink.newManifestID(), key: example.key, flags: [.passcode])
            await #expect(throws: SHLReceiveError.passcodeRequired) { try await receiver.open(link, recipient: "Dr. B") }
            await #expect(throws: SHLReceiveError.wrongPasscode(remainingAttempts: 2)) { try await receiver.open(link, recipient: "Dr. B", passcode: "0000") }
            let files = try await receiver.open(link, recipient: "Dr. Díaz", passcode: example.passcode)
            #expect(files.count == example.files.count)
            for file in files {
                #expect(file.contentType == SHLContentType.smartHealthCard)
                #expect(try JSONParser.parse(file.content)["verifiableCredential"]?.arrayValue?.isEmpty == false)
            }
            #expect(server.state.withLock { $0.recipients }.last == "Dr. Díaz")
            await #expect(throws: SHLReceiveError.wrongPasscode(remainingAttempts: 1)) { try await receiver.open(link, recipient: "Dr. B", passcode: "1") }
            // The last wrong guess locks the link: from then on even the right passcode gets "not active".
            await #expect(throws: SHLReceiveError.notActive) { try await receiver.open(link, recipient: "Dr. B", passcode: "2") }
            await #expect(throws: SHLReceiveError.notActive) { try await receiver.open(link, recipient: "Dr. B", passcode: example.passcode) }
        }
    }

    @Test func directLinksFetchTheirSingleFileWithTheRecipient() async throws {
        let key = SHLink.newKey()
        let content = Array(#"{"resourceType":"Bundle","type":"collection"}"#.utf8)
        let file = try SHLFile.encrypt(content, contentType: SHLContentType.fhirJSON, key: key, compress: true)
        try await Self.withServer { server, receiver in
            server.state.withLock { $0.files = [file] }
            let link = try SHLinkPayload(url: server.base.withLock { $0 } + "/direct/x", key: key, flags: [.direct])
            let files = try await receiver.open(link, recipient: "Clinic Díaz & Co")
            #expect(files == [SHLReceivedFile(contentType: SHLContentType.fhirJSON, content: content, lastUpdated: nil, status: nil)])
            #expect(server.state.withLock { $0.recipients } == ["Clinic Díaz & Co"])
            #expect(SHLReceiver.queryEscaped("Clinic Díaz & Co") == "Clinic%20D%C3%ADaz%20%26%20Co")
        }
    }

    @Test func expiredAlteredAndUnreachableLinksAreRefused() async throws {
        let example = try Self.passcodeExample()
        try await Self.withServer { server, receiver in
            server.state.withLock { $0.files = example.files; $0.alterFile = 1 }
            let url = server.base.withLock { $0 } + "/shl/" + SHLink.newManifestID()
            let expired = try SHLinkPayload(url: url, key: example.key, expiration: 1_704_096_000)
            await #expect(throws: SHLReceiveError.expired(at: Date(timeIntervalSince1970: 1_704_096_000))) {
                try await receiver.open(expired, recipient: "x")
            }
            // The same link read at a time before its expiry (the example's, pinned) opens, up to the altered file.
            await #expect(throws: SHLReceiveError.invalid(.doesNotDecrypt)) {
                try await receiver.open(expired, recipient: "x", now: Date(timeIntervalSince1970: 1_700_000_000))
            }
            let otherKey = try SHLinkPayload(url: url, key: SHLink.newKey())
            server.state.withLock { $0.alterFile = nil }
            await #expect(throws: SHLReceiveError.invalid(.doesNotDecrypt)) { try await receiver.open(otherKey, recipient: "x") }
        }
        let closed = try SHLinkPayload(url: "http://127.0.0.1:9/shl/x", key: SHLink.newKey())
        let http = SMARTHTTP(timeout: .seconds(5))
        await #expect(throws: SHLReceiveError.self) { try await SHLReceiver(transport: Transport(http: http)).open(closed, recipient: "x") }
        try await http.shutdown()
    }
}
