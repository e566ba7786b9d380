import Foundation
@testable import health
import OpenHealthKit
import Testing
import TestSupport

/// The messages a person reads when a command fails, word for word, with their exit statuses;
/// the exit-status table of docs/cli.md checked against the binary; where the default store goes.
@Suite("Errors in words, with the documented exit status")
struct ErrorMessagesTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    // MARK: The store

    @Test("A store path that is a folder is an I/O error, in words, without a usage tail")
    func storeIsAFolder() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let folder = runner.folder.appendingPathComponent("health-demo").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for command in [["ui", "--store", folder], ["store", "query", "--type", "stepCount", "--store", folder]] {
            let result = try await runner.run(command)
            #expect(result.status == 2, "\(command): \(result.error)")
            #expect(result.error == "Error: cannot open the store at \(folder): it is a folder, not a store file\n")
            #expect(result.output.isEmpty)
        }
    }

    @Test("A file that is not a store, and a store path under a file, are I/O errors")
    func notAStore() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let text = runner.folder.appendingPathComponent("notes.txt").path
        try "not a store\n".write(toFile: text, atomically: true, encoding: .utf8)
        let notStore = try await runner.run(["store", "query", "--type", "stepCount", "--store", text])
        #expect(notStore.status == 2)
        #expect(notStore.error == "Error: cannot open the store at \(text): it is not an OpenHealthKit store\n")

        let underFile = try await runner.run(["store", "query", "--type", "stepCount", "--store", text + "/health.sqlite"])
        #expect(underFile.status == 2)
        #expect(underFile.error == "Error: cannot create the store at \(text)/health.sqlite: \(text) is a file, not a folder\n")
    }

    @Test("A store whose key file is missing is an I/O error; a wrong passphrase is a refusal")
    func keys() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let right = ["HK_PASS": "first passphrase"]
        #expect(try await runner.run(["store", "add", "--passphrase-env", "HK_PASS", "--type", "stepCount", "--value", "5"], environment: right).status == 0)
        let wrong = try await runner.run(["store", "query", "--passphrase-env", "HK_PASS", "--type", "stepCount"], environment: ["HK_PASS": "other"])
        #expect(wrong.status == 1)
        #expect(wrong.error == "Error: the key does not open the store at \(runner.store)\n")

        let other = runner.folder.appendingPathComponent("other.sqlite").path
        #expect(try await runner.run(["store", "add", "--store", other, "--type", "stepCount", "--value", "5"]).status == 0)
        let keyFile = runner.folder.appendingPathComponent("health.key").path
        try FileManager.default.removeItem(atPath: keyFile)
        let missing = try await runner.run(["store", "query", "--store", other, "--type", "stepCount"])
        #expect(missing.status == 2)
        #expect(missing.error == "Error: cannot open the store at \(other): key file \(keyFile) is missing; the store cannot be opened without it\n")
    }

    // MARK: Files and servers

    @Test("A missing file and an unreachable server are I/O errors, in one line without usage")
    func missingFileAndServer() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let missing = try await runner.run(["fhir", "validate", "/nonexistent/patient.json"])
        #expect(missing.status == 2)
        #expect(missing.error == "Error: cannot read '/nonexistent/patient.json'\n")

        let export = try await runner.run(["import", "apple-health", "/nonexistent/export.zip"])
        #expect(export.status == 2)
        #expect(export.error == "Error: cannot read '/nonexistent/export.zip'\n")

        // Port 1 on loopback: nothing listens there, so the connection is refused.
        let identity = runner.folder.appendingPathComponent("wallet.json").path
        let server = try await runner.run(["wallet", "register", "--server", "http://127.0.0.1:1", "--identity", identity])
        #expect(server.status == 2)
        #expect(server.error == "Error: cannot reach the server at http://127.0.0.1:1: connection refused\n")
    }

    @Test("A port another program listens on is an I/O error, in words")
    func portInUse() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 && listen(descriptor, 1) == 0
            }
        }
        try #require(listening)
        let port = UInt16(bigEndian: address.sin_port)
        let result = try await runner.run(["ui", "--port", "\(port)"])
        #expect(result.status == 2)
        #expect(result.error == "Error: cannot listen on that port: address already in use (choose another with --port)\n")
    }

    @Test("A usage error the parser finds keeps the command's usage; an error of a running command has none")
    func usageTail() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let usage = try await runner.run(["demo", "--days", "0"])
        #expect(usage.status == 2)
        #expect(usage.error.hasPrefix("Error: --days must be between 1 and 366\nUsage: health demo "), "\(usage.error)")
        #expect(usage.error.contains("See 'health demo --help' for more information."))

        let missingValue = try await runner.run(["store", "query", "--type"])
        #expect(missingValue.status == 2)
        #expect(missingValue.error.contains("Usage: health store query "), "\(missingValue.error)")

        let folder = runner.folder.path
        let domain = try await runner.run(["store", "query", "--type", "stepCount", "--store", folder])
        #expect(domain.status == 2)
        #expect(!domain.error.contains("Usage") && !domain.error.contains("--help"))
        #expect(domain.error.split(separator: "\n").count == 1)
        // No Swift type names.
        #expect(!domain.error.contains("HealthStoreError") && !domain.error.contains("SQLite"))
    }

    // MARK: SMART Health Cards

    private func example(_ name: String) throws -> String {
        try #require(SharedVectors.examples).appendingPathComponent(name).path
    }

    private var issuerOption: [String] {
        get throws { ["--issuer", "\(SharedVectors.issuer)=\(try example("issuer"))"] }
    }

    @Test("Card times are ISO dates, not seconds since 1970",
          .enabled(if: SharedVectors.available, SharedVectors.missing))
    func cardTimes() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let early = try await runner.run(["shc", "verify", try example("example-00-d-jws.txt"), "--at", "2023-01-01T00:00:00Z"] + issuerOption)
        #expect(early.status == 0)
        #expect(early.output.contains("\n  warning [claims.nbf.future, rule 34]: the card's issue time (nbf) 2023-06-22T16:19:24Z is in the future; "
            + "it is now 2023-01-01T00:00:00Z\n"), "\(early.output)")
        #expect(!early.output.contains("1687450764"))

        let certificate = try await runner.run(["shc", "verify", try example("example-01-d-jws.txt")] + issuerOption)
        #expect(certificate.status == 0)
        #expect(certificate.output.contains("\n  warning [key.x5c.validity, rule 10]: "
            + "the x5c leaf certificate of key EBKOr72QQDcTBUuVzAzkfBTGew0ZA16GuWty64nS-sw "
            + "is valid from 2021-06-01T15:50:09Z to 2022-06-01T15:50:09Z, not now; without a configured PKI trust framework this is a warning\n"),
                "\(certificate.output)")

        let revoked = try await runner.run(["shc", "verify", try example("example-03-d-jws.txt")] + issuerOption)
        #expect(revoked.status == 1)
        #expect(revoked.output.contains("\n  error [revocation.revoked, rule 42]: the card's rid is revoked for cards issued before 2023-06-22T16:19:25Z, "
            + "and this card was issued (nbf) at 2023-06-22T16:19:24Z\n"), "\(revoked.output)")
    }

    @Test("A card whose issuer's keys cannot be fetched says to give them with --issuer")
    func offlineSuggestsIssuer() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let issuerDir = runner.folder.appendingPathComponent("issuer").path
        #expect(try await runner.run(["shc", "keygen", "--out", issuerDir]).status == 0)
        let bundle = try #require(SharedVectors.root).appendingPathComponent("fhir/examples/smart-health-cards/covid-vaccines-bundle.json").path
        let card = runner.folder.appendingPathComponent("card.txt").path
        #expect(try await runner.run(["shc", "issue", bundle, "--key", issuerDir + "/issuer.private.jwk",
                                      "--iss", "https://issuer.invalid", "--out", card]).status == 0)
        let result = try await runner.run(["shc", "verify", card], environment: ["XDG_CACHE_HOME": runner.folder.path])
        #expect(result.status == 1)
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("key.resolver-failed") })
        #expect(line.hasPrefix("  error [key.resolver-failed, rule 33]: the keys of https://issuer.invalid could not be obtained: "), "\(line)")
        #expect(line.hasSuffix("; to verify offline, give the issuer's keys with --issuer https://issuer.invalid=DIR "
            + "(a folder holding .well-known/jwks.json)"), "\(line)")
    }

    @Test("A finding repeated for many entries is printed once, with the count and the first entries")
    func repeatedFindings() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // A card of six immunizations, none "completed".
        let source = try #require(SharedVectors.root).appendingPathComponent("fhir/examples/smart-health-cards/covid-vaccines-bundle.json")
        var bundle = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: source)) as? [String: Any])
        let entries = try #require(bundle["entry"] as? [[String: Any]])
        let patient = try #require(entries.first { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Patient" })
        let immunization = try #require(entries.first { ($0["resource"] as? [String: Any])?["resourceType"] as? String == "Immunization" })
        bundle["entry"] = [patient] + (1...6).map { number -> [String: Any] in
            var entry = immunization
            var resource = entry["resource"] as? [String: Any] ?? [:]
            resource["status"] = "not-done"
            entry["resource"] = resource
            entry["fullUrl"] = "resource:\(number)"
            return entry
        }
        let bundleFile = runner.folder.appendingPathComponent("bundle.json")
        try JSONSerialization.data(withJSONObject: bundle).write(to: bundleFile)
        let issuerDir = runner.folder.appendingPathComponent("issuer").path
        #expect(try await runner.run(["shc", "keygen", "--out", issuerDir]).status == 0)
        let card = runner.folder.appendingPathComponent("card.txt").path
        #expect(try await runner.run(["shc", "issue", bundleFile.path, "--key", issuerDir + "/issuer.private.jwk",
                                      "--iss", "https://issuer.example.org", "--out", card]).status == 0)
        let verified = try await runner.run(["shc", "verify", card, "--issuer", "https://issuer.example.org=\(issuerDir)"])
        #expect(verified.status == 1)
        let findings = verified.output.split(separator: "\n").filter { $0.contains("bundle.immunization.status") }
        #expect(findings == ["  error [bundle.immunization.status, rule 30]: Immunization.status is not \"completed\" "
            + "in 6 entries: entry[1], entry[2], entry[3] and 3 more"], "\(verified.output)")

        // FHIR validation: five observations without a status.
        let observations = runner.folder.appendingPathComponent("observations.json")
        let observation = #"{"resource":{"resourceType":"Observation","code":{"text":"x"}}}"#
        try #"{"resourceType":"Bundle","type":"collection","entry":["#.appending(Array(repeating: observation, count: 5).joined(separator: ","))
            .appending("]}").write(to: observations, atomically: true, encoding: .utf8)
        let validated = try await runner.run(["fhir", "validate", observations.path])
        #expect(validated.status == 1)
        #expect(validated.output == "\(observations.path): Bundle INVALID (5 errors, 0 warnings)\n"
            + "  error: Bundle.entry.resource.status: required element is missing (minimum 1) in 5 entries: entry[0], entry[1], entry[2] and 2 more\n")
    }

    // MARK: The exit-status table

    /// docs/cli.md's exit-status list: `- **N**: what it means…`, continued on indented lines.
    static func documentedStatuses() throws -> [Int32: String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        var statuses: [Int32: String] = [:]
        var current: Int32?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("- **"), let end = line.dropFirst(4).firstIndex(of: "*"),
               let status = Int32(line[line.index(line.startIndex, offsetBy: 4)..<end]) {
                current = status
                statuses[status] = String(line[line.index(end, offsetBy: 3)...]).trimmingCharacters(in: .whitespaces)
            } else if let status = current, line.hasPrefix("  ") {
                statuses[status, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                current = nil
                if !statuses.isEmpty { break }
            }
        }
        return statuses
    }

    @Test("docs/cli.md's exit statuses are the binary's: one real case for each case the table names",
          .enabled(if: SharedVectors.available, SharedVectors.missing))
    func exitStatusTable() async throws {
        let table = try Self.documentedStatuses()
        #expect(Set(table.keys) == [0, 1, 2], "\(table)")
        let runner = CommandRunner()
        defer { runner.remove() }
        let folder = runner.folder.appendingPathComponent("a-folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try await runner.run(["store", "add", "--passphrase-env", "HK_PASS", "--type", "stepCount", "--value", "5"],
                                     environment: ["HK_PASS": "right"]).status == 0)
        // Each case: the words the table uses for it, and a command line that is that case.
        let cases: [(status: Int32, words: String, command: [String], environment: [String: String])] = [
            (0, "the input is valid (a card", try ["shc", "verify", example("example-00-d-jws.txt")] + issuerOption, [:]),
            (1, "a card printed as INVALID", try ["shc", "verify", example("example-03-d-jws.txt")] + issuerOption, [:]),
            (1, "a wrong store key", ["store", "query", "--passphrase-env", "HK_PASS", "--type", "stepCount"], ["HK_PASS": "wrong"]),
            (2, "a missing or unknown option", ["store", "query", "--no-such-option"], [:]),
            (2, "a file that cannot be read", ["fhir", "validate", "/nonexistent/patient.json"], [:]),
            (2, "a store path that is a folder", ["store", "query", "--type", "stepCount", "--store", folder], [:]),
            (2, "server that cannot be reached", ["wallet", "register", "--server", "http://127.0.0.1:1",
                                                  "--identity", runner.folder.appendingPathComponent("id.json").path], [:]),
        ]
        for item in cases {
            let meaning = try #require(table[item.status])
            #expect(meaning.contains(item.words), "docs/cli.md no longer says '\(item.words)' for \(item.status): \(meaning)")
            let result = try await runner.run(item.command, environment: item.environment)
            #expect(result.status == item.status, "\(item.command): \(result.error)")
        }
    }

    // MARK: HOME and XDG_DATA_HOME

    @Test("The default store is created under $HOME, or $XDG_DATA_HOME when it is absolute")
    func defaultStoreFollowsTheEnvironment() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let home = runner.folder.appendingPathComponent("home").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let store = "openhealthkit/health.sqlite"
        // No OPENHEALTHKIT_STORE (empty is unset); XDG_DATA_HOME unset, then relative (ignored, per
        // the XDG specification), then absolute.
        for xdg in ["", "relative/data"] {
            let added = try await runner.run(["store", "add", "--type", "stepCount", "--value", "5"],
                                             environment: ["HOME": home, "OPENHEALTHKIT_STORE": "", "XDG_DATA_HOME": xdg])
            #expect(added.status == 0, "\(added.error)")
        }
        #expect(FileManager.default.fileExists(atPath: "\(home)/.local/share/\(store)"))
        let query = try await runner.run(["store", "query", "--type", "stepCount", "--json"],
                                         environment: ["HOME": home, "OPENHEALTHKIT_STORE": "", "XDG_DATA_HOME": ""])
        #expect((try JSONSerialization.jsonObject(with: Data(query.output.utf8)) as? [Any])?.count == 2, "\(query.output)")

        let data = runner.folder.appendingPathComponent("data").path
        let added = try await runner.run(["store", "add", "--type", "stepCount", "--value", "5"],
                                         environment: ["HOME": home, "OPENHEALTHKIT_STORE": "", "XDG_DATA_HOME": data])
        #expect(added.status == 0, "\(added.error)")
        #expect(FileManager.default.fileExists(atPath: "\(data)/\(store)"))
    }
}

@Suite("Errors of a running command, in words")
struct ErrorReportTests {
    @Test("Store, HealthKit and file errors: sentences without type names or SQLite codes, with their status")
    func sentences() {
        let io = ErrorReport(HealthStoreError(.io, "database error on /x (SQLite: 10 (disk I/O error))"))
        #expect(io.message == "the store could not be read or written: database error on /x (disk I/O error)")
        #expect(io.status == .usageOrIO)
        let bare = ErrorReport(HealthStoreError(.io, "cannot open /x (SQLite: 14)"))
        #expect(bare.message == "the store could not be read or written: cannot open /x")
        let tampered = ErrorReport(HealthStoreError(.tamperedRecord, "a sealed record failed authentication"))
        #expect(tampered.message == "the store was altered outside OpenHealthKit: a sealed record failed authentication")
        #expect(tampered.status == .refused)
        #expect(ErrorReport(HealthStoreError(.wrongKey, "the key does not open /x")).status == .refused)
        #expect(ErrorReport(HealthStoreError(.keyUnavailable, "key file /k is missing")).status == .usageOrIO)

        let refused = ErrorReport(HKError(.errorInvalidArgument, "an object with the same UUID is already saved"))
        #expect(refused.message == "the store refused it: an object with the same UUID is already saved")
        #expect(refused.status == .refused)
        let denied = ErrorReport(HKError(.errorAuthorizationDenied, "only the store's owner can list shares"))
        #expect(denied.message == "not allowed: only the store's owner can list shares" && denied.status == .refused)

        let missing = ErrorReport(CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: "/nonexistent/a.csv"]))
        #expect(missing.message == "cannot read /nonexistent/a.csv: no such file or directory")
        #expect(missing.status == .usageOrIO)
        #expect(ErrorReport(POSIXError(.EACCES)).message == "permission denied")
    }
}
