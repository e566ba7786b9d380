import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `health ui --identity FILE --server URL` against a real `health serve` on loopback: the
/// Sharing page lists the wallet's permissions, grants and revokes through signed requests
/// (the app's next read follows), shows who saw the data with whether the audit log verified,
/// and shows a refusal in plain words without changing anything.
@Suite("health ui with a wallet", .serialized) struct UIWalletTests {
    static func post(_ url: String, cookie: String, form: [(String, String)]) async throws -> (status: Int, location: String?) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Cookie", value: cookie)
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await UICommandTests.client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "Location"))
    }

    /// The CSRF token in a page's forms.
    static func csrf(_ page: String) throws -> String {
        let marker = "name=\"csrf\" value=\""
        let start = try #require(page.range(of: marker))
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test("""
        the Sharing page grants and revokes through the wallet (the app's next read follows), lists who saw the data with a verified log, and shows a \
        refusal without changing anything
        """)
    func sharingWithAWallet() async throws {
        let setup = try await UICommandTests.walletOnAServer()
        defer { setup.stop() }
        let (runner, server, url) = (setup.runner, setup.server, setup.server.url)
        let (walletCsi, appCsi) = (setup.csi, setup.grantee)
        let folder = runner.folder.path
        func run(_ arguments: [String]) async throws -> CommandRunner.Result { try await runner.run(arguments) }
        try Data(#"{"resourceType":"Patient","id":"alice","gender":"female"}"#.utf8).write(to: runner.folder.appendingPathComponent("p.json"))
        #expect(try await run(["wallet", "put", "--server", url, "--identity", "\(folder)/w.json", "\(folder)/p.json"]).status == 0)
        let appRead = ["app", "read", "--server", url, "--identity", "\(folder)/a.json", "--scope", "patient/Patient.read", "Patient/alice"]
        #expect(try await run(appRead).status == 1)

        // Both options or neither.
        #expect(try await run(["ui", "--port", "0", "--identity", "\(folder)/w.json"]).status != 0)

        let ui = try await UICommandTests.Running.start(days: 2, arguments: ["--identity", "\(folder)/w.json", "--server", url])
        defer { ui.stop() }
        let start = try await UICommandTests.get(ui.startURL)
        let cookie = String(try #require(start.headers.first(name: "Set-Cookie")).split(separator: ";")[0])
        let sharing = ui.origin + "/sharing"
        let empty = try await UICommandTests.get(sharing, cookie: cookie)
        #expect(empty.status == 200)
        #expect(empty.body.contains("Wallet <code>\(walletCsi)</code>"))
        #expect(empty.body.contains("You have not granted anyone access."))
        let token = try Self.csrf(empty.body)

        // A grant without the CSRF token is refused; a bad grantee is explained; neither changes anything.
        let grantForm = [("grantee", appCsi), ("resource", "Patient"), ("access", "read"), ("confidentiality", "N"),
                         ("from", "2020-01-01"), ("until", "2099-01-01")]
        #expect(try await Self.post(ui.origin + "/sharing/wallet/grant", cookie: cookie, form: grantForm).status == 403)
        let bad = try await Self.post(ui.origin + "/sharing/wallet/grant", cookie: cookie,
                                      form: [("csrf", token), ("grantee", "nobody")] + grantForm.dropFirst())
        #expect(bad.status == 303)
        let explained = try await UICommandTests.get(ui.origin + (bad.location ?? "/sharing"), cookie: cookie)
        #expect(explained.body.contains("The grantee is not a csiGuid"), "\(explained.body)")
        #expect(explained.body.contains("You have not granted anyone access."))
        #expect(try await run(appRead).status == 1)

        // A grantee the server does not know: its refusal is shown in plain words; nothing is granted.
        let refused = try await Self.post(ui.origin + "/sharing/wallet/grant", cookie: cookie,
                                          form: [("csrf", token), ("grantee", "00000000-0000-4000-8000-000000000000")] + grantForm.dropFirst())
        #expect(refused.location?.contains("walletProblem=") == true, "\(refused)")
        let refusal = try await UICommandTests.get(ui.origin + (refused.location ?? "/sharing"), cookie: cookie)
        #expect(refusal.body.contains("server refused (HTTP 4"), "\(refusal.body)")
        #expect(refusal.body.contains("You have not granted anyone access."))

        // The grant through the page: the app reads; the page lists it with its scope and window.
        let granted = try await Self.post(ui.origin + "/sharing/wallet/grant", cookie: cookie, form: [("csrf", token)] + grantForm)
        #expect(granted.status == 303 && granted.location?.contains("walletChanged=Granted") == true, "\(granted)")
        #expect(try await run(appRead).status == 0)
        let listed = try await UICommandTests.get(sharing, cookie: cookie)
        #expect(listed.body.contains("<td><code>\(appCsi)</code></td><td>patient/Patient.rs conf≤N"), "\(listed.body)")
        #expect(listed.body.contains("2020-01-01T00:00:00.000Z"))
        #expect(listed.body.contains("Revoke \(appCsi)"))
        // Who saw my data: the app's read, and the log verified.
        #expect(listed.body.contains("<td><code>\(appCsi)</code></td><td>fhir-access</td><td>Patient/alice</td>"), "\(listed.body)")
        #expect(listed.body.contains("The audit log verified"))
        #expect(!listed.body.contains("<td><code>\(walletCsi)</code></td>"))
        #expect(listed.body.contains("entries of your own wallet&#39;s actions") || listed.body.contains("entries of your own wallet's actions"))

        // health wallet audit reads the same events the same way (AuditEventSummary).
        let audit = try await run(["wallet", "audit", "--server", url, "--identity", "\(folder)/w.json"])
        #expect(audit.status == 0)
        #expect(audit.output.contains(" fhir-access ok \(appCsi) → \(walletCsi), Patient/alice"), "\(audit.output)")

        // Revoking on the page: the app's next read is refused.
        let revoked = try await Self.post(ui.origin + "/sharing/wallet/revoke", cookie: cookie, form: [("csrf", token), ("grantee", appCsi)])
        #expect(revoked.status == 303 && revoked.location?.contains("walletChanged=Revoked") == true, "\(revoked)")
        #expect(try await run(appRead).status == 1)

        // A log rewritten in the server's database: the page says plainly that it did not verify.
        server.process.terminate()
        server.process.waitUntilExit()
        #expect(try FhirBlocksCommandTests.rewriteAuditEntry3(runner.folder.appendingPathComponent("data/fhirblocks.sqlite").path) == 0)
        let restarted = try await ServeCommandTests.Server.start(runner)
        defer { restarted.process.terminate() }
        let second = try await UICommandTests.Running.start(days: 1, arguments: ["--identity", "\(folder)/w.json", "--server", restarted.url])
        defer { second.stop() }
        let secondStart = try await UICommandTests.get(second.startURL)
        let secondCookie = String(try #require(secondStart.headers.first(name: "Set-Cookie")).split(separator: ";")[0])
        let tampered = try await UICommandTests.get(second.origin + "/sharing", cookie: secondCookie)
        #expect(tampered.body.contains("The audit log did NOT verify"), "\(tampered.body)")
        #expect(!tampered.body.contains("The audit log verified"))

        // The server unreachable: a revocation is shown in plain words and changes nothing.
        restarted.process.terminate()
        restarted.process.waitUntilExit()
        let unreachable = try await Self.post(ui.origin + "/sharing/wallet/revoke", cookie: cookie, form: [("csrf", token), ("grantee", appCsi)])
        let shown = try await UICommandTests.get(ui.origin + (unreachable.location ?? "/sharing"), cookie: cookie)
        #expect(shown.body.contains("<p class=\"problem\" role=\"alert\">The wallet&#39;s server could not be reached.</p>")
                || shown.body.contains("The wallet's server could not be reached."), "\(shown.body)")
        #expect(shown.status == 200)
    }
}
