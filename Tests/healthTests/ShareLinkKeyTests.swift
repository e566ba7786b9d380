import CommonSupport
import Foundation
import SmartHealthLinks
import Testing
import TestSupport

/// The link's key never reaches the server: `health share create`, `open` and `update` run
/// against `health serve` on loopback, then every file the server wrote (its SQLite database,
/// journal and write-ahead log) and every file of the person's side is searched for the key in
/// each encoding it could be written in.
@Suite("health share: the link's key never reaches the server", .serialized)
struct ShareLinkKeyTests {
    /// The key as it could appear in a file: its 32 bytes, base64url (the link's), base64 with
    /// padding, and hexadecimal in both cases.
    static func encodings(of key: [UInt8]) -> [(name: String, bytes: Data)] {
        let base64 = Data(key).base64EncodedString()
        let hex = key.map { String(format: "%02x", $0) }.joined()
        return [
            ("raw bytes", Data(key)),
            ("base64url", Data(Base64URL.encode(key).utf8)),
            ("base64", Data(base64.utf8)),
            ("hex", Data(hex.utf8)),
            ("HEX", Data(hex.uppercased().utf8)),
        ]
    }

    /// The files under `folder` (recursively) holding one of `encodings`: "path: encoding".
    static func holders(of encodings: [(name: String, bytes: Data)], under folder: URL) throws -> [String] {
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return found }
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            let contents = try Data(contentsOf: url)
            for encoding in encodings where contents.range(of: encoding.bytes) != nil {
                found.append("\(url.path): \(encoding.name)")
            }
        }
        return found
    }

    @Test("""
        create (summary and records, a passcode, long-term), open, update and open again against health serve: no file of the server \
        holds the key in any encoding (raw, base64url, base64, hex), nor does the person's store hold it unsealed
        """)
    func theKeyIsNeverStoredByTheServer() async throws {
        let fixture = try await ShareLinkCommandTests.Fixture.start()
        defer { fixture.stop() }
        let created = try await fixture.run(["share", "create"] + fixture.wallet
            + ["--summary", "--records", "allergyRecord", "--passcode", "4711", "--long-term", "--label", "Key test"])
        #expect(created.status == 0, "\(created.output)\(created.error)")
        let link = try #require(created.output.split(separator: "\n").first.map(String.init))
        let payload = try SHLink.parse(link)
        #expect(payload.key.count == 32)
        let id = try #require(payload.url.split(separator: "/").last.map(String.init))

        let opened = try await fixture.run(["share", "open", link, "--passcode", "4711", "--recipient", "Dr. Key"])
        #expect(opened.status == 0, "\(opened.output)\(opened.error)")
        let updated = try await fixture.run(["share", "update", id] + fixture.wallet)
        #expect(updated.status == 0, "\(updated.output)\(updated.error)")
        let again = try await fixture.run(["share", "open", link, "--passcode", "4711", "--recipient", "Dr. Key again"])
        #expect(again.status == 0, "\(again.output)\(again.error)")

        // The server's files, read while it runs (the write-ahead log included) and after it stopped.
        let data = fixture.runner.folder.appendingPathComponent("data")
        let encodings = Self.encodings(of: payload.key)
        #expect(try Self.holders(of: encodings, under: data).isEmpty)
        // The server holds what it hosts: the link's files as JWEs (the check above reads its files).
        let listed = try await fixture.run(["share", "list"] + fixture.wallet + ["--json"])
        #expect(listed.status == 0 && listed.output.contains(id), "\(listed.output)\(listed.error)")
        fixture.server.process.terminate()
        fixture.server.process.waitUntilExit()
        let serverFiles = try FileManager.default.subpathsOfDirectory(atPath: data.path)
        #expect(!serverFiles.isEmpty, "health serve wrote no file under \(data.path)")
        #expect(try Self.holders(of: encodings, under: data).isEmpty)
        // The person's side (their store, the wallet identity, the imported bundle) keeps the key
        // sealed only: no file holds it in the clear either.
        #expect(try Self.holders(of: encodings, under: fixture.runner.folder).isEmpty)
        // The search finds the key where it is: in the link's payload and in its raw bytes.
        let control = fixture.runner.folder.appendingPathComponent("control")
        try FileManager.default.createDirectory(at: control, withIntermediateDirectories: true)
        try Data(SHLinkPayload(url: payload.url, key: payload.key).json).write(to: control.appendingPathComponent("payload.json"))
        try Data([0x00] + payload.key + [0xFF]).write(to: control.appendingPathComponent("raw.bin"))
        let found = try Self.holders(of: encodings, under: control).map { String($0.split(separator: "/").last ?? "") }.sorted()
        #expect(found == ["payload.json: base64url", "raw.bin: raw bytes"], "\(found)")
    }
}
