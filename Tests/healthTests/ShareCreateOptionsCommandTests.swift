import FHIRCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SmartHealthLinks
import Testing
import TestSupport

/// `health share create`'s options each proven end to end against a real `health serve` on
/// 127.0.0.1: `--viewer`, the expiry (30 days by default, `--expires`), `--qr` as SVG, PNG and
/// terminal text (each read back into the link), `--cards`, `--card`, `--record` (the link's files
/// decrypted here hold exactly what was chosen) and `--attempts` (the link locks after N wrong
/// passcodes).
@Suite("health share create: each option through the command line", .serialized,
       .enabled(if: SharedVectors.available, SharedVectors.missing))
struct ShareCreateOptionsCommandTests {
    typealias Fixture = ShareLinkCommandTests.Fixture

    static func firstLine(_ output: String) throws -> String {
        try #require(output.split(separator: "\n").first.map(String.init), "\(output)")
    }

    static func list(_ fixture: Fixture) async throws -> [[String: Any]] {
        let listed = try await fixture.run(["share", "list"] + fixture.wallet + ["--json"])
        #expect(listed.status == 0, "\(listed.error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.output)")
    }

    static func id(of link: String) throws -> String {
        try #require(try SHLink.parse(link).url.split(separator: "/").last.map(String.init))
    }

    // MARK: - Reading QR codes back

    /// A dark-module grid drawn as a 24-bit BMP (`scale` pixels a module), which `health share open`
    /// reads like any QR image.
    static func bmp(_ dark: [[Bool]], scale: Int = 4) -> [UInt8] {
        let side = dark.count * scale
        let rowBytes = (side * 3 + 3) / 4 * 4
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes: [UInt8] = Array("BM".utf8) + le(54 + rowBytes * side, 4) + le(0, 4) + le(54, 4)
        bytes += le(40, 4) + le(side, 4) + le(side, 4) + le(1, 2) + le(24, 2) + le(0, 4) + le(rowBytes * side, 4) + le(2835, 4) + le(2835, 4)
            + le(0, 4) + le(0, 4)
        for y in (0..<side).reversed() {
            var row: [UInt8] = []
            for x in 0..<side {
                let value: UInt8 = dark[y / scale][x / scale] ? 0 : 255
                row += [value, value, value]
            }
            row += [UInt8](repeating: 0, count: rowBytes - row.count)
            bytes += row
        }
        return bytes
    }

    /// The SVG `--qr FILE.svg` writes, read as XML: its size, and its dark modules from the path's
    /// runs (`M x y h w v1 h-w z`), checked to lie inside the view box.
    static func svgModules(_ text: String) throws -> [[Bool]] {
        final class Reader: NSObject, XMLParserDelegate {
            var elements: [(String, [String: String])] = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                elements.append((name, attributes))
            }
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(reader.elements.map(\.0) == ["svg", "rect", "path"], "\(reader.elements)")
        let svg = try #require(reader.elements.first?.1)
        #expect(svg["xmlns"] == "http://www.w3.org/2000/svg")
        let box = try #require(svg["viewBox"]).split(separator: " ").compactMap { Int($0) }
        try #require(box.count == 4 && box[0] == 0 && box[1] == 0 && box[2] == box[3], "\(svg)")
        let dimension = box[2]
        #expect(Int(svg["width"] ?? "") == Int(svg["height"] ?? "-") && (Int(svg["width"] ?? "") ?? 0) >= dimension)
        // A QR code is 21 + 4k modules a side, within a quiet zone of 4.
        #expect((dimension - 8 - 21) % 4 == 0 && dimension - 8 >= 21, "\(dimension)")
        let path = try #require(reader.elements.last?.1["d"])
        var dark = [[Bool]](repeating: [Bool](repeating: false, count: dimension), count: dimension)
        let run = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/
        var covered = 0
        for match in path.matches(of: run) {
            let (x, y, width, back) = (Int(match.1) ?? -1, Int(match.2) ?? -1, Int(match.3) ?? -1, Int(match.4) ?? -2)
            try #require(width == back && x >= 4 && y >= 4 && x + width <= dimension - 4 && y < dimension - 4, "\(match.0)")
            for column in x..<(x + width) { dark[y][column] = true }
            covered += match.0.count
        }
        #expect(covered == path.count, "the path is nothing but module runs")
        return dark
    }

    /// The grid of `--qr -`'s terminal text: half blocks, two module rows a line, ink on light
    /// modules (a dark terminal).
    static func terminalModules(_ lines: [Substring]) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in lines {
            var upper: [Bool] = []
            var lower: [Bool] = []
            for character in line {
                let (top, bottom): (Bool, Bool) = switch character {
                case "█": (true, true)
                case "▀": (true, false)
                case "▄": (false, true)
                default: (false, false)
                }
                upper.append(!top)
                lower.append(!bottom)
            }
            rows += [upper, lower]
        }
        let side = rows.first?.count ?? 0
        return Array(rows.prefix(side))
    }

    /// The link held by an image, as `health share open --json` opens it: its label.
    static func openedLabel(_ fixture: Fixture, image: [UInt8], name: String) async throws -> String? {
        let file = fixture.runner.folder.appendingPathComponent(name)
        try Data(image).write(to: file)
        let opened = try await fixture.run(["share", "open", file.path, "--json", "--recipient", name])
        #expect(opened.status == 0, "\(name): \(opened.output)\(opened.error)")
        let report = try JSONSerialization.jsonObject(with: Data(opened.output.utf8)) as? [String: Any]
        return report?["label"] as? String
    }

    // MARK: - Decrypting a link's files here

    /// The files of a link, fetched and decrypted by the test itself (one manifest request).
    static func decryptedFiles(_ link: String, passcode: String? = nil) async throws -> [SHLDecryptedFile] {
        let payload = try SHLink.parse(link)
        let request = SHLManifestRequest(recipient: "test", passcode: passcode).json
        let (status, body) = try await ServeCommandTests.send(.POST, payload.url, body: request)
        try #require(status == 200, "\(status) \(String(decoding: body, as: UTF8.self))")
        let manifest = try SHLManifest(json: body)
        var files: [SHLDecryptedFile] = []
        for file in manifest.files {
            switch file.source {
            case .embedded(let jwe):
                files.append(try SHLFile.decrypt(jwe, key: payload.key))
            case .location(let location):
                let (fileStatus, jwe) = try await ServeCommandTests.send(.GET, location)
                try #require(fileStatus == 200)
                files.append(try SHLFile.decrypt(String(decoding: jwe, as: UTF8.self), key: payload.key))
            }
        }
        return files
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    // MARK: - 4. --viewer, 5. expiry

    @Test("--viewer prints {public-url}/viewer#shlink:/… first; the default exp is 30 days after creation; --expires is the exp exactly")
    func viewerAndExpiry() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let image = fixture.runner.folder.appendingPathComponent("viewer.png").path
        let before = Int64(Date().timeIntervalSince1970)
        let created = try await fixture.run(["share", "create"] + fixture.wallet + ["--summary", "--viewer", "--label", "Viewer", "--qr", image])
        let after = Int64(Date().timeIntervalSince1970)
        #expect(created.status == 0, "\(created.output)\(created.error)")
        let lines = created.output.split(separator: "\n").map(String.init)
        let first = try #require(lines.first)
        let prefix = fixture.server.url + "/viewer#shlink:/"
        #expect(first.hasPrefix(prefix), "\(first)")
        #expect(!first.contains(" "))
        let bare = String(first.dropFirst(prefix.count - "shlink:/".count))
        let payload = try SHLink.parse(bare)
        #expect(try SHLink.parse(first) == payload)
        #expect(payload.url.hasPrefix(fixture.server.url + "/shl/"))
        #expect(lines.dropFirst().allSatisfy { !$0.contains("shlink:/") }, "the link is printed once: \(lines)")
        #expect(lines.contains("ID: \(try Self.id(of: bare))"), "\(lines)")
        // The QR image holds the viewer address: share open reads it and opens the link.
        let opened = try await fixture.run(["share", "open", image, "--json"])
        #expect(opened.status == 0, "\(opened.output)\(opened.error)")
        #expect(try Self.object(Array(opened.output.utf8))["label"] as? String == "Viewer")
        // The viewer page is there.
        let page = try await ServeCommandTests.send(.GET, fixture.server.url + "/viewer")
        #expect(page.0 == 200)

        // 5. The default expiry: 30 days from creation (the link's exp in whole seconds).
        let thirtyDays: Int64 = 30 * 86_400
        let exp = try #require(payload.expiration)
        #expect(exp >= before + thirtyDays - 1 && exp <= after + thirtyDays, "exp \(exp), created between \(before) and \(after)")
        let id = try Self.id(of: bare)
        let entry = try #require(try await Self.list(fixture).first { $0["id"] as? String == id })
        let expires = try #require(entry["expires"] as? String)
        #expect(expires == Date(timeIntervalSince1970: TimeInterval(exp)).formatted(.iso8601), "\(entry)")
        let createdAt = try #require((entry["created"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        let span = Int64(Date(timeIntervalSince1970: TimeInterval(exp)).timeIntervalSince(createdAt))
        #expect(abs(span - thirtyDays) <= after - before + 2, "exp − created = \(span) s")
        #expect(created.output.contains("\nExpires: ") && !created.output.contains("Expires: never"), "\(created.output)")

        // --expires ISO8601: the exp exactly, and the list says the same instant.
        let fixed = try await fixture.run(["share", "create"] + fixture.wallet + ["--summary", "--expires", "2099-01-01T00:00:00Z", "--json"])
        #expect(fixed.status == 0, "\(fixed.output)\(fixed.error)")
        let fixedObject = try Self.object(Array(fixed.output.utf8))
        let fixedLink = try #require(fixedObject["link"] as? String)
        #expect(try SHLink.parse(fixedLink).expiration == 4_070_908_800)
        #expect(fixedObject["expires"] as? String == "2099-01-01T00:00:00Z", "\(fixed.output)")
        let fixedID = try Self.id(of: fixedLink)
        let fixedEntry = try #require(try await Self.list(fixture).first { $0["id"] as? String == fixedID })
        #expect(fixedEntry["expires"] as? String == "2099-01-01T00:00:00Z" && fixedEntry["status"] as? String == "active", "\(fixedEntry)")
        // An offset is read as the instant it names.
        let offset = try await fixture.run(["share", "create"] + fixture.wallet + ["--summary", "--expires", "2099-01-01T02:00:00+02:00"])
        #expect(offset.status == 0, "\(offset.error)")
        #expect(try SHLink.parse(try Self.firstLine(offset.output)).expiration == 4_070_908_800)
    }

    // MARK: - 6. --qr

    @Test("--qr FILE.svg (well-formed module runs), FILE.png and - (terminal text) each read back into the link")
    func qrCodes() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let svgFile = fixture.runner.folder.appendingPathComponent("link.svg").path
        let created = try await fixture.run(["share", "create"] + fixture.wallet + ["--records", "conditionRecord", "--label", "SVG", "--qr", svgFile])
        #expect(created.status == 0, "\(created.output)\(created.error)")
        #expect(created.output.contains("\nQR code: \(svgFile)\n"), "\(created.output)")
        let svg = String(decoding: try Data(contentsOf: URL(fileURLWithPath: svgFile)), as: UTF8.self)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "), "\(svg.prefix(120))")
        let permissions = try FileManager.default.attributesOfItem(atPath: svgFile)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600, "the QR code holds the key")
        let modules = try Self.svgModules(svg)
        #expect(try await Self.openedLabel(fixture, image: Self.bmp(modules), name: "from-svg.bmp") == "SVG")

        let pngFile = fixture.runner.folder.appendingPathComponent("link.png").path
        let png = try await fixture.run(["share", "create"] + fixture.wallet + ["--records", "conditionRecord", "--label", "PNG", "--qr", pngFile])
        #expect(png.status == 0, "\(png.error)")
        let pngBytes = Array(try Data(contentsOf: URL(fileURLWithPath: pngFile)))
        #expect(pngBytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(try await Self.openedLabel(fixture, image: pngBytes, name: "copy.png") == "PNG")

        // - : the link first, then the code as text; no file is written.
        let before = try FileManager.default.contentsOfDirectory(atPath: fixture.runner.folder.path)
        let terminal = try await fixture.run(["share", "create"] + fixture.wallet + ["--records", "conditionRecord", "--label", "Terminal", "--qr", "-"])
        #expect(terminal.status == 0, "\(terminal.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.runner.folder.path).sorted() == before.sorted())
        let lines = terminal.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(try Self.firstLine(terminal.output).hasPrefix("shlink:/"))
        let codeStart = try #require(lines.firstIndex { $0.contains("█") || $0.contains("▀") || $0.contains("▄") }, "\(terminal.output)")
        let codeLines = lines[codeStart...].filter { !$0.isEmpty }
        #expect(codeLines.allSatisfy { $0.allSatisfy { " █▀▄".contains($0) } }, "\(terminal.output)")
        #expect(Set(codeLines.map(\.count)).count == 1)
        #expect(try await Self.openedLabel(fixture, image: Self.bmp(Self.terminalModules(Array(codeLines))), name: "from-terminal.bmp") == "Terminal")
        // With --json, standard output is the JSON alone and the code goes to standard error.
        let json = try await fixture.run(["share", "create"] + fixture.wallet + ["--records", "conditionRecord", "--qr", "-", "--json"])
        #expect(json.status == 0, "\(json.error)")
        #expect(try Self.object(Array(json.output.utf8))["link"] is String)
        #expect(json.error.contains("█"), "\(json.error)")
    }

    // MARK: - 7. --cards, --card, --record, --attempts

    @Test("--cards, --card, --record share exactly what was chosen; --attempts 3 locks the link after 3 wrong passcodes")
    func contentChoicesAndAttempts() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let examples = try #require(SharedVectors.examples)
        let issuer = ["--issuer", "\(SharedVectors.issuer)=\(examples.appendingPathComponent("issuer").path)"]
        // Two cards, stored one after the other (their UUIDs told apart by the order).
        var cardUUIDs: [String] = []
        var cardJWS: [String: String] = [:]
        for name in ["example-00", "example-01"] {
            let imported = try await fixture.run(["records", "import", "--allow-other-person"] + issuer
                                                 + [examples.appendingPathComponent("\(name)-e-file.smart-health-card").path])
            try #require(imported.status == 0, "\(imported.output)\(imported.error)")
            let listed = try await fixture.run(["records", "list", "--type", "verifiable", "--json"])
            let uuids = (try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
            let new = try #require(uuids.first { !cardUUIDs.contains($0) }, "\(listed.output)")
            cardUUIDs.append(new)
            let jws = String(decoding: try Data(contentsOf: examples.appendingPathComponent("\(name)-d-jws.txt")), as: UTF8.self)
            cardJWS[new] = jws.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(Set(cardJWS.values).count == 2)
        func jwsOf(_ file: SHLDecryptedFile) throws -> String? {
            #expect(file.contentType == SHLContentType.smartHealthCard)
            return (try Self.object(file.content)["verifiableCredential"] as? [String])?.first
        }

        // --cards: every stored card, one file each, and share open verifies them.
        let all = try await fixture.run(["share", "create"] + fixture.wallet + ["--cards"])
        #expect(all.status == 0, "\(all.output)\(all.error)")
        let allLink = try Self.firstLine(all.output)
        #expect(Set(try await Self.decryptedFiles(allLink).map(jwsOf)) == Set(cardJWS.values.map(Optional.some)))
        let allOpened = try await fixture.run(["share", "open", allLink, "--json"] + issuer)
        #expect(allOpened.status == 0, "\(allOpened.output)\(allOpened.error)")
        let allFiles = try #require(try Self.object(Array(allOpened.output.utf8))["files"] as? [[String: Any]])
        #expect(allFiles.count == 2 && allFiles.allSatisfy { $0["valid"] as? Bool == true && ($0["cards"] as? [Any])?.count == 1 }, "\(allOpened.output)")

        // --card UUID: that card alone, imported into another store as that card.
        let chosen = cardUUIDs[1]
        let one = try await fixture.run(["share", "create"] + fixture.wallet + ["--card", chosen])
        #expect(one.status == 0, "\(one.output)\(one.error)")
        let oneLink = try Self.firstLine(one.output)
        #expect(try await Self.decryptedFiles(oneLink).map(jwsOf) == [cardJWS[chosen]])
        let oneOpened = try await fixture.run(["share", "open", oneLink, "--import", "--store", fixture.other, "--allow-other-person"] + issuer)
        #expect(oneOpened.status == 0, "\(oneOpened.output)\(oneOpened.error)")
        #expect(oneOpened.output.contains("File 1: application/smart-health-card, 1 card"), "\(oneOpened.output)")
        let otherCards = try await fixture.run(["records", "list", "--type", "verifiable", "--json", "--store", fixture.other])
        #expect((try JSONSerialization.jsonObject(with: Data(otherCards.output.utf8)) as? [Any])?.count == 1, "\(otherCards.output)")

        // --record UUID: a collection Bundle of that record alone.
        let records = try await fixture.run(["records", "list", "--json", "--type", "conditionRecord"])
        let condition = try #require((try JSONSerialization.jsonObject(with: Data(records.output.utf8)) as? [[String: Any]])?.first?["uuid"] as? String,
                                     "\(records.output)")
        let single = try await fixture.run(["share", "create"] + fixture.wallet + ["--record", condition])
        #expect(single.status == 0, "\(single.output)\(single.error)")
        let singleLink = try Self.firstLine(single.output)
        let singleFiles = try await Self.decryptedFiles(singleLink)
        #expect(singleFiles.count == 1 && singleFiles.first?.contentType == SHLContentType.fhirJSON)
        let bundle = try Self.object(try #require(singleFiles.first).content)
        #expect(bundle["resourceType"] as? String == "Bundle" && bundle["type"] as? String == "collection")
        let entries = bundle["entry"] as? [[String: Any]] ?? []
        #expect(entries.count == 1)
        let resource = try #require(entries.first?["resource"] as? [String: Any])
        #expect(resource["resourceType"] as? String == "Condition" && resource["id"] as? String == "c1", "\(resource)")
        #expect((resource["code"] as? [String: Any])?["text"] as? String == "Asthma")
        let singleOpened = try await fixture.run(["share", "open", singleLink])
        #expect(singleOpened.status == 0 && singleOpened.output.contains("File 1: FHIR Bundle (collection) with 1 resource: 1 Condition"),
                "\(singleOpened.output)\(singleOpened.error)")

        // --attempts 3: wrong, wrong (401, 2 then 1 left), the right one still opens (not counted), the third wrong
        // locks it (0 left), then even the right one is 404.
        let guarded = try await fixture.run(["share", "create"] + fixture.wallet + ["--record", condition, "--passcode", "2468", "--attempts", "3"])
        #expect(guarded.status == 0, "\(guarded.output)\(guarded.error)")
        let guardedLink = try Self.firstLine(guarded.output)
        let manifestURL = try SHLink.parse(guardedLink).url
        let guardedID = try Self.id(of: guardedLink)
        func post(_ passcode: String) async throws -> (Int, Int?) {
            let (status, body) = try await ServeCommandTests.send(.POST, manifestURL, body: SHLManifestRequest(recipient: "Dr. Guess", passcode: passcode).json)
            return (status, SHLPasscodeRefusal(json: body)?.remainingAttempts)
        }
        #expect(try await Self.list(fixture).first { $0["id"] as? String == guardedID }?["remainingAttempts"] as? Int == 3)
        let first = try await fixture.run(["share", "open", guardedLink, "--passcode", "0000"])
        #expect(first.status == 1 && first.error.contains("Wrong passcode: 2 attempts remain before the link locks."), "\(first.error)")
        let second = try await post("0001")
        #expect(second.0 == 401 && second.1 == 1, "\(second)")
        let right = try await fixture.run(["share", "open", guardedLink, "--passcode", "2468"])
        #expect(right.status == 0, "\(right.output)\(right.error)")
        #expect(try await Self.list(fixture).first { $0["id"] as? String == guardedID }?["remainingAttempts"] as? Int == 1)
        let third = try await fixture.run(["share", "open", guardedLink, "--passcode", "0002"])
        #expect(third.status == 1 && third.error.contains("Wrong passcode: no attempts remain; the link is now locked."), "\(third.error)")
        let locked = try await post("2468")
        #expect(locked.0 == 404, "\(locked)")
        let lockedOpen = try await fixture.run(["share", "open", guardedLink, "--passcode", "2468"])
        #expect(lockedOpen.status == 1 && lockedOpen.error.contains("no longer active"), "\(lockedOpen.error)")
        let entry = try #require(try await Self.list(fixture).first { $0["id"] as? String == guardedID })
        #expect(entry["remainingAttempts"] as? Int == 0, "\(entry)")
    }
}
