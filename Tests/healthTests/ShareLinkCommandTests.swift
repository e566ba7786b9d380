import FHIRCore
import Foundation
import SmartHealthLinks
import Testing
import TestSupport

/// `health share create|list|update|revoke` against a real `health serve` on loopback, and the
/// links they make opened by `health share open` from their QR image into another store.
@Suite("health share create|list|update|revoke: the command-line contract", .serialized)
struct ShareLinkCommandTests {
    static let bundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"resource":{"resourceType":"Patient","id":"p1","name":[{"family":"Ruiz","given":["Ana"]}],"birthDate":"1980-02-03"}},
        {"resource":{"resourceType":"AllergyIntolerance","id":"al1","patient":{"reference":"Patient/p1"},\
        "code":{"coding":[{"system":"http://snomed.info/sct","code":"91936005","display":"Allergy to penicillin"}]},"recordedDate":"2019-05-01"}},
        {"resource":{"resourceType":"Observation","id":"a1c","status":"final","category":[{"coding":[{"system":\
        "http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"text":"Hemoglobin A1c"},\
        "subject":{"reference":"Patient/p1"},"effectiveDateTime":"2024-03-03T08:00:00Z","valueQuantity":{"value":6.30,"unit":"%"}}},
        {"resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/p1"},"code":{"text":"Asthma"},"recordedDate":"2015-04-01"}}
        ]}
        """

    static let laterObservation = """
        {"resourceType":"Observation","id":"a1c-2","status":"final","category":[{"coding":[{"system":\
        "http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"text":"Hemoglobin A1c"},\
        "subject":{"reference":"Patient/p1"},"effectiveDateTime":"2025-03-03T08:00:00Z","valueQuantity":{"value":5.90,"unit":"%"}}
        """

    struct Fixture {
        let runner: CommandRunner
        let server: ServeCommandTests.Server
        let wallet: [String]
        let other: String

        /// A `health serve` on `database` (its data folder's SQLite file when nil), a registered
        /// wallet and a store with the bundle's records.
        static func start(database: String? = nil) async throws -> Fixture {
            let runner = CommandRunner()
            let server = try await ServeCommandTests.Server.start(runner, database: database)
            let identity = runner.folder.appendingPathComponent("w.json").path
            let registered = try await runner.run(["wallet", "register", "--server", server.url, "--identity", identity,
                                                   "--first-name", "Ana", "--last-name", "Ruiz", "--birth-date", "1980-02-03"])
            try #require(registered.status == 0, "\(registered.error)")
            let file = runner.folder.appendingPathComponent("bundle.json")
            try Data(ShareLinkCommandTests.bundle.utf8).write(to: file)
            let imported = try await runner.run(["records", "import", file.path])
            try #require(imported.status == 0, "\(imported.output)\(imported.error)")
            return Fixture(runner: runner, server: server, wallet: ["--server", server.url, "--identity", identity],
                           other: runner.folder.appendingPathComponent("doctor.sqlite").path)
        }

        func stop() {
            server.process.terminate()
            server.process.waitUntilExit()
            runner.remove()
        }

        func run(_ arguments: [String]) async throws -> CommandRunner.Result { try await runner.run(arguments) }

        /// The clinical records of a store, without what differs between stores (UUID, source).
        func records(store: String? = nil) async throws -> [[String: String]] {
            let listed = try await run(["records", "list", "--json"] + (store.map { ["--store", $0] } ?? []))
            let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
            return array.map { record in
                var kept: [String: String] = [:]
                for (key, value) in record where !["uuid", "source"].contains(key) { kept[key] = "\(value)" }
                return kept
            }.sorted { ($0["type"] ?? "", $0["id"] ?? "") < ($1["type"] ?? "", $1["id"] ?? "") }
        }
    }

    /// Lines of `health wallet audit` (in UTC) about shared links.
    static func linkAuditLines(_ fixture: Fixture) async throws -> [String] {
        let audit = try await fixture.runner.run(["wallet", "audit"] + fixture.wallet, environment: ["TZ": "UTC"])
        #expect(audit.status == 0, "\(audit.error)")
        return audit.output.split(separator: "\n").map(String.init).filter { $0.contains("(shared link ") }
    }

    @Test("""
        create with a QR image, open the image into another store: the records are equal; list shows the access; revoke: open exits 1; \
        wallet audit says who opened it, when, and why others were refused (on SQLite, and PostgreSQL when OPENHEALTHKIT_POSTGRES_URL is set)
        """,
          arguments: ServeCommandTests.backends)
    func createOpenListRevoke(backend: String) async throws {
        let fixture = try await Fixture.start(database: try await ServeCommandTests.database(for: backend))
        defer { fixture.stop() }
        let image = fixture.runner.folder.appendingPathComponent("link.png").path
        let created = try await fixture.run(["share", "create"] + fixture.wallet
            + ["--records", "allergyRecord", "labResultRecord", "conditionRecord", "--passcode", "4711", "--label", "For Dr. Lee",
               "--expires-in", "7d", "--qr", image])
        #expect(created.status == 0, "\(created.output)\(created.error)")
        let lines = created.output.split(separator: "\n").map(String.init)
        let link = try #require(lines.first)
        #expect(link.hasPrefix("shlink:/"))
        let payload = try SHLink.parse(link)
        #expect(payload.flags == [.passcode])
        #expect(payload.label == "For Dr. Lee")
        #expect(payload.url.hasPrefix(fixture.server.url + "/shl/"))
        let id = try #require(payload.url.split(separator: "/").last.map(String.init))
        #expect(id.count == 43)
        let expiration = try #require(payload.expiration)
        #expect(expiration > Int64(Date().timeIntervalSince1970) + 6 * 86_400 && expiration <= Int64(Date().timeIntervalSince1970) + 7 * 86_400)
        #expect(lines.contains("Label: For Dr. Lee") && lines.contains("Files: 1") && lines.contains("ID: \(id)"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Flags: P") })
        let attributes = try FileManager.default.attributesOfItem(atPath: image)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "the QR code holds the key")

        // A wrong passcode is refused (1) and counted; the right one opens the QR image and imports.
        let wrong = try await fixture.run(["share", "open", image, "--passcode", "0000", "--recipient", "Dr. Lee"])
        #expect(wrong.status == 1, "\(wrong.output)\(wrong.error)")
        let opened = try await fixture.run(["share", "open", image, "--passcode", "4711", "--recipient", "Dr. Lee", "--import",
                                            "--store", fixture.other])
        #expect(opened.status == 0, "\(opened.output)\(opened.error)")
        let mine = try await fixture.records()
        #expect(mine.count == 3)
        #expect(try await fixture.records(store: fixture.other) == mine)

        let listed = try await fixture.run(["share", "list"] + fixture.wallet + ["--json"])
        #expect(listed.status == 0, "\(listed.error)")
        let links = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        let entry = try #require(links.first { $0["id"] as? String == id })
        #expect(entry["status"] as? String == "active")
        #expect(entry["label"] as? String == "For Dr. Lee")
        #expect(entry["remainingAttempts"] as? Int == 9)
        let accesses = try #require(entry["accesses"] as? [[String: Any]])
        #expect(accesses.contains { $0["recipient"] as? String == "Dr. Lee" && $0["outcome"] as? String == "opened" }, "\(accesses)")
        let text = try await fixture.run(["share", "list"] + fixture.wallet)
        #expect(text.status == 0 && text.output.contains("ID: \(id)") && text.output.contains("Dr. Lee opened the link")
                    && text.output.contains("Dr. Lee was refused: wrong passcode") && text.output.contains("Passcode attempts left: 9"),
                "\(text.output)")

        let revoked = try await fixture.run(["share", "revoke", id] + fixture.wallet)
        #expect(revoked.status == 0, "\(revoked.output)\(revoked.error)")
        let after = try await fixture.run(["share", "open", link, "--passcode", "4711", "--recipient", "Front desk"])
        #expect(after.status == 1, "\(after.output)\(after.error)")

        // The wallet's audit log in words, oldest first: when (in the person's zone), who, and what happened.
        let audit = try await Self.linkAuditLines(fixture)
        let when = #"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC  "#
        let link8 = NSRegularExpression.escapedPattern(for: String(id.prefix(8)))
        let expected = [
            "Dr. Lee was refused: wrong passcode",
            "Dr. Lee opened the link",
            "Front desk was refused: the link had been revoked",
        ]
        #expect(audit.count == expected.count, "\(audit)")
        for (line, words) in zip(audit, expected) {
            let pattern = try Regex(when + NSRegularExpression.escapedPattern(for: words) + #" \(shared link "# + link8 + #"…\)"#)
            #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
        }
        let status = try await fixture.run(["share", "list"] + fixture.wallet + ["--json"])
        #expect(status.output.contains("\"revoked\""), "\(status.output)")
        // Revoking it again: the server refuses (1).
        #expect(try await fixture.run(["share", "revoke", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"] + fixture.wallet).status == 1)
    }

    @Test("a long-term summary link: update re-encrypts today's content with the same key; the viewer address and JSON output")
    func longTermUpdate() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let created = try await fixture.run(["share", "create"] + fixture.wallet + ["--summary", "--long-term", "--no-expiry", "--viewer", "--json"])
        #expect(created.status == 0, "\(created.output)\(created.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any])
        let link = try #require(object["link"] as? String)
        let viewer = try #require(object["viewerLink"] as? String)
        #expect(viewer == fixture.server.url + "/viewer#" + link)
        #expect(object["expires"] is NSNull)
        let id = try #require(object["id"] as? String)
        #expect(try SHLink.parse(link).flags == [.longTerm])
        #expect(try SHLink.parse(link).expiration == nil)

        var looks = 0
        /// The resources of the link's single file, counted by type, as `health share open --json` reports them.
        func openedCounts() async throws -> [String: Int] {
            // A long-term link answers one recipient at most once a minute: each look is a new recipient.
            looks += 1
            let result = try await fixture.run(["share", "open", viewer, "--json", "--recipient", "Dr. \(looks)"])
            #expect(result.status == 0, "\(result.output)\(result.error)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let files = try #require(document["files"] as? [[String: Any]])
            #expect(files.count == 1)
            return try #require(files.first?["resources"] as? [String: Int])
        }
        let before = try await openedCounts()
        #expect(before["Composition"] == 1 && before["Patient"] == 1 && before["Observation"] == 1, "\(before)")

        // A new result, then update: the same link (same key) opens today's summary.
        let file = fixture.runner.folder.appendingPathComponent("later.json")
        try Data(Self.laterObservation.utf8).write(to: file)
        #expect(try await fixture.run(["records", "import", file.path]).status == 0)
        let updated = try await fixture.run(["share", "update", id] + fixture.wallet)
        #expect(updated.status == 0, "\(updated.output)\(updated.error)")
        let after = try await openedCounts()
        #expect(after["Observation"] == 2 && after["Composition"] == 1, "\(after)")

        // A store that did not create the link keeps no key for it: usage error.
        let elsewhere = try await fixture.run(["share", "update", id] + fixture.wallet + ["--store", fixture.other])
        #expect(elsewhere.status == 2 && elsewhere.error.contains("keeps no key"), "\(elsewhere.error)")
    }

    @Test("usage errors exit 2: --direct with --passcode, two expiries, a long label, nothing chosen, an unreachable server")
    func usageErrors() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let create = ["share", "create"] + fixture.wallet
        let cases: [[String]] = [
            create + ["--cards", "--direct", "--passcode", "1"],
            create + ["--summary", "--expires-in", "7d", "--no-expiry"],
            create + ["--summary", "--expires", "2099-01-01T00:00:00Z", "--expires-in", "7d"],
            create + ["--summary", "--label", String(repeating: "x", count: 81)],
            create + ["--summary", "--expires-in", "soon"],
            create + ["--summary", "--expires", "2001-01-01T00:00:00Z"],
            create + ["--summary", "--attempts", "3"],
            create + ["--summary", "--qr", "link.gif"],
            create,
            create + ["--records", "bogusRecord"],
            ["share", "create", "--server", "http://127.0.0.1:1", "--identity", fixture.wallet[3], "--summary"],
        ]
        for arguments in cases {
            let result = try await fixture.run(arguments)
            #expect(result.status == 2, "\(arguments.dropFirst(6)): \(result.status) \(result.error)")
            #expect(result.output.isEmpty, "\(arguments.dropFirst(6)): nothing on standard output")
        }
        // An 80-character label is accepted; a direct link to one file opens without a manifest.
        let direct = try await fixture.run(create + ["--records", "conditionRecord", "--direct", "--label", String(repeating: "é", count: 80)])
        #expect(direct.status == 0, "\(direct.error)")
        let link = try #require(direct.output.split(separator: "\n").first.map(String.init))
        #expect(try SHLink.parse(link).flags == [.direct])
        let opened = try await fixture.run(["share", "open", link])
        #expect(opened.status == 0 && opened.output.contains("Condition"), "\(opened.output)\(opened.error)")
        // Updating a link that is not long-term: usage error.
        let id = try #require(try SHLink.parse(link).url.split(separator: "/").last.map(String.init))
        #expect(try await fixture.run(["share", "update", id] + fixture.wallet).status == 2)
    }
}
