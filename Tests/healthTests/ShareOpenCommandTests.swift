import FHIRCore
import Foundation
import HTTPTestSupport
import Hummingbird
import Logging
import NIOCore
import SmartHealthLinks
import Synchronization
import Testing
import TestSupport

/// `health share open`, run as a person would against a small SMART Health Links server on
/// loopback that serves the public example's encrypted cards (health-cards-dev-tools, MIT).
@Suite("health share open: the command-line contract", .enabled(if: SharedVectors.available, SharedVectors.missing))
struct ShareOpenCommandTests {
    final class Server: Sendable {
        let attemptsLeft = Mutex(3)
        let recipients = Mutex<[String]>([])
        let base = Mutex("")
        let application = Mutex<LoopbackApplication?>(nil)
        let files: [String]
        let passcode: String
        let contentType: String

        init(files: [String], passcode: String, contentType: String = SHLContentType.smartHealthCard) {
            self.files = files
            self.passcode = passcode
            self.contentType = contentType
        }

        func stop() async {
            await application.withLock { $0 }?.stop()
        }

        func start() async throws {
            let router = Router()
            router.post("shl/:id") { request, _ -> Response in
                let body = Array(try await request.body.collect(upTo: 1 << 16).readableBytesView)
                guard let asked = try? SHLManifestRequest(json: body) else { return Response(status: .badRequest) }
                self.recipients.withLock { $0.append(asked.recipient) }
                let base = self.base.withLock { $0 }
                let answer: (HTTPResponse.Status, [UInt8]) = self.attemptsLeft.withLock { left in
                    guard left > 0 else { return (.notFound, []) }
                    guard asked.passcode == self.passcode else {
                        left -= 1
                        return left == 0 ? (.notFound, []) : (.unauthorized, SHLPasscodeRefusal(remainingAttempts: left).json)
                    }
                    return (.ok, SHLManifest(files: self.files.indices.map {
                        SHLManifestFile(contentType: self.contentType, source: .location("\(base)/file/\($0)"))
                    }).json)
                }
                return Response(status: answer.0, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer.1)))
            }
            router.get("file/:index") { _, context -> Response in
                guard let index = context.parameters.get("index").flatMap({ Int($0) }), self.files.indices.contains(index) else {
                    return Response(status: .notFound)
                }
                return Response(status: .ok, headers: [.contentType: "application/jose"], body: .init(byteBuffer: ByteBuffer(string: self.files[index])))
            }
            let started = await LoopbackApplication.start(router, label: "shl-cli-test-server", logLevel: .critical)
            let application = try #require(started)
            base.withLock { $0 = application.url }
            self.application.withLock { $0 = application }
        }
    }

    static func example() throws -> (link: SHLinkPayload, files: [String], passcode: String) {
        let url = TestData.shlinkVectors.appendingPathComponent("shl-examples/ERn18l4lL3_5yPXMSzx3ZejyMM_XIeWeseXa3DXsJD0.json")
        let example = try JSONParser.parse(Array(try Data(contentsOf: url)))
        let link = try SHLink.parse(try #require(example["link"]?.stringValue))
        return (link, try #require(example["jweFiles"]?.arrayValue).compactMap(\.stringValue), try #require(example["passcode"]?.stringValue))
    }

    var issuerOption: [String] {
        get throws {
            ["--issuer", "\(SharedVectors.issuer)=\(try #require(SharedVectors.examples).appendingPathComponent("issuer").path)"]
        }
    }

    @Test("A link opens with its passcode, its cards verify; wrong passcodes count down to a lockout")
    func opensVerifiesAndLocks() async throws {
        let example = try Self.example()
        let server = Server(files: example.files, passcode: example.passcode)
        try await server.start()
        let runner = CommandRunner()
        defer { runner.remove() }
        do {
            let url = server.base.withLock { $0 } + "/shl/" + SHLink.newManifestID()
            let link = SHLink.link(try SHLinkPayload(url: url, key: example.link.key, expiration: example.link.expiration,
                                                     flags: [.passcode], label: "Sample Set 1"))
            let before = ["--at", "2023-12-01T00:00:00Z"] + (try issuerOption)

            let opened = try await runner.run(["share", "open", link, "--passcode", example.passcode, "--recipient", "Dr. Díaz"] + before)
            #expect(opened.status == 0, "\(opened.output)\(opened.error)")
            #expect(opened.output.hasPrefix("“Sample Set 1”\n\(example.files.count) files\n"), "\(opened.output)")
            #expect(opened.output.components(separatedBy: ": VALID").count - 1 >= example.files.count, "\(opened.output)")
            #expect(server.recipients.withLock { $0 } == ["Dr. Díaz"])

            let asJSON = try await runner.run(["share", "open", "https://viewer.example/#" + link, "--passcode", example.passcode, "--json"] + before)
            #expect(asJSON.status == 0, "\(asJSON.error)")
            let document = try JSONParser.parse(Array(asJSON.output.utf8))
            #expect(document["files"]?.arrayValue?.count == example.files.count)
            #expect(document["files"]?.arrayValue?.allSatisfy { $0["valid"] == .bool(true) } == true)

            // --import stores the verified cards through the records importer, once.
            let imported = try await runner.run(["share", "open", link, "--passcode", example.passcode, "--import", "--store", runner.store] + before)
            #expect(imported.status == 0, "\(imported.output)\(imported.error)")
            let storedLine = try #require(imported.output.split(separator: "\n").first { $0.hasPrefix("stored ") }, "\(imported.output)")
            #expect(storedLine != "stored 0 records", "\(imported.output)")
            let listed = try await runner.run(["records", "list", "--store", runner.store])
            #expect(listed.status == 0, "\(listed.error)")
            let again = try await runner.run(["share", "open", link, "--passcode", example.passcode, "--import", "--store", runner.store] + before)
            #expect(again.status == 0, "\(again.error)")
            // The same records, not twice (a record stored again is replaced: its UUID is new, nothing else).
            func withoutUUIDs(_ text: String) -> [Substring] { text.split(separator: "\n").map { $0.dropFirst(36) } }
            let relisted = try await runner.run(["records", "list", "--store", runner.store])
            #expect(withoutUUIDs(relisted.output) == withoutUUIDs(listed.output), "\(listed.output)\n\(relisted.output)")
            #expect(!withoutUUIDs(listed.output).isEmpty)

            let missing = try await runner.run(["share", "open", link] + before)
            #expect(missing.status == 1 && missing.error.contains("protected by a passcode"), "\(missing.error)")
            let wrong = try await runner.run(["share", "open", link, "--passcode", "0000"] + before)
            #expect(wrong.status == 1, "\(wrong.error)")
            #expect(wrong.error.contains("Wrong passcode: 2 attempts remain before the link locks."), "\(wrong.error)")
            _ = try await runner.run(["share", "open", link, "--passcode", "0001"] + before)
            _ = try await runner.run(["share", "open", link, "--passcode", "0002"] + before)
            let locked = try await runner.run(["share", "open", link, "--passcode", example.passcode] + before)
            #expect(locked.status == 1 && locked.error.contains("no longer active"), "\(locked.error)")

            // Without --at, the example's expiry (2024-01-01T08:00:00Z) has passed.
            let expired = try await runner.run(["share", "open", link, "--passcode", example.passcode] + (try issuerOption))
            #expect(expired.status == 1 && expired.error.contains("The link expired on 2024-01-01T08:00:00Z"), "\(expired.error)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("""
        A file's content type is matched on its media type alone (parameters and letter case aside), \
        as the specification's own example writes application/fhir+json;fhirVersion=4.0.1
        """)
    func contentTypeParametersAreIgnored() async throws {
        let example = try Self.example()
        let server = Server(files: example.files, passcode: example.passcode, contentType: "Application/Smart-Health-Card; charset=utf-8")
        try await server.start()
        let runner = CommandRunner()
        defer { runner.remove() }
        do {
            let url = server.base.withLock { $0 } + "/shl/" + SHLink.newManifestID()
            let link = SHLink.link(try SHLinkPayload(url: url, key: example.link.key, flags: [.passcode]))
            let opened = try await runner.run(["share", "open", link, "--passcode", example.passcode, "--json",
                                               "--at", "2023-12-01T00:00:00Z"] + (try issuerOption))
            #expect(opened.status == 0, "\(opened.error)")
            let files = try JSONParser.parse(Array(opened.output.utf8))["files"]?.arrayValue ?? []
            #expect(files.count == example.files.count)
            // Verified as cards, not passed over as an unknown type.
            #expect(files.allSatisfy { ($0["cards"]?.arrayValue?.count ?? 0) > 0 && $0["valid"] == .bool(true) }, "\(opened.output)")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("Bad links are refused in words; a server that cannot be reached is exit 2")
    func refusals() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let damaged = try await runner.run(["share", "open", "shlink:/not*base64"])
        #expect(damaged.status == 1 && damaged.error.contains("not base64url"), "\(damaged.error)")
        let notALink = runner.folder.appendingPathComponent("note.txt")
        try Data("hello".utf8).write(to: notALink)
        let text = try await runner.run(["share", "open", notALink.path])
        #expect(text.status == 1 && text.error.contains("This is not a SMART Health Link"), "\(text.error)")
        let unreadable = try await runner.run(["share", "open", "/nonexistent/link.png"])
        #expect(unreadable.status == 2, "\(unreadable.error)")
        let closed = SHLink.link(try SHLinkPayload(url: "http://127.0.0.1:9/shl/x", key: SHLink.newKey()))
        let unreachable = try await runner.run(["share", "open", closed])
        #expect(unreachable.status == 2, "\(unreachable.error)")
        #expect(unreachable.error.contains("The server cannot be reached: http://127.0.0.1:9/shl/x: connection refused."), "\(unreachable.error)")
    }
}
