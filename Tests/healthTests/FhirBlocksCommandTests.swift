import CommonSupport
import AsyncHTTPClient
import FhirBlocks
import HTTPTestSupport
import NIOCore
import Foundation
import Testing
import TestSupport

/// `health wallet|app|audit` against `health serve`, as a person runs the flow from a terminal
/// (README walk-through): exit codes and output, and a tampered log found by
/// `health audit verify --database`.
@Suite(.serialized) struct FhirBlocksCommandTests {
    /// One store-location parser and one key file for `serve` and `audit`: the data folder names
    /// the store for both, and an audit key other users may write is refused by
    /// `health audit verify` in the words `health serve` refuses it with.
    @Test func auditVerifyReadsTheDataFolderAndRefusesAnOpenKeyAsServeDoes() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let server = try await ServeCommandTests.Server.start(runner)
        server.process.terminate()
        server.process.waitUntilExit()
        let data = runner.folder.appendingPathComponent("data").path
        // The data folder names its fhirblocks.sqlite, as the file does.
        let intact = try await runner.run(["audit", "verify", "--database", data])
        #expect(intact.status == 0 && intact.output.contains("intact"), "\(intact.output)\(intact.error)")

        let key = data + "/audit-key.pem"
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: key)
        let served = try await runner.run(["serve", "--port", "0", "--data-dir", data, "--log-level", "error"])
        let verified = try await runner.run(["audit", "verify", "--database", data + "/fhirblocks.sqlite"])
        #expect(served.status == 2 && served.error.contains("chmod 600 \(key)"), "\(served.error)")
        #expect(verified.status == 2 && verified.error.contains("chmod 600 \(key)"), "\(verified.output)\(verified.error)")
        // The same refusal, in the same words.
        #expect(served.error.split(separator: "\n").first { $0.contains("chmod 600") }
                == verified.error.split(separator: "\n").first { $0.contains("chmod 600") })
        #expect(try await runner.run(["audit", "verify", "--database", "mysql://u@h/db"]).error.contains("mysql:// is not a database"))
    }

    @Test func walletAppAndAuditCommands() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let server = try await ServeCommandTests.Server.start(runner)
        defer { server.process.terminate() }
        let url = server.url
        let folder = runner.folder.path
        func run(_ arguments: [String]) async throws -> CommandRunner.Result { try await runner.run(arguments) }

        let wallet = try await run(["wallet", "register", "--server", url, "--identity", "\(folder)/w.json", "--first-name", "Alice",
                                    "--birth-date", "1970-01-01"])
        #expect(wallet.status == 0, "\(wallet.error)")
        let walletCsi = wallet.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let app = try await run(["app", "register", "--server", url, "--identity", "\(folder)/a.json"])
        let appCsi = app.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(app.status == 0 && walletCsi.count == 36 && appCsi.count == 36)
        let mode = (try FileManager.default.attributesOfItem(atPath: "\(folder)/w.json")[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)

        try Data(#"{"resourceType":"Patient","id":"alice","gender":"female"}"#.utf8).write(to: runner.folder.appendingPathComponent("p.json"))
        #expect(try await run(["wallet", "put", "--server", url, "--identity", "\(folder)/w.json", "\(folder)/p.json"]).status == 0)
        // Before the grant the app can read nothing: a refusal exits 1.
        #expect(try await run(["app", "read", "--server", url, "--identity", "\(folder)/a.json", "--scope", "patient/Patient.read",
                               "Patient/alice"]).status == 1)
        let grant = try await run(["wallet", "grant", "--server", url, "--identity", "\(folder)/w.json", "--to", appCsi, "--resource", "Patient",
                                   "--access", "read", "--confidentiality", "N", "--from", "2020-01-01T00:00:00Z", "--until", "2099-01-01T00:00:00Z"])
        #expect(grant.status == 0, "\(grant.error)")
        let claims = try await run(["app", "claims", "--server", url, "--identity", "\(folder)/a.json", "--wallet", walletCsi])
        #expect(claims.status == 0 && claims.output.contains("Alice"))
        let token = try await run(["app", "token", "--server", url, "--identity", "\(folder)/a.json", "--scope", "patient/Patient.read", "--json"])
        #expect(token.status == 0 && token.output.contains("\"access_token\"") && token.output.contains(walletCsi))
        let read = try await run(["app", "read", "--server", url, "--identity", "\(folder)/a.json", "--scope", "patient/Patient.read", "Patient/alice"])
        #expect(read.status == 0 && read.output.contains("\"female\""))
        // The app passes the wallet's data on, naming the patient; listings show whose data.
        let provider = try await run(["app", "register", "--server", url, "--identity", "\(folder)/p-app.json"])
        let providerCsi = provider.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let passOn = ["app", "grant", "--server", url, "--identity", "\(folder)/a.json", "--to", providerCsi, "--resource", "Patient", "--access", "read",
                      "--confidentiality", "N", "--from", "2020-01-01T00:00:00Z", "--until", "2098-01-01T00:00:00Z"]
        #expect(try await run(passOn).status == 2)   // --patient is required
        let passed = try await run(passOn + ["--patient", walletCsi])
        #expect(passed.status == 0, "\(passed.error)")
        let listed = try await run(["wallet", "permissions", "--server", url, "--identity", "\(folder)/w.json"])
        #expect(listed.status == 0 && listed.output.contains("patient \(walletCsi)"), "\(listed.output)")
        // Usage errors exit 2.
        #expect(try await run(["app", "read", "--server", url, "--identity", "\(folder)/missing.json", "--scope", "x", "Patient/alice"]).status == 2)
        #expect(try await run(["audit", "verify"]).status == 2)

        let verified = try await run(["audit", "verify", "--server", url])
        #expect(verified.status == 0 && verified.output.contains("intact"), "\(verified.output)\(verified.error)")

        // Stop the server (a last checkpoint is signed), then check and tamper with the database.
        server.process.terminate()
        server.process.waitUntilExit()
        let database = runner.folder.appendingPathComponent("data/fhirblocks.sqlite").path
        #expect(try await run(["audit", "verify", "--database", database]).status == 0)
        #expect(try Self.rewriteAuditEntry3(database) == 0)
        let tampered = try await run(["audit", "verify", "--database", database, "--json"])
        #expect(tampered.status == 1 && (tampered.output.contains("\"firstTamperedIndex\" : 3") || tampered.output.contains("\"firstTamperedIndex\": 3")),
                "\(tampered.output)\(tampered.error)")
    }

    /// Rewrites audit entry 3's outcome in a server's SQLite database, as an attacker with the
    /// file would (its stored leaf hash left as it was); returns python3's exit status.
    static func rewriteAuditEntry3(_ database: String) throws -> Int32 {
        let sqlite = ChildProcess()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            row = db.execute("SELECT canonical FROM audit_entry WHERE idx = 3").fetchone()
            db.execute("UPDATE audit_entry SET canonical = ? WHERE idx = 3", (bytes(row[0]).replace(b'"outcome":0', b'"outcome":4'),))
            db.commit()
            """, database]
        try sqlite.run()
        sqlite.waitUntilExit()
        return sqlite.terminationStatus
    }

    /// `health wallet approve|decline` on a SMART app's user code: exit 0 done, 1 refused by the
    /// server (unknown or already decided code), 2 usage errors.
    @Test func walletApprovesAndDeclinesAppsByCode() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let server = try await ServeCommandTests.Server.start(runner)
        defer { server.process.terminate() }
        let url = server.url
        let identity = runner.folder.appendingPathComponent("w.json").path
        func run(_ arguments: [String]) async throws -> CommandRunner.Result { try await runner.run(arguments) }
        #expect(try await run(["wallet", "register", "--server", url, "--identity", identity, "--first-name", "Alice"]).status == 0)

        // An app registers and asks; its page's JSON form gives the code.
        let (status, body) = try await ServeCommandTests.send(.POST, "\(url)/oauth/register", body: Array(#"{"redirect_uris":["http://127.0.0.1:1/cb"]}"#.utf8))
        #expect(status == 201)
        let clientID = try #require(ServeCommandTests.object(body)["client_id"]?.stringValue)
        func userCode(state: String) async throws -> String {
            let query = FormBody(fields: [(name: "response_type", value: "code"), (name: "client_id", value: clientID),
                                          (name: "redirect_uri", value: "http://127.0.0.1:1/cb"),
                                          (name: "scope", value: "patient/Observation.rs offline_access"),
                                          (name: "state", value: state), (name: "aud", value: "\(url)/fhir"),
                                          (name: "code_challenge", value: PKCE.challenge(for: String(repeating: "v", count: 50))),
                                          (name: "code_challenge_method", value: "S256")]).encoded()
            var request = HTTPClientRequest(url: "\(url)/oauth/authorize?\(String(decoding: query, as: UTF8.self))")
            request.headers.add(name: "Accept", value: "application/json")
            let response = try await HTTPExchange.client.execute(request, timeout: .seconds(300))
            let bytes = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            return try #require(ServeCommandTests.object(bytes)["user_code"]?.stringValue)
        }
        let code = try await userCode(state: "a")
        let approved = try await run(["wallet", "approve", code, "--scope", "patient/Observation.rs", "--until", "2099-01-01T00:00:00Z",
                                      "--server", url, "--identity", identity])
        #expect(approved.status == 0, "\(approved.error)")
        #expect(approved.output.contains("approved patient/Observation.rs") && approved.output.contains("until 2099-01-01T00:00:00.000Z"))
        // Decided: refused by the server.
        #expect(try await run(["wallet", "decline", code, "--server", url, "--identity", identity]).status == 1)
        #expect(try await run(["wallet", "approve", "BCDF-GHJK", "--server", url, "--identity", identity]).status == 1)
        let declined = try await run(["wallet", "decline", try await userCode(state: "b"), "--server", url, "--identity", identity])
        #expect(declined.status == 0 && declined.output.contains("declined"))
        // Usage.
        #expect(try await run(["wallet", "approve", "--server", url, "--identity", identity]).status == 2)
        #expect(try await run(["wallet", "approve", code, "--until", "soon", "--server", url, "--identity", identity]).status == 2)
        #expect(try await run(["wallet", "approve", code, "--scope", "a b", "--server", url, "--identity", identity]).status == 2)
    }
}
