import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `health ui --identity FILE --server URL` against a real `health serve` on loopback: the Share
/// page creates a link (HealthSharing's `ShareLinks.create`), shows its QR code and link once, lists
/// it, and revokes it; the link opened with `health share open` counts as an access on the list.
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
}
