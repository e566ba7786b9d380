import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `health ui --identity FILE --server URL` against a real `health serve` on loopback: the Share
/// page creates a link (HealthSharing's `ShareLinks.create`), shows its QR code and link once, lists
/// it, and revokes it; the link opened with `health share open` counts as an access on the list,
/// and the Sharing page's audit table says who opened it (or was refused) in words.
@Suite("health ui: the Share page with a wallet", .serialized) struct UIShareTests {
    static func post(_ url: String, cookie: String, form: [(String, String)]) async throws -> (status: Int, location: String?, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Cookie", value: cookie)
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await UICommandTests.client.execute(request, timeout: .seconds(60))
        let text = String(buffer: try await response.body.collect(upTo: 8 << 20))
        return (Int(response.status.code), response.headers.first(name: "Location"), text)
    }

    @Test("create a link to the summary with a passcode: its QR code and link are shown once; the list shows who opened it; revoke stops it")
    func createListRevoke() async throws {
        let setup = try await UICommandTests.walletOnAServer()
        defer { setup.stop() }
        let folder = setup.runner.folder.path
        let ui = try await UICommandTests.Running.start(days: 2, arguments: ["--identity", "\(folder)/w.json", "--server", setup.server.url])
        defer { ui.stop() }
        let start = try await UICommandTests.get(ui.startURL)
        let cookie = String(try #require(start.headers.first(name: "Set-Cookie")).split(separator: ";")[0])
        let page = try await UICommandTests.get(ui.origin + "/share", cookie: cookie)
        #expect(page.status == 200)
        #expect(page.body.contains("action=\"/share/create\""), "\(page.body)")
        #expect(page.body.contains("You have not shared a link yet."), "\(page.body)")
        let token = try UIWalletTests.csrf(page.body)

        let nothing = try await Self.post(ui.origin + "/share/create", cookie: cookie, form: [("csrf", token), ("passcode", "1357")])
        #expect(nothing.status == 422 && nothing.body.contains("Choose what to share"), "\(nothing.body)")
        let created = try await Self.post(ui.origin + "/share/create", cookie: cookie,
                                          form: [("csrf", token), ("summary", "yes"), ("passcode", "1357"), ("expiry", "7d"), ("label", "For Dr. Lee")])
        #expect(created.status == 200, "\(created.body)")
        #expect(created.body.contains("<svg class=\"qr\" role=\"img\" aria-label=\"QR code of the link\""))
        let viewerStart = try #require(created.body.range(of: "\(setup.server.url)/viewer#shlink:/"), "\(created.body)")
        let viewerLink = String(created.body[viewerStart.lowerBound...].prefix { $0 != "<" })
        #expect(!created.body.contains("<script"))

        let opened = try await setup.runner.run(["share", "open", viewerLink, "--passcode", "1357", "--recipient", "Dr. Lee"])
        #expect(opened.status == 0, "\(opened.output)\(opened.error)")
        #expect(opened.output.contains("FHIR Bundle (document)"), "\(opened.output)")
        let wrong = try await setup.runner.run(["share", "open", viewerLink, "--passcode", "0000", "--recipient", "Dr. Lee"])
        #expect(wrong.status == 1, "\(wrong.output)\(wrong.error)")
        // The Sharing page's "Who saw my data" says each request in words, as `health wallet audit` does.
        let sharing = try await UICommandTests.get(ui.origin + "/sharing", cookie: cookie)
        #expect(sharing.status == 200)
        #expect(sharing.body.contains("<td colspan=\"3\">Dr. Lee opened the link (shared link "), "\(sharing.body)")
        #expect(sharing.body.contains("<td colspan=\"3\">Dr. Lee was refused: wrong passcode (shared link "), "\(sharing.body)")
        #expect(!sharing.body.contains("shared-link-access"), "\(sharing.body)")

        let listed = try await UICommandTests.get(ui.origin + "/share", cookie: cookie)
        #expect(listed.body.contains("<th scope=\"row\">For Dr. Lee</th>"), "\(listed.body)")
        #expect(listed.body.contains("Dr. Lee opened it"), "\(listed.body)")
        let idMarker = "name=\"id\" value=\""
        let idStart = try #require(listed.body.range(of: idMarker))
        let id = String(listed.body[idStart.upperBound...].prefix { $0 != "\"" })
        let revoked = try await Self.post(ui.origin + "/share/revoke", cookie: cookie, form: [("csrf", token), ("id", id)])
        #expect(revoked.status == 303 && revoked.location?.hasPrefix("/share?changed=") == true, "\(revoked)")
        let after = try await UICommandTests.get(ui.origin + "/share", cookie: cookie)
        #expect(after.body.contains("<td>revoked</td>"), "\(after.body)")
        let refused = try await setup.runner.run(["share", "open", viewerLink, "--passcode", "1357"])
        #expect(refused.status == 1 && refused.error.contains("no longer active"), "\(refused.error)")
    }

    /// A multipart form post (the open form takes a QR image too).
    static func postMultipart(_ url: String, cookie: String, fields: [(String, String)]) async throws -> (status: Int, body: String) {
        let boundary = "----share-\(UUID().uuidString)"
        var body = ""
        for (name, value) in fields {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        body += "--\(boundary)--\r\n"
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Cookie", value: cookie)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await UICommandTests.client.execute(request, timeout: .seconds(60))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 8 << 20)))
    }

    /// The first value of `<input … name="PREFIX…"` names in `html` (the part after the prefix).
    static func names(withPrefix prefix: String, in html: String) -> [String] {
        html.components(separatedBy: "name=\"\(prefix)").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The created link's viewer address in a create answer.
    static func viewerLink(_ body: String, server: String) throws -> String {
        let start = try #require(body.range(of: "\(server)/viewer#shlink:/"), "\(body)")
        return String(body[start.lowerBound...].prefix { $0 != "<" })
    }

    @Test("""
        the form offers what health share create does: a single record and a single card picked from lists, wrong passcodes allowed, long-term (then \
        Update) and direct links; a direct link with a passcode, or attempts without one, is refused in words
        """)
    func everyOption() async throws {
        let setup = try await UICommandTests.walletOnAServer()
        defer { setup.stop() }
        let folder = setup.runner.folder.path
        let ui = try await UICommandTests.Running.start(days: 2, arguments: ["--identity", "\(folder)/w.json", "--server", setup.server.url])
        defer { ui.stop() }
        let start = try await UICommandTests.get(ui.startURL)
        let cookie = String(try #require(start.headers.first(name: "Set-Cookie")).split(separator: ";")[0])
        let page = try await UICommandTests.get(ui.origin + "/share", cookie: cookie)
        let token = try UIWalletTests.csrf(page.body)
        let records = Self.names(withPrefix: "record-", in: page.body)
        let cards = page.body.components(separatedBy: "name=\"card-").dropFirst().map { $0.components(separatedBy: "</label>")[0] }
        let record = try #require(records.first, "\(page.body)")
        // The spec example's card (its issuer given to share open below), not the demo issuer's.
        let card = try #require(cards.first { $0.contains("spec.smarthealth.cards") }.map { String($0.prefix { $0 != "\"" }) }, "\(page.body)")
        #expect(page.body.contains("name=\"attempts\" type=\"number\""))
        #expect(page.body.contains("name=\"kind\" value=\"long-term\"") && page.body.contains("name=\"kind\" value=\"direct\""))

        // One record and one card, a passcode allowing 3 wrong guesses, long-term.
        let created = try await Self.post(ui.origin + "/share/create", cookie: cookie, form: [
            ("csrf", token), ("record-" + record, "yes"), ("card-" + card, "yes"), ("passcode", "2468"), ("attempts", "3"),
            ("kind", "long-term"), ("expiry", "1d"), ("label", "Two picks"),
        ])
        #expect(created.status == 200, "\(created.body)")
        let link = try Self.viewerLink(created.body, server: setup.server.url)
        let wrong = try await setup.runner.run(["share", "open", link, "--passcode", "0000"])
        #expect(wrong.status == 1 && wrong.error.contains("2 attempts remain"), "\(wrong.error)")
        let opened = try await setup.runner.run(["share", "open", link, "--passcode", "2468", "--recipient", "Dr. Lee", "--json"]
                                                + UICommandTests.specIssuerArguments)
        #expect(opened.status == 0, "\(opened.output)\(opened.error)")
        let report = try JSONSerialization.jsonObject(with: Data(opened.output.utf8)) as? [String: Any] ?? [:]
        #expect(report["flags"] as? String == "LP", "\(opened.output)")
        let files = report["files"] as? [[String: Any]] ?? []
        #expect(files.compactMap { $0["contentType"] as? String }.sorted() == ["application/fhir+json", "application/smart-health-card"], "\(opened.output)")
        #expect(files.contains { ($0["resources"] as? [String: Int])?.values.reduce(0, +) == 1 }, "\(opened.output)")
        #expect(files.contains { ($0["cards"] as? [Any])?.count == 1 }, "\(opened.output)")

        // The list says it is long-term and offers Update, which re-encrypts today's content.
        let listed = try await UICommandTests.get(ui.origin + "/share", cookie: cookie)
        #expect(listed.body.contains("<th scope=\"row\">Two picks</th>"), "\(listed.body)")
        #expect(listed.body.contains("<td>long-term</td>"), "\(listed.body)")
        let idStart = try #require(listed.body.range(of: "action=\"/share/update\""), "\(listed.body)")
        let idMarker = try #require(listed.body[idStart.upperBound...].range(of: "name=\"id\" value=\""))
        let id = String(listed.body[idMarker.upperBound...].prefix { $0 != "\"" })
        let updated = try await Self.post(ui.origin + "/share/update", cookie: cookie, form: [("csrf", token), ("id", id)])
        #expect(updated.status == 303 && updated.location?.hasPrefix("/share?changed=") == true, "\(updated)")
        let again = try await setup.runner.run(["share", "open", link, "--passcode", "2468", "--recipient", "Dr. Kim"] + UICommandTests.specIssuerArguments)
        #expect(again.status == 0, "\(again.output)\(again.error)")

        // A direct link to one card: opened without a manifest.
        let direct = try await Self.post(ui.origin + "/share/create", cookie: cookie, form: [("csrf", token), ("card-" + card, "yes"), ("kind", "direct")])
        #expect(direct.status == 200, "\(direct.body)")
        let directLink = try Self.viewerLink(direct.body, server: setup.server.url)
        let directOpened = try await setup.runner.run(["share", "open", directLink, "--json"] + UICommandTests.specIssuerArguments)
        #expect(directOpened.status == 0, "\(directOpened.output)\(directOpened.error)")
        #expect((try JSONSerialization.jsonObject(with: Data(directOpened.output.utf8)) as? [String: Any])?["flags"] as? String == "U")

        let directPasscode = try await Self.post(ui.origin + "/share/create", cookie: cookie,
                                                 form: [("csrf", token), ("card-" + card, "yes"), ("kind", "direct"), ("passcode", "1")])
        #expect(directPasscode.status == 422 && directPasscode.body.contains("A direct link cannot have a passcode"), "\(directPasscode.body)")
        let attemptsAlone = try await Self.post(ui.origin + "/share/create", cookie: cookie, form: [("csrf", token), ("summary", "yes"), ("attempts", "3")])
        #expect(attemptsAlone.status == 422 && attemptsAlone.body.contains("Wrong passcodes allowed needs a passcode"), "\(attemptsAlone.body)")
        let badAttempts = try await Self.post(ui.origin + "/share/create", cookie: cookie,
                                              form: [("csrf", token), ("summary", "yes"), ("passcode", "1"), ("attempts", "0")])
        #expect(badAttempts.status == 422 && badAttempts.body.contains("a whole number from 1 to 1000"), "\(badAttempts.body)")
        let badUUID = try await Self.post(ui.origin + "/share/create", cookie: cookie, form: [("csrf", token), ("record-not-a-uuid", "yes")])
        #expect(badUUID.status == 422 && badUUID.body.contains("Choose what to share"), "\(badUUID.body)")
    }

    @Test("a long-term link handed to the person is previewed and imported with one manifest request: the server's log shows one opening and no 429")
    func importOpensOnce() async throws {
        let setup = try await UICommandTests.walletOnAServer()
        defer { setup.stop() }
        let folder = setup.runner.folder.path
        // The sharer: health ui with the wallet creates a long-term link to the summary.
        let sharer = try await UICommandTests.Running.start(days: 2, arguments: ["--identity", "\(folder)/w.json", "--server", setup.server.url])
        defer { sharer.stop() }
        let sharerStart = try await UICommandTests.get(sharer.startURL)
        let sharerCookie = String(try #require(sharerStart.headers.first(name: "Set-Cookie")).split(separator: ";")[0])
        let sharerToken = try UIWalletTests.csrf(try await UICommandTests.get(sharer.origin + "/share", cookie: sharerCookie).body)
        let created = try await Self.post(sharer.origin + "/share/create", cookie: sharerCookie,
                                          form: [("csrf", sharerToken), ("summary", "yes"), ("kind", "long-term"), ("label", "From Alice")])
        #expect(created.status == 200, "\(created.body)")
        let link = try Self.viewerLink(created.body, server: setup.server.url)

        // The receiver: another health ui previews it, then imports it.
        let ui = try await UICommandTests.Running.start(days: 2)
        defer { ui.stop() }
        let start = try await UICommandTests.get(ui.startURL)
        let cookie = String(try #require(start.headers.first(name: "Set-Cookie")).split(separator: ";")[0])
        let token = try UIWalletTests.csrf(try await UICommandTests.get(ui.origin + "/share", cookie: cookie).body)
        let preview = try await Self.postMultipart(ui.origin + "/share/open", cookie: cookie,
                                                   fields: [("csrf", token), ("link", link), ("recipient", "Bob")])
        #expect(preview.status == 200, "\(preview.body)")
        #expect(preview.body.contains("“From Alice”: 1 file(s)"), "\(preview.body)")
        let opened = try #require(Self.names(withPrefix: "opened\" value=\"", in: preview.body).first, "\(preview.body)")
        let imported = try await Self.post(ui.origin + "/share/import", cookie: cookie, form: [("csrf", token), ("opened", opened)])
        #expect(imported.status == 200 || imported.status == 422, "\(imported.body)")
        #expect(imported.body.contains("Imported the shared records") || imported.body.contains("Some of the shared records were not imported"),
                "\(imported.body)")
        // Before, Import opened the link again: a second manifest request, answered 429 for a long-term link.
        let listed = try await setup.runner.run(["share", "list", "--server", setup.server.url, "--identity", "\(folder)/w.json", "--json"])
        #expect(listed.status == 0, "\(listed.error)")
        let links = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]] ?? []
        let accesses = links.flatMap { $0["accesses"] as? [[String: Any]] ?? [] }.filter { $0["recipient"] as? String == "Bob" }
        #expect(accesses.map { $0["outcome"] as? String ?? "" } == ["opened"], "\(listed.output)")
    }

    @Test("""
        the Share page, a created link and a preview in Chromium at 1280 and 390 px, light and dark: no sideways scroll, no text under 11 px, contrast \
        at least 4.5:1, no script, no console error; screenshots in .build/ui-screenshots
        """,
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func look() async throws {
        let python = try #require(UICommandTests.browser)
        let setup = try await UICommandTests.walletOnAServer()
        defer { setup.stop() }
        let folder = setup.runner.folder.path
        let ui = try await UICommandTests.Running.start(days: 2, arguments: ["--identity", "\(folder)/w.json", "--server", setup.server.url])
        defer { ui.stop() }
        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let errors = ui.runner.folder.appendingPathComponent("share-look.log")
        let output = try await UICommandTests.runBrowserScript(python, [UICommandTests.packageRoot.appendingPathComponent("scripts/share-look.py").path,
                                                                        ui.startURL, shots.path], errors: errors)
        try #require(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        let views = report["views"] as? [String: Any] ?? [:]
        #expect(views.count == 12, "\(views.keys.sorted())")
        for (name, value) in views {
            let view = value as? [String: Any] ?? [:]
            #expect((view["problems"] as? [String])?.isEmpty == true, "\(name): \(view["problems"] ?? "")")
            #expect(view["overflow"] as? Bool == false, "\(name)")
            #expect((view["smallText"] as? [String])?.isEmpty == true, "\(name): \(view["smallText"] ?? "")")
            #expect((view["lowContrast"] as? [String])?.isEmpty == true, "\(name): \(view["lowContrast"] ?? "")")
            #expect(view["scripts"] as? Int == 0, "\(name)")
            if name.hasPrefix("preview") { #expect((view["heading"] as? String)?.contains("1 file(s)") == true, "\(name): \(view)") }
        }
    }
}
