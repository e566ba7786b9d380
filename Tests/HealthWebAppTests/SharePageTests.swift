import Foundation
import HealthWebApp
import HTTPTestSupport
import Hummingbird
import Logging
import NIOCore
import OpenHealthKit
import QRCode
import QRImageReader
import SmartHealthLinks
import Synchronization
import Testing

/// The Share page: without a wallet it says how to connect one (its create and revoke forms answer
/// 404); "Open a shared link" previews a pasted link or its QR image (files decrypted, counted,
/// cards verified, through the same opener as `health share open`) against a small SMART Health
/// Links server on loopback, says a wrong passcode in words, and imports the records.
@Suite("Share page", .serialized)
struct SharePageTests {
    /// A links server on 127.0.0.1: one link, its passcode, a count of attempts, its files embedded.
    final class LinkServer: Sendable {
        let attemptsLeft = Mutex(5)
        let recipients = Mutex<[String]>([])
        let application = Mutex<LoopbackApplication?>(nil)
        let base = Mutex("")
        let files: [String]
        let passcode: String

        init(files: [String], passcode: String) {
            self.files = files
            self.passcode = passcode
        }

        func start() async throws {
            let router = Router()
            router.post("shl/:id") { request, _ -> Response in
                let body = Array(try await request.body.collect(upTo: 1 << 16).readableBytesView)
                guard let asked = try? SHLManifestRequest(json: body) else { return Response(status: .badRequest) }
                self.recipients.withLock { $0.append(asked.recipient) }
                let answer: (HTTPResponse.Status, [UInt8]) = self.attemptsLeft.withLock { left in
                    guard left > 0 else { return (.notFound, []) }
                    guard asked.passcode == self.passcode else {
                        left -= 1
                        return left == 0 ? (.notFound, []) : (.unauthorized, SHLPasscodeRefusal(remainingAttempts: left).json)
                    }
                    return (.ok, SHLManifest(files: self.files.map { SHLManifestFile(contentType: SHLContentType.fhirJSON, source: .embedded($0)) }).json)
                }
                return Response(status: answer.0, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer.1)))
            }
            let started = await LoopbackApplication.start(router, label: "share-page-test-links", logLevel: .critical)
            let application = try #require(started)
            base.withLock { $0 = application.url }
            self.application.withLock { $0 = application }
        }

        func stop() async {
            await application.withLock { $0 }?.stop()
        }

        /// A link to this server's files, with flag P.
        func link(key: [UInt8], label: String) throws -> String {
            SHLink.link(try SHLinkPayload(url: base.withLock { $0 } + "/shl/" + SHLink.newManifestID(), key: key, flags: [.passcode], label: label))
        }
    }

    static let allergy = #"""
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"urn:uuid:a1","resource":{"resourceType":"AllergyIntolerance","id":"a1","code":{"text":"Peanut allergy"},
         "clinicalStatus":{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical","code":"active"}]},
         "patient":{"display":"Owner"},"recordedDate":"2019-05-01"}}]}
        """#

    static func withLinkServer(_ body: (LinkServer, [UInt8]) async throws -> Void) async throws {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let jwe = try SHLFile.encrypt(Array(allergy.utf8), contentType: SHLContentType.fhirJSON, key: key, compress: true)
        let server = LinkServer(files: [jwe], passcode: "2468")
        try await server.start()
        do {
            try await body(server, key)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("without a wallet the page says how to connect one and still opens links; creating and revoking answer 404; no form works without its CSRF token")
    func withoutWallet() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/share", cookie: cookie)
            #expect(page.status == .ok)
            #expect(page.body.contains("<a href=\"/share\" aria-current=\"page\">Share</a>"))
            #expect(page.body.contains("health ui --identity FILE --server URL"))
            #expect(!page.body.contains("action=\"/share/create\""))
            #expect(page.body.contains("action=\"/share/open\" enctype=\"multipart/form-data\""))
            #expect(!page.body.contains("<script"))
            let csrf = client.csrf(cookie)
            #expect(try await client.send(.post, "/share/create", cookie: cookie, form: "csrf=\(csrf)&summary=yes").status == .notFound)
            #expect(try await client.send(.post, "/share/revoke", cookie: cookie, form: "csrf=\(csrf)&id=x").status == .notFound)
            #expect(try await client.send(.post, "/share/import", cookie: cookie, form: "link=shlink%3A%2Fx").status == .forbidden)
            let noCSRF = MultipartBody().field("link", "shlink:/x").closed
            #expect(try await client.send(.post, "/share/open", cookie: cookie, multipart: noCSRF).status == .forbidden)
        }
    }

    @Test("a pasted link is previewed (its records counted), a wrong passcode is said with the attempts left, and Import stores the allergy")
    func openPreviewImport() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await Self.withLinkServer { server, key in
            let link = try server.link(key: key, label: "From Dr. Díaz")
            try await fixture.withClient { client in
                let cookie = try await client.startSession()
                let csrf = client.csrf(cookie)
                func open(_ text: String, passcode: String) async throws -> WebAnswer {
                    try await client.send(.post, "/share/open", cookie: cookie,
                                          multipart: MultipartBody().field("csrf", csrf).field("link", text).field("passcode", passcode)
                                              .field("recipient", "Alice").closed)
                }
                let wrong = try await open(link, passcode: "0000")
                #expect(wrong.status == .unprocessableContent)
                #expect(wrong.body.contains("Wrong passcode: 4 attempts remain before the link locks."), "\(wrong.body)")
                let none = try await open(link, passcode: "")
                #expect(none.body.contains("This link is protected by a passcode: give it in the form."))
                let notALink = try await open("https://example.org/nothing", passcode: "")
                #expect(notALink.status == .unprocessableContent && notALink.body.contains("This is not a SMART Health Link"))

                let preview = try await open("https://viewer.example/viewer#" + link, passcode: "2468")
                #expect(preview.status == .ok, "\(preview.body)")
                #expect(preview.body.contains("“From Dr. Díaz”: 1 file(s)"), "\(preview.body)")
                #expect(preview.body.contains("File 1: FHIR records"))
                #expect(preview.body.contains("A collection with 1 AllergyIntolerance"))
                #expect(preview.body.contains("action=\"/share/import\""))
                #expect(server.recipients.withLock { $0 }.last == "Alice")
                #expect(try await fixture.store.clinicalRecordCount() == 0)

                // The preview keeps what it fetched: its Import form names it, and carries neither the link nor the passcode.
                let token = try #require(Self.hidden("opened", in: preview.body), "\(preview.body)")
                #expect(!preview.body.contains("name=\"passcode\" value=\"2468\"") && !preview.body.contains("name=\"link\" value="))
                let manifestRequests = server.recipients.withLock { $0.count }
                let imported = try await client.send(.post, "/share/import", cookie: cookie, form: "csrf=\(csrf)&opened=\(token)")
                #expect(imported.status == .ok, "\(imported.body)")
                #expect(imported.body.contains("Imported the shared records"), "\(imported.body)")
                // Importing did not open the link again: one manifest request (the preview's) for this import.
                #expect(server.recipients.withLock { $0.count } == manifestRequests)
                // A preview is imported once.
                let again = try await client.send(.post, "/share/import", cookie: cookie, form: "csrf=\(csrf)&opened=\(token)")
                #expect(again.status == .unprocessableContent && again.body.contains("This preview is no longer kept"), "\(again.body)")
                #expect(server.recipients.withLock { $0.count } == manifestRequests)
            }
            #expect(try await fixture.store.clinicalRecordCount() == 1)
        }
    }

    @Test("""
        each preview then Import sends exactly one manifest request; a preview kept for one session and store is not imported by another, nor by a \
        made-up token
        """)
    func importOpensOnce() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await Self.withLinkServer { server, key in
            let link = try server.link(key: key, label: "Once")
            try await fixture.withClient { client in
                let cookie = try await client.startSession()
                let csrf = client.csrf(cookie)
                var tokens: [String] = []
                for round in 1...3 {
                    let preview = try await client.send(.post, "/share/open", cookie: cookie,
                                                        multipart: MultipartBody().field("csrf", csrf).field("link", link).field("passcode", "2468")
                                                            .field("recipient", "Alice").closed)
                    #expect(preview.status == .ok, "\(preview.body)")
                    let token = try #require(Self.hidden("opened", in: preview.body))
                    tokens.append(token)
                    let imported = try await client.send(.post, "/share/import", cookie: cookie, form: "csrf=\(csrf)&opened=\(token)")
                    #expect(imported.status == .ok, "\(imported.body)")
                    #expect(server.recipients.withLock { $0.count } == round, "round \(round)")
                }
                #expect(Set(tokens).count == 3)
                // Another session (its own CSRF token) cannot import this session's preview.
                let preview = try await client.send(.post, "/share/open", cookie: cookie,
                                                    multipart: MultipartBody().field("csrf", csrf).field("link", link).field("passcode", "2468")
                                                        .field("recipient", "Alice").closed)
                let token = try #require(Self.hidden("opened", in: preview.body))
                let otherFixture = try await WebTestFixture.make(days: 1)
                try await otherFixture.withClient { other in
                    let otherCookie = try await other.startSession()
                    let refused = try await other.send(.post, "/share/import", cookie: otherCookie, form: "csrf=\(other.csrf(otherCookie))&opened=\(token)")
                    #expect(refused.status == .unprocessableContent && refused.body.contains("This preview is no longer kept"), "\(refused.body)")
                }
                #expect(try await otherFixture.store.clinicalRecordCount() == 0)
                // Still kept for its own session.
                #expect(try await client.send(.post, "/share/import", cookie: cookie, form: "csrf=\(csrf)&opened=\(token)").status == .ok)
                let madeUp = try await client.send(.post, "/share/import", cookie: cookie, form: "csrf=\(csrf)&opened=\(String(repeating: "0", count: 64))")
                #expect(madeUp.status == .unprocessableContent)
                #expect(server.recipients.withLock { $0.count } == 4)
            }
        }
    }

    /// The value of the hidden input `name` in `html`.
    static func hidden(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test("a link's QR image is read and previewed",
          .enabled(if: (try? QRImageReader.availability.get()) != nil, "needs zxing-cpp and the OpenHealthKitQRImages library"))
    func qrImage() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await Self.withLinkServer { server, key in
            let link = try server.link(key: key, label: "Scanned")
            let png = try QRCode.encode(text: link).png(moduleSize: 6)
            try await fixture.withClient { client in
                let cookie = try await client.startSession()
                let body = MultipartBody().field("csrf", client.csrf(cookie)).field("link", "").file("image", filename: "link.png", png, type: "image/png")
                    .field("passcode", "2468").field("recipient", "Alice").closed
                let preview = try await client.send(.post, "/share/open", cookie: cookie, multipart: body)
                #expect(preview.status == .ok, "\(preview.body)")
                #expect(preview.body.contains("“Scanned”: 1 file(s)"), "\(preview.body)")
            }
        }
    }

    static func formValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}

extension HKHealthStore {
    /// How many clinical records the store holds, of every type.
    fileprivate func clinicalRecordCount() async throws -> Int {
        var count = 0
        for type in HKObjectType.allClinicalTypes {
            count += try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)], sortDescriptors: []).result(for: self).count
        }
        return count
    }
}
