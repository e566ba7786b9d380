import CommonSupport
import Foundation
import HealthWebApp
import HTTPTestSupport
import Hummingbird
import Logging
import NIOCore
import OpenHealthKit
import SmartHealthLinks
import Synchronization
import Testing

/// "Open a shared link" against a links server on loopback that answers what the test scripts:
/// a manifest that is not JSON, a file whose ciphertext was altered, a location on another
/// scheme. Each is said in words, no preview is kept, and nothing is stored.
@Suite("Share page: bad links store nothing", .serialized)
struct ShareOpenRefusalTests {
    /// A links server on 127.0.0.1 whose manifest answer (content type and body) the test sets.
    final class ScriptedServer: Sendable {
        let manifest = Mutex<(String, [UInt8])>(("application/json", []))
        let requests = Mutex(0)
        let application = Mutex<LoopbackApplication?>(nil)
        let base = Mutex("")

        func start() async throws {
            let router = Router()
            router.post("shl/:id") { request, _ -> Response in
                _ = try await request.body.collect(upTo: 1 << 16)
                self.requests.withLock { $0 += 1 }
                let (type, body) = self.manifest.withLock { $0 }
                return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
            let started = await LoopbackApplication.start(router, label: "share-refusal-test-links", logLevel: .critical)
            let application = try #require(started)
            base.withLock { $0 = application.url }
            self.application.withLock { $0 = application }
        }

        func stop() async {
            await application.withLock { $0 }?.stop()
        }
    }

    static func clinicalRecordCount(_ store: HKHealthStore) async throws -> Int {
        var count = 0
        for type in HKObjectType.allClinicalTypes {
            count += try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)], sortDescriptors: []).result(for: store).count
        }
        return count
    }

    /// `jwe` with one byte of its ciphertext flipped.
    static func altered(_ jwe: String) throws -> String {
        var parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 5)
        var ciphertext = try Base64URL.decode(parts[3])
        ciphertext[ciphertext.count / 2] ^= 0x01
        parts[3] = Base64URL.encode(ciphertext)
        return parts.joined(separator: ".")
    }

    @Test("a manifest that is not JSON, an altered file or a location on another scheme is said in words; no preview, nothing stored")
    func badAnswersStoreNothing() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let server = ScriptedServer()
        try await server.start()
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let jwe = try SHLFile.encrypt(Array(SharePageTests.allergy.utf8), contentType: SHLContentType.fhirJSON, key: key)
        @Sendable func manifest(_ source: String) -> [UInt8] {
            Array(#"{"files":[{"contentType":"application/fhir+json",\#(source)}]}"#.utf8)
        }
        let cases: [(name: String, type: String, body: [UInt8], words: String)] = [
            ("not JSON", "text/html", Array("<html><body>502 Bad Gateway</body></html>".utf8),
             "The server&#39;s list of shared files is not valid: it is not JSON"),
            ("truncated JSON", "application/json", Array(#"{"files":[{"contentType":"#.utf8), "is not valid: it is not JSON"),
            ("altered ciphertext", "application/json", manifest(#""embedded":""# + (try Self.altered(jwe)) + #"""#),
             "A shared file does not decrypt with the link&#39;s key: it was altered or belongs to another link."),
            ("another scheme", "application/json", manifest(#""location":"ftp://127.0.0.1/file""#), "uses ftp:, not https:"),
        ]
        do {
            let link = SHLink.link(try SHLinkPayload(url: server.base.withLock { $0 } + "/shl/" + SHLink.newManifestID(), key: key))
            try await fixture.withClient { client in
                let cookie = try await client.startSession()
                let before = try await Self.clinicalRecordCount(fixture.store)
                for item in cases {
                    server.manifest.withLock { $0 = (item.type, item.body) }
                    let page = try await client.send(.post, "/share/open", cookie: cookie,
                                                     multipart: MultipartBody().field("csrf", client.csrf(cookie)).field("link", link)
                                                         .field("recipient", "Alice").closed)
                    #expect(page.status == .unprocessableContent, "\(item.name)")
                    let said = page.body.contains(item.words) || page.body.contains(item.words.replacingOccurrences(of: "&#39;", with: "'"))
                    #expect(said, "\(item.name): \(page.body)")
                    #expect(!page.body.contains("action=\"/share/import\""), "\(item.name): no preview to import")
                    #expect(try await Self.clinicalRecordCount(fixture.store) == before, "\(item.name)")
                }
                #expect(server.requests.withLock { $0 } == cases.count)
                // The untouched file opens and imports (the cases above failed on what they changed).
                server.manifest.withLock { $0 = ("application/json", manifest(#""embedded":""# + jwe + #"""#)) }
                let preview = try await client.send(.post, "/share/open", cookie: cookie,
                                                    multipart: MultipartBody().field("csrf", client.csrf(cookie)).field("link", link)
                                                        .field("recipient", "Alice").closed)
                #expect(preview.status == .ok, "\(preview.body)")
                let token = try #require(SharePageTests.hidden("opened", in: preview.body))
                let imported = try await client.send(.post, "/share/import", cookie: cookie, form: "csrf=\(client.csrf(cookie))&opened=\(token)")
                #expect(imported.status == .ok, "\(imported.body)")
                #expect(try await Self.clinicalRecordCount(fixture.store) == before + 1)
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
