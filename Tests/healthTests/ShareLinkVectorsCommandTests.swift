import CommonSupport
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

/// Published SMART Health Links opened by `health share open`, as a doctor would: the HL7 IG's own
/// examples (`Tests/Vectors/vectors/shlink-ig`, CC0) and health-cards-dev-tools' vectors
/// (`Tests/Vectors/vectors/shlink`, MIT), served unchanged by a small server on 127.0.0.1; and the
/// refusals of a card that does not verify and a file that does not decrypt (nothing stored).
@Suite("health share open: published SMART Health Links and refused files", .enabled(if: SharedVectors.available, SharedVectors.missing))
struct ShareLinkVectorsCommandTests {
    /// A loopback server answering fixed paths: `GET` with a body, `POST` (a manifest request)
    /// with a body. It records each request's path and recipient.
    final class VectorServer: Sendable {
        struct Answer: Sendable {
            var status: HTTPResponse.Status = .ok
            var contentType = "application/json"
            var body: [UInt8]
        }

        let gets: [String: Answer]
        let posts: [String: Answer]
        let requests = Mutex<[(method: String, path: String, recipient: String?)]>([])
        let base = Mutex("")
        let application = Mutex<LoopbackApplication?>(nil)

        init(gets: [String: Answer] = [:], posts: [String: Answer] = [:]) {
            self.gets = gets
            self.posts = posts
        }

        /// Starts on `port` of 127.0.0.1 (0: one the OS picks); false when the port is taken.
        func start(port: Int = 0) async throws -> Bool {
            let router = Router()
            for (path, answer) in gets {
                router.on(RouterPath(stringLiteral: path), method: .get) { request, _ -> Response in
                    let recipient = request.uri.queryParameters.get("recipient")
                    self.requests.withLock { $0.append(("GET", path, recipient)) }
                    return Response(status: answer.status, headers: [.contentType: answer.contentType],
                                    body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
                }
            }
            for (path, answer) in posts {
                router.on(RouterPath(stringLiteral: path), method: .post) { request, _ -> Response in
                    let body = Array(try await request.body.collect(upTo: 1 << 16).readableBytesView)
                    let asked = try? SHLManifestRequest(json: body)
                    self.requests.withLock { $0.append(("POST", path, asked?.recipient)) }
                    return Response(status: answer.status, headers: [.contentType: answer.contentType],
                                    body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
                }
            }
            // A port that is taken: no application.
            guard let application = await LoopbackApplication.start(router, label: "shl-vector-server", port: port, logLevel: .critical) else {
                return false
            }
            base.withLock { $0 = application.url }
            self.application.withLock { $0 = application }
            return true
        }

        var url: String { base.withLock { $0 } }

        func stop() async {
            await application.withLock { $0 }?.stop()
        }

        /// Runs `body` with the server started on an OS port, stopped afterwards.
        func serving(_ body: () async throws -> Void) async throws {
            try #require(try await start())
            try await withTeardown({ await stop() }, body)
        }
    }

    static var igVectors: URL { TestData.shlinkVectors.deletingLastPathComponent().appendingPathComponent("shlink-ig") }

    static func text(_ folder: URL, _ name: String) throws -> String {
        String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
    }

    static func bytes(_ folder: URL, _ name: String) throws -> [UInt8] { Array(try Data(contentsOf: folder.appendingPathComponent(name))) }

    /// The link with its manifest URL's scheme and host (and port) replaced by `base`; the path,
    /// key, expiry, flags and label kept.
    static func moved(_ link: SHLinkPayload, to base: String) throws -> String {
        let url = try #require(URLComponents(string: link.url))
        let path = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        return SHLink.link(try SHLinkPayload(url: base + path, key: link.key, expiration: link.expiration, flags: link.flags, label: link.label))
    }

    var issuerOption: [String] {
        get throws { ["--issuer", "\(SharedVectors.issuer)=\(try #require(SharedVectors.examples).appendingPathComponent("issuer").path)"] }
    }

    static func json(_ output: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
    }

    /// Resources of a Bundle's entries counted by type.
    static func counts(ofBundle bytes: [UInt8]) throws -> [String: Int] {
        let bundle = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        var counts: [String: Int] = [:]
        for entry in bundle["entry"] as? [[String: Any]] ?? [] {
            if let type = (entry["resource"] as? [String: Any])?["resourceType"] as? String { counts[type, default: 0] += 1 }
        }
        return counts
    }

    // MARK: - 1. The IG's own examples

    @Test("The links specification's example link parses exactly, its JWE decrypts to SHC example 00-e; share open verifies it")
    func specificationExample() async throws {
        let folder = Self.igVectors
        let published = try #require(try JSONSerialization.jsonObject(with: Data(Self.bytes(folder, "links-spec-example-payload.json"))) as? [String: Any])
        let keyText = try #require(published["key"] as? String)
        for name in ["links-spec-example-link.txt", "links-spec-example-link-with-viewer.txt"] {
            let payload = try SHLink.parse(try Self.text(folder, name))
            #expect(payload.url == "https://ehr.example.org/qr/Y9xwkUdtmN9wwoJoN3ffJIhX2UGvCL1JnlPVNL3kDWM/m", "\(name)")
            #expect(payload.url == published["url"] as? String)
            #expect(payload.key == (try Base64URL.decode(keyText)), "\(name)")
            #expect(payload.key.count == 32)
            #expect(payload.flags == [.longTerm, .passcode] && payload.flags.letters == published["flag"] as? String, "\(name)")
            #expect(payload.label == "Back-to-school immunizations for Oliver Brown", "\(name)")
            #expect(payload.label == published["label"] as? String)
            // The example publishes no exp.
            #expect(payload.expiration == nil && published["exp"] == nil, "\(name)")
            #expect(payload.version == 1)
        }
        let payload = try SHLink.parse(try Self.text(folder, "links-spec-example-link.txt"))
        let jwe = try Self.text(folder, "links-spec-example-jwe.txt")
        let file = try SHLFile.decrypt(jwe, key: payload.key)
        #expect(file.contentType == SHLContentType.smartHealthCard)
        let example = try #require(SharedVectors.examples).appendingPathComponent("example-00-e-file.smart-health-card")
        #expect(file.content == Array(try Data(contentsOf: example)), "the IG's JWE holds the SHC example 00-e")

        // The same link and JWE through the command line: a manifest at the link's own path embeds the JWE.
        let path = try #require(URLComponents(string: payload.url)).path
        let manifest = SHLManifest(files: [SHLManifestFile(contentType: SHLContentType.smartHealthCard, source: .embedded(jwe))]).json
        let server = VectorServer(posts: [path: .init(body: manifest)])
        try await server.serving {
            let runner = CommandRunner()
            defer { runner.remove() }
            let link = try Self.moved(payload, to: server.url)
            let opened = try await runner.run(["share", "open", link, "--passcode", "any", "--recipient", "Dr. Brown", "--json"] + (try issuerOption))
            #expect(opened.status == 0, "\(opened.output)\(opened.error)")
            let report = try Self.json(opened.output)
            #expect(report["label"] as? String == "Back-to-school immunizations for Oliver Brown")
            #expect(report["flags"] as? String == "LP")
            let files = try #require(report["files"] as? [[String: Any]])
            #expect(files.count == 1)
            #expect(files.first?["contentType"] as? String == SHLContentType.smartHealthCard)
            #expect((files.first?["cards"] as? [Any])?.count == 1 && files.first?["valid"] as? Bool == true, "\(opened.output)")
            #expect(server.requests.withLock { $0.map(\.recipient) } == ["Dr. Brown"])
        }
    }

    @Test("The IG's IPS example (LU, no cty) decrypts to its Bundle; share open counts its resources; its QR image holds the link")
    func igPatientSummaryExample() async throws {
        let folder = Self.igVectors
        let details = try #require(try JSONSerialization.jsonObject(with: Data(Self.bytes(folder, "IPS_IG-bundle-01-shl-details.json"))) as? [String: Any])
        let published = try #require(details["shlinkJsonPayload"] as? [String: Any])
        let viewerLink = try Self.text(folder, "IPS_IG-bundle-01-shl.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(viewerLink == details["shlinkBare"] as? String)
        for text in [viewerLink, try #require(details["shlink"] as? String)] {
            let payload = try SHLink.parse(text)
            #expect(payload.url == published["url"] as? String)
            #expect(payload.key == (try Base64URL.decode(try #require(published["key"] as? String))))
            #expect(payload.flags == [.longTerm, .direct])
            #expect(payload.label == published["label"] as? String && payload.label == "Demo SHL for IPS_IG-bundle-01")
            #expect(payload.expiration == nil)
        }
        let payload = try SHLink.parse(viewerLink)
        let jwe = try Self.text(folder, "IPS_IG-bundle-01-enc.txt")
        let plaintext = try Self.bytes(folder, "IPS_IG-bundle-01.json")
        let file = try SHLFile.decrypt(jwe, key: payload.key)
        #expect(file.content == plaintext, "the JWE decrypts to the published Bundle, byte for byte")
        #expect(file.contentType == nil, "the IG's example has no cty")

        let path = try #require(URLComponents(string: payload.url)).path
        let server = VectorServer(gets: [path: .init(contentType: "application/jose", body: Array(jwe.utf8))])
        try await server.serving {
            let runner = CommandRunner()
            defer { runner.remove() }
            let link = "https://viewer.tcpdev.org/shlink.html#" + (try Self.moved(payload, to: server.url))
            let opened = try await runner.run(["share", "open", link, "--recipient", "Dr. Who"])
            #expect(opened.status == 0, "\(opened.output)\(opened.error)")
            let expected = try Self.counts(ofBundle: plaintext)
            let total = expected.values.reduce(0, +)
            #expect(opened.output.hasPrefix("“Demo SHL for IPS_IG-bundle-01”\n1 file\nFile 1: FHIR Bundle (document) with \(total) resources: "),
                    "\(opened.output)")
            let asJSON = try await runner.run(["share", "open", link, "--json"])
            #expect(asJSON.status == 0, "\(asJSON.error)")
            let files = try #require(try Self.json(asJSON.output)["files"] as? [[String: Any]])
            #expect(files.count == 1)
            #expect(files.first?["contentType"] as? String == SHLContentType.fhirJSON)
            #expect(files.first?["resources"] as? [String: Int] == expected, "\(asJSON.output)")
            #expect(files.first?["bytes"] as? Int == plaintext.count)
            // A U link: one GET of the file, with the recipient in the query.
            #expect(server.requests.withLock { $0.map(\.method) } == ["GET", "GET"])
            #expect(server.requests.withLock { $0.first?.recipient } == "Dr. Who")
        }

        // The QR image, unchanged: it holds the published link (its server is raw.githubusercontent.com:
        // opened when the machine is online, else unreachable, exit 2, naming that very URL).
        let runner = CommandRunner()
        defer { runner.remove() }
        let image = try await runner.run(["share", "open", folder.appendingPathComponent("IPS_IG-bundle-01-shl.png").path])
        if image.status == 0 {
            #expect(image.output.hasPrefix("“Demo SHL for IPS_IG-bundle-01”\n1 file\nFile 1: FHIR Bundle (document)"), "\(image.output)")
        } else {
            #expect(image.status == 2 && image.error.contains("The server cannot be reached: \(payload.url)"), "\(image.status) \(image.error)")
        }
    }

    // MARK: - 2. health-cards-dev-tools' vectors, as they are

    /// The dev-tools examples: link, passcode and encrypted files.
    static func devToolsExample(_ id: String) throws -> (link: String, passcode: String, files: [String], filePaths: [String]) {
        let url = TestData.shlinkVectors.appendingPathComponent("shl-examples/\(id).json")
        let example = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        return (try #require(example["link"] as? String), try #require(example["passcode"] as? String),
                try #require(example["jweFiles"] as? [String]), try #require(example["filePaths"] as? [String]))
    }

    static let directID = "jvb42XYZTjY2BTZ2mcL6nozbTFT8Vs5G2_I-_IuxCZo"
    static let passcodeID = "ERn18l4lL3_5yPXMSzx3ZejyMM_XIeWeseXa3DXsJD0"

    @Test("dev-tools' U example opens with one GET carrying the recipient; its cards verify (host moved to loopback, clock pinned)")
    func devToolsDirectLink() async throws {
        let example = try Self.devToolsExample(Self.directID)
        let link = try Self.text(TestData.shlinkVectors, "shlink-link-direct.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link == example.link)
        let payload = try SHLink.parse(link)
        #expect(payload.flags == [.direct] && payload.expiration == 1_704_096_000 && payload.label == "Sample Set 1")
        let path = try #require(URLComponents(string: payload.url)).path
        #expect(path == "/shl/\(Self.directID)" && example.files.count == 1)
        let server = VectorServer(gets: [path: .init(contentType: "application/jose", body: Array(try #require(example.files.first).utf8))])
        try await server.serving {
            let runner = CommandRunner()
            defer { runner.remove() }
            let moved = try Self.moved(payload, to: server.url)
            let opened = try await runner.run(["share", "open", moved, "--recipient", "Nurse Joy", "--at", "2023-12-01T00:00:00Z"] + (try issuerOption))
            #expect(opened.status == 0, "\(opened.output)\(opened.error)")
            #expect(opened.output.hasPrefix("“Sample Set 1”\n1 file\nFile 1: application/smart-health-card, "), "\(opened.output)")
            #expect(opened.output.contains(": VALID"), "\(opened.output)")
            #expect(server.requests.withLock { $0.map { "\($0.method) \($0.path) \($0.recipient ?? "-")" } } == ["GET \(path) Nurse Joy"])
            // Without a pinned clock, the example's exp (2024-01-01) has passed: refused before any request.
            let expired = try await runner.run(["share", "open", moved] + (try issuerOption))
            #expect(expired.status == 1 && expired.error.contains("The link expired on 2024-01-01T08:00:00Z"), "\(expired.error)")
            #expect(server.requests.withLock { $0.count } == 1)
        }
    }

    @Test("dev-tools' QR image read unchanged (exp, P flag); served as published on 127.0.0.1:8090 when free, opened with its passcode")
    func devToolsQRImageAsIs() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let image = TestData.shlinkVectors.appendingPathComponent("shlink-qr.png").path
        // Read from the image: its exp, then its P flag (no request made for either).
        let expired = try await runner.run(["share", "open", image])
        #expect(expired.status == 1 && expired.error.contains("The link expired on 2024-01-01T08:00:00Z"), "\(expired.error)")
        let pinned = ["--at", "2023-12-01T00:00:00Z"] + (try issuerOption)
        let noPasscode = try await runner.run(["share", "open", image] + pinned)
        #expect(noPasscode.status == 1 && noPasscode.error.contains("protected by a passcode"), "\(noPasscode.error)")

        // The published manifest and files at the published addresses (http://localhost:8090/…).
        let passcode = try Self.devToolsExample(Self.passcodeID)
        let direct = try Self.devToolsExample(Self.directID)
        var gets: [String: VectorServer.Answer] = [:]
        for (name, jwe) in zip(passcode.filePaths, passcode.files) { gets["/shl/\(name)"] = .init(contentType: "application/jose", body: Array(jwe.utf8)) }
        gets["/shl/\(Self.directID)"] = .init(contentType: "application/jose", body: Array(try #require(direct.files.first).utf8))
        let manifest = try Self.bytes(TestData.shlinkVectors, "shlink-manifest.txt")
        let server = VectorServer(gets: gets, posts: ["/\(Self.passcodeID)": .init(body: manifest)])
        guard try await server.start(port: 8090) else {
            // Another program holds the vectors' port: the image was read above; nothing more to prove here.
            await server.stop()
            return
        }
        try await withTeardown({ await server.stop() }) {
            let opened = try await runner.run(["share", "open", image, "--passcode", passcode.passcode, "--recipient", "Dr. Díaz"] + pinned)
            #expect(opened.status == 0, "\(opened.output)\(opened.error)")
            #expect(opened.output.hasPrefix("“Sample Set 1”\n2 files\n"), "\(opened.output)")
            #expect(opened.output.components(separatedBy: ": VALID").count - 1 >= 2, "\(opened.output)")
            for name in ["shlink-link.txt", "shlink-link-with-viewer.txt"] {
                let file = TestData.shlinkVectors.appendingPathComponent(name).path
                let result = try await runner.run(["share", "open", file, "--passcode", passcode.passcode, "--json"] + pinned)
                #expect(result.status == 0, "\(name): \(result.error)")
                #expect((try Self.json(result.output)["files"] as? [[String: Any]])?.count == 2, "\(name)")
            }
            let directFile = TestData.shlinkVectors.appendingPathComponent("shlink-link-direct.txt").path
            let directOpened = try await runner.run(["share", "open", directFile] + pinned)
            #expect(directOpened.status == 0 && directOpened.output.contains(": VALID"), "\(directOpened.output)\(directOpened.error)")
            let posts = server.requests.withLock { $0.filter { $0.method == "POST" }.map(\.recipient) }
            #expect(posts == ["Dr. Díaz", "health share open", "health share open"])
        }
    }

    // MARK: - 3. Refusals: a card that does not verify, a file that does not decrypt

    @Test("share open --import exits 1 for a card that does not verify and a file that does not decrypt; the store is unchanged")
    func refusedFilesAreNotStored() async throws {
        let example = try Self.devToolsExample(Self.directID)
        let payload = try SHLink.parse(example.link)
        let original = try SHLFile.decrypt(try #require(example.files.first), key: payload.key)
        // The card file with one signature character changed, encrypted again with the link's key.
        var card = try #require(try JSONSerialization.jsonObject(with: Data(original.content)) as? [String: Any])
        var jws = try #require((card["verifiableCredential"] as? [String])?.first)
        let last = try #require(jws.last)
        jws.removeLast()
        jws.append(last == "A" ? "B" : "A")
        card["verifiableCredential"] = [jws]
        let forged = try SHLFile.encrypt(Array(try JSONSerialization.data(withJSONObject: card)), contentType: SHLContentType.smartHealthCard,
                                         key: payload.key)
        // The original file with its ciphertext altered.
        var parts = try #require(example.files.first).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 5)
        var cipher = Array(parts[3])
        cipher[cipher.count / 2] = cipher[cipher.count / 2] == "A" ? "B" : "A"
        parts[3] = String(cipher)
        let altered = parts.joined(separator: ".")

        let server = VectorServer(gets: ["/forged": .init(contentType: "application/jose", body: Array(forged.utf8)),
                                         "/altered": .init(contentType: "application/jose", body: Array(altered.utf8))])
        try await server.serving {
            let runner = CommandRunner()
            defer { runner.remove() }
            // A store holding one record already.
            let record = runner.folder.appendingPathComponent("condition.json")
            try Data(#"{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"}}"#.utf8).write(to: record)
            let seeded = try await runner.run(["records", "import", record.path, "--store", runner.store])
            try #require(seeded.status == 0, "\(seeded.error)")
            func stored() async throws -> String {
                let listed = try await runner.run(["records", "list", "--json", "--store", runner.store])
                #expect(listed.status == 0, "\(listed.error)")
                return listed.output
            }
            let before = try await stored()
            let pinned = ["--at", "2023-12-01T00:00:00Z", "--allow-other-person"] + (try issuerOption)
            func link(_ path: String) throws -> String {
                SHLink.link(try SHLinkPayload(url: server.url + path, key: payload.key, flags: [.direct], label: "Sample Set 1"))
            }

            let forgedOpened = try await runner.run(["share", "open", try link("/forged"), "--import", "--store", runner.store] + pinned)
            #expect(forgedOpened.status == 1, "\(forgedOpened.output)\(forgedOpened.error)")
            #expect(forgedOpened.output.contains("File 1: application/smart-health-card, 1 card"), "\(forgedOpened.output)")
            #expect(forgedOpened.output.contains("INVALID"), "\(forgedOpened.output)")
            #expect((forgedOpened.output + forgedOpened.error).lowercased().contains("signature"), "\(forgedOpened.output)\(forgedOpened.error)")
            #expect(!forgedOpened.output.contains(": VALID"), "\(forgedOpened.output)")
            #expect(try await stored() == before, "the card that does not verify is not stored")
            // Shown without --import: the same verdict, exit 1.
            let shown = try await runner.run(["share", "open", try link("/forged"), "--json"] + pinned)
            #expect(shown.status == 1, "\(shown.output)\(shown.error)")
            #expect((try Self.json(shown.output)["files"] as? [[String: Any]])?.first?["valid"] as? Bool == false, "\(shown.output)")

            let alteredOpened = try await runner.run(["share", "open", try link("/altered"), "--import", "--store", runner.store] + pinned)
            #expect(alteredOpened.status == 1, "\(alteredOpened.output)\(alteredOpened.error)")
            #expect(alteredOpened.output.isEmpty, "\(alteredOpened.output)")
            #expect(alteredOpened.error.contains("decrypt"), "\(alteredOpened.error)")
            #expect(try await stored() == before, "nothing of a file that does not decrypt is stored")
            #expect(server.requests.withLock { $0.count } == 3)
        }
    }

    @Test("share open --import exits 1 for a zip bomb (zip: DEF inflating past the cap) and for JWEs with another alg or enc; the store is unchanged")
    func zipBombAndOtherAlgorithmsAreNotStored() async throws {
        let key = [UInt8](repeating: 7, count: 32)
        // 17 MiB of zeros deflate to a few kilobytes; the receiver stops inflating at 16 MiB.
        let bombContent = [UInt8](repeating: 0, count: SHLFile.defaultMaximumSize + 1_048_576)
        let bomb = try SHLFile.encrypt(bombContent, contentType: "application/fhir+json", key: key, compress: true)
        #expect(bomb.utf8.count < 1_048_576, "the bomb is small on the wire: \(bomb.utf8.count) bytes")
        // A sound file of the link, then the same file with another algorithm or encryption in its header.
        let bundle = #"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Condition","id":"c9","#
            + #""subject":{"reference":"Patient/p1"},"code":{"text":"Gout"}}}]}"#
        let sound = try SHLFile.encrypt(Array(bundle.utf8), contentType: "application/fhir+json", key: key)
        let soundParts = sound.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(soundParts.count == 5)
        func withHeader(_ header: String, encryptedKey: String = "") -> String {
            ([Base64URL.encode(Array(header.utf8)), encryptedKey] + soundParts[2...]).joined(separator: ".")
        }
        let otherEnc = withHeader(#"{"alg":"dir","enc":"A128GCM","cty":"application/fhir+json"}"#)
        let otherAlg = withHeader(#"{"alg":"A256KW","enc":"A256GCM","cty":"application/fhir+json"}"#,
                                  encryptedKey: Base64URL.encode([UInt8](repeating: 1, count: 40)))
        let server = VectorServer(gets: ["/bomb": .init(contentType: "application/jose", body: Array(bomb.utf8)),
                                         "/sound": .init(contentType: "application/jose", body: Array(sound.utf8)),
                                         "/other-enc": .init(contentType: "application/jose", body: Array(otherEnc.utf8)),
                                         "/other-alg": .init(contentType: "application/jose", body: Array(otherAlg.utf8))])
        try await server.serving {
            let runner = CommandRunner()
            defer { runner.remove() }
            let record = runner.folder.appendingPathComponent("condition.json")
            try Data(#"{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"}}"#.utf8).write(to: record)
            let seeded = try await runner.run(["records", "import", record.path, "--store", runner.store])
            try #require(seeded.status == 0, "\(seeded.error)")
            func stored() async throws -> String {
                let listed = try await runner.run(["records", "list", "--json", "--store", runner.store])
                #expect(listed.status == 0, "\(listed.error)")
                return listed.output
            }
            let before = try await stored()
            func link(_ path: String) throws -> String {
                SHLink.link(try SHLinkPayload(url: server.url + path, key: key, flags: [.direct], label: "Refused"))
            }
            let refusals = [("/bomb", "compressed content would be larger than \(SHLFile.defaultMaximumSize) bytes"),
                            ("/other-enc", "encrypted with dir/A128GCM; SMART Health Links use dir/A256GCM"),
                            ("/other-alg", "encrypted with A256KW/A256GCM; SMART Health Links use dir/A256GCM")]
            for (path, words) in refusals {
                let opened = try await runner.run(["share", "open", try link(path), "--import", "--store", runner.store, "--allow-other-person"])
                #expect(opened.status == 1, "\(path): \(opened.status) \(opened.output)\(opened.error)")
                #expect(opened.error.contains(words), "\(path): \(opened.error)")
                #expect(try await stored() == before, "\(path): nothing stored")
            }
            // The same link's sound file opens and imports: the refusals were the files', not the link's.
            let opened = try await runner.run(["share", "open", try link("/sound"), "--import", "--store", runner.store, "--allow-other-person"])
            #expect(opened.status == 0, "\(opened.output)\(opened.error)")
            #expect(try await stored().contains("Gout"))
        }
    }
}
