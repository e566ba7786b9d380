import AsyncHTTPClient
import Foundation
import HTTPTestSupport
import NIOCore
import NIOHTTP1
import OpenHealthKit
import Testing
import TestSupport

/// `health ui` as a process over a store `health demo` filled: the session over plain HTTP, and
/// every page in real headless Chromium (scripts/ui-browser.py, Playwright driving Debian's
/// /usr/bin/chromium), with screenshots written to .build/ui-screenshots.
@Suite("health ui", .serialized) struct UICommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A running `health ui` over a 30-day demo store.
    struct Running {
        let process: ChildProcess
        let startURL: String
        let runner: CommandRunner
        var origin: String { String(startURL.prefix { $0 != "?" }.dropLast("/session".count)) }
        var database: URL { runner.folder.appendingPathComponent("demo/health.sqlite") }
        var keyFile: URL { runner.folder.appendingPathComponent("demo/health.key") }

        static func start(days: Int = 30, arguments: [String] = []) async throws -> Running {
            let runner = CommandRunner()
            let demo = runner.folder.appendingPathComponent("demo")
            let made = try await runner.run(["demo", "--days", String(days), "--keep", demo.path])
            guard made.status == 0 else { throw ServeCommandTests.TestFailure("health demo failed: \(made.error)") }
            let storeArguments = ["--store", demo.appendingPathComponent("health.sqlite").path, "--key-file", demo.appendingPathComponent("health.key").path]
            // A spec example card too, verified against the examples' issuer folder, as health ui verifies cards.
            // (John B. Anyperson's: not the demo store's owner, so imported as another person's.)
            let imported = try await runner.run(["records", "import", "--allow-other-person"] + storeArguments + specIssuerArguments
                                                + [specExamples.appendingPathComponent("example-00-e-file.smart-health-card").path])
            guard imported.status == 0 else { throw ServeCommandTests.TestFailure("health records import failed: \(imported.error)") }
            let (process, output, _) = try runner.launch(["ui", "--port", "0"] + storeArguments + specIssuerArguments + arguments)
            let line = await LineReader(output).next() ?? ""
            guard line.hasPrefix("open http://127.0.0.1:"), line.contains("/session?secret=") else {
                process.terminate()
                throw ServeCommandTests.TestFailure("health ui did not start: \(line)")
            }
            return Running(process: process, startURL: String(line.dropFirst("open ".count)), runner: runner)
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: runner.folder)
        }

        /// The week's daily step sums, from the statistics API over the same store (UTC, as the process runs).
        func weekSteps() async throws -> [Double] {
            let store = HKHealthStore(configuration: .init(location: .file(database), key: .keyFile(keyFile), role: .owner))
            try store.open()
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let today = calendar.startOfDay(for: Date())
            let start = today.addingTimeInterval(-6 * 86_400), end = today.addingTimeInterval(86_400)
            let collection = try await HKStatisticsCollectionQueryDescriptor(
                predicate: .quantitySample(type: HKQuantityType(.stepCount), predicate: HKQuery.predicateForSamples(withStart: start, end: end)),
                options: .cumulativeSum, anchorDate: start, intervalComponents: DateComponents(day: 1)).result(for: store)
            return collection.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }
        }
    }

    static var specExamples: URL { packageRoot.appendingPathComponent("Tests/Vectors/vectors/shc/spec-examples") }
    static var specIssuerArguments: [String] {
        ["--issuer", "https://spec.smarthealth.cards/examples/issuer=\(specExamples.appendingPathComponent("issuer").path)"]
    }

    /// A client that does not follow redirects (the start URL answers 303 with the cookie), and
    /// drops idle connections long before `health ui` closes them.
    static var client: HTTPClient { HTTPExchange.clientNotFollowingRedirects }

    static func get(_ url: String, cookie: String? = nil) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }

    @Test("health ui prints a one-time URL on 127.0.0.1; without its session every page answers 401; the secret works once")
    func session() async throws {
        let running = try await Running.start()
        defer { running.stop() }
        for path in ["/", "/browse", "/assets/app.css"] {
            #expect(try await Self.get(running.origin + path).status == 401, "\(path)")
        }
        let start = try await Self.get(running.startURL)
        #expect(start.status == 303)
        let cookie = try #require(start.headers.first(name: "Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let summary = try await Self.get(running.origin + "/summary", cookie: String(cookie.split(separator: ";")[0]))
        #expect(summary.status == 200)
        #expect(summary.body.contains("Steps per day"))
        #expect(try await Self.get(running.startURL).status == 401)
    }

    /// Runs a browser script (Python Playwright) off Swift's cooperative threads: its standard
    /// output (the script's JSON report) is returned, its standard error written to `errors`.
    static func runBrowserScript(_ python: URL, _ arguments: [String], errors: URL,
                                 environment: [String: String] = [:]) async throws -> (status: Int32, out: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let process = ChildProcess()
                    process.executableURL = python
                    process.arguments = arguments
                    if !environment.isEmpty {
                        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                    }
                    let out = Pipe()
                    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
                    process.standardOutput = .pipe(out)
                    process.standardError = .file(try FileHandle(forWritingTo: errors))
                    try process.run()
                    let data = out.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    return (process.terminationStatus, data)
                })
            }
        }
    }

    /// Chromium and Playwright, when scripts/test.sh could install them.
    static let browser: URL? = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
              let venv = ProcessInfo.processInfo.environment["OPENHEALTHKIT_PEERS_VENV"] else { return nil }
        let python = URL(fileURLWithPath: venv).appendingPathComponent("bin/python")
        let probe = ChildProcess()
        probe.executableURL = python
        probe.arguments = ["-c", "import playwright.sync_api"]
        probe.standardOutput = .null
        probe.standardError = .null
        guard (try? probe.run()) != nil else { return nil }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? python : nil
    }()

    /// Every page loads in headless Chromium with no console error, no failed or foreign request; the
    /// bars equal the statistics; a form without CSRF is refused, the real form deletes; screenshots
    /// at desktop and phone widths.
    @Test("every page loads in headless Chromium cleanly; the bars equal the statistics; CSRF refused, the real form deletes; screenshots",
          .enabled(if: browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func chromium() async throws {
        let python = try #require(Self.browser)
        let wallet = try await Self.walletOnAServer()
        defer { wallet.stop() }
        let running = try await Running.start(arguments: ["--identity", wallet.identity, "--server", wallet.server.url])
        defer { running.stop() }
        let expected = try await running.weekSteps()
        let coach = try await running.authorizedApp()
        let shots = Self.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let typePath = "/browse/HKQuantityTypeIdentifierBodyMass"
        let cards = try Self.cardFiles(in: running.runner.folder)
        let arguments = [Self.packageRoot.appendingPathComponent("scripts/ui-browser.py").path, running.startURL, shots.path,
                         expected.map { String(Int($0)) }.joined(separator: ","), typePath, cards.valid.path, cards.forged.path,
                         Self.packageRoot.appendingPathComponent(
                            "Tests/Vectors/fhir/examples/synthea-r4/Reginald_Auer_d46fae79-67eb-4721-a300-238c8eb943eb.json").path]
        let errors = running.runner.folder.appendingPathComponent("ui-browser.log")
        let output = try await Self.runBrowserScript(python, arguments, errors: errors,
                                                      environment: ["UI_REVOKE_APP": coach.bundle, "UI_WALLET_GRANTEE": wallet.grantee])
        #expect(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        func object(_ key: String) -> [String: Any] { report[key] as? [String: Any] ?? [:] }
        for (path, status) in object("withoutSession") { #expect(status as? Int == 401, "\(path)") }
        #expect(report["afterStart"] as? String == running.origin + "/")
        for (path, value) in object("pages") {
            let result = value as? [String: Any] ?? [:]
            #expect(result["status"] as? Int == 200, "\(path)")
            let problems = result["problems"] as? [String] ?? ["no report"]
            #expect(problems.isEmpty, "\(path): \(problems)")
        }
        let recordPages = report["recordPages"] as? Int ?? 0
        #expect(recordPages > 0)
        #expect(object("pages").count == 8 + recordPages)
        #expect((report["foreignRequests"] as? [String])?.isEmpty == true)
        let bars = (report["stepBars"] as? [Double]) ?? []
        #expect(!expected.isEmpty)
        #expect(bars == expected)
        #expect(report["cardQRs"] as? Int == 2) // health demo imports one card, and the test spec example 00
        Self.judgeCardsPage(object("cardsPage"))
        let imported = object("recordsImport")
        #expect((imported["jobURL"] as? String)?.contains("/jobs/") == true)
        #expect((imported["notice"] as? String)?.hasPrefix("Imported ") == true, "\(imported)")
        #expect((imported["problems"] as? [String])?.isEmpty == true, "\(imported)")
        #expect(imported["scripts"] as? Int == 0)
        // The job's page (/jobs/ID, ending on the import's summary) passes the page checks.
        let jobLook = imported["look"] as? [String: Any] ?? [:]
        #expect((jobLook["problems"] as? [String])?.isEmpty == true && (jobLook["smallText"] as? [String])?.isEmpty == true, "\(jobLook)")
        #expect(jobLook["overflow"] as? Bool == false, "\(jobLook)")
        #expect(report["firstTab"] as? String == "Skip to content")
        #expect(report["unlabelled"] as? Int == 0)
        #expect(report["withoutCsrf"] as? Int == 403)
        let afterDelete = object("afterDelete")
        let confirm = object("confirm")
        #expect((confirm["url"] as? String)?.contains("/delete?uuid=") == true, "\(confirm)")
        #expect((confirm["heading"] as? String)?.hasPrefix("Delete ") == true && confirm["rows"] as? Int == 1, "\(confirm)")
        #expect((confirm["question"] as? String)?.contains("will be deleted") == true, "\(confirm)")
        #expect(confirm["button"] as? String == "Delete" && confirm["scripts"] as? Int == 0, "\(confirm)")
        #expect((confirm["cancel"] as? String)?.hasPrefix("/browse/") == true, "\(confirm)")
        #expect(afterDelete["notice"] as? String == "Deleted 1 sample(s). Recently deleted keeps them for 30 days, if you change your mind.")
        #expect(afterDelete["stillListed"] as? Int == 0)
        let afterRestore = object("afterRestore")
        #expect(afterRestore["listed"] as? Int == 1 && afterRestore["left"] as? Int == 0, "\(afterRestore)")
        #expect(afterRestore["notice"] as? String == "Restored 1 sample: it is back in Browse.", "\(afterRestore)")
        #expect(afterRestore["rows"] as? Int == afterRestore["rowsBefore"] as? Int, "\(afterRestore)")
        #expect((afterRestore["problems"] as? [String])?.isEmpty == true, "\(afterRestore)")
        #expect((report["deleteScreenshots"] as? [String])?.count == 4)
        for (page, overflows) in object("deleteOverflow") { #expect(overflows as? Bool == false, "\(page)") }
        // The delete confirmation and Recently deleted at both widths: no console error or foreign request, no text under 11 px.
        #expect(object("deleteLook").count == 4)
        for (page, value) in object("deleteLook") {
            let look = value as? [String: Any] ?? [:]
            #expect((look["problems"] as? [String])?.isEmpty == true && (look["smallText"] as? [String])?.isEmpty == true, "\(page): \(look)")
            #expect(look["scripts"] as? Int == 0, "\(page)")
        }
        #expect(report["overflow-phone"] as? Bool == false)
        #expect(report["overflow-desktop"] as? Bool == false)
        #expect((report["screenshots"] as? [String])?.count == 8)
        try await Self.checkSharingSettingsAndA11y(report["extra"] as? [String: Any] ?? [:], coach: coach)
    }

    /// A spec example card that verifies (01) and a forged one (00 with one signature character changed), as files.
    static func cardFiles(in folder: URL) throws -> (valid: URL, forged: URL) {
        let valid = specExamples.appendingPathComponent("example-01-e-file.smart-health-card")
        var jws = Array(try String(contentsOf: specExamples.appendingPathComponent("example-00-d-jws.txt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines))
        let signatureStart = (jws.lastIndex(of: ".") ?? 0) + 1
        let index = signatureStart + (jws.count - signatureStart) / 2
        jws[index] = jws[index] == "A" ? "B" : "A"
        let forged = folder.appendingPathComponent("forged.smart-health-card")
        try Data("{\"verifiableCredential\":[\"\(String(jws))\"]}".utf8).write(to: forged)
        return (valid, forged)
    }

    /// The Health cards page in Chromium: it loads cleanly with the demo card (whose issuer's keys
    /// the kept demo lists in issuer-keys.json beside the store) and spec example 00, both verifying;
    /// adding example 01 by file shows it; a forged card shows its refusal and stores nothing.
    static func judgeCardsPage(_ result: [String: Any]) {
        #expect(result["status"] as? Int == 200)
        #expect((result["problems"] as? [String])?.isEmpty == true, "\(result["problems"] ?? "")")
        #expect(result["cards"] as? Int == 2)
        #expect(result["verifying"] as? Int == 2)
        let valid = result["afterValid"] as? [String: Any] ?? [:]
        #expect((valid["url"] as? String)?.hasSuffix("/cards?added=1") == true)
        #expect(valid["cards"] as? Int == 3)
        #expect(valid["verifying"] as? Int == 3)
        let forged = result["afterForged"] as? [String: Any] ?? [:]
        #expect(forged["heading"] as? String == "The card was not added")
        #expect((forged["reasons"] as? [String])?.contains { $0.hasPrefix("The signature does not match") } == true, "\(forged)")
        #expect(forged["cards"] as? Int == 3)
    }
}
