import CommonSupport
import Crypto
import FhirBlocksClient
@testable import FhirBlocksServer
import Foundation
import SmartHealthCards
import SmartHealthLinks
import Testing
import TestSupport

/// The links viewer (`GET {public-url}/viewer`) of a real server on loopback in real headless
/// Chromium (scripts/viewer-verdicts.py, Playwright driving Debian's /usr/bin/chromium): the
/// viewer address a sharer hands out (`{public-url}/viewer#shlink:/…`, as `health share create
/// --summary --viewer` prints it) for a link to a patient summary and three health cards, one
/// signed by the server's issuer key, one whose signature was altered, one whose issuer publishes
/// no keys. The page shows the summary in words and says of each card, in words, whether its
/// signature verified, does not match, or could not be checked.
@Suite("Shared link hosting: the viewer's verdicts in Chromium", .serialized)
struct SharedLinkViewerBrowserTests {
    typealias Hosting = SharedLinkHostingTests

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

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let summary = #"""
        {"resourceType":"Bundle","type":"document","timestamp":"2026-11-01T09:00:00Z","entry":[
        {"fullUrl":"urn:uuid:c1","resource":{"resourceType":"Composition","status":"final","title":"Patient summary",
          "type":{"coding":[{"system":"http://loinc.org","code":"60591-5"}]},"subject":{"reference":"urn:uuid:p1"},
          "date":"2026-11-01","author":[{"display":"Alice"}]}},
        {"fullUrl":"urn:uuid:p1","resource":{"resourceType":"Patient","name":[{"given":["Alice"],"family":"Example"}],
          "birthDate":"1980-04-02","gender":"female"}},
        {"fullUrl":"urn:uuid:a1","resource":{"resourceType":"AllergyIntolerance","code":{"text":"Peanut allergy"},"criticality":"high",
          "reaction":[{"manifestation":[{"text":"Hives"}]}],"patient":{"reference":"urn:uuid:p1"},"recordedDate":"2019-05-01"}}
        ]}
        """#

    static let cardBundle = #"""
        {"resourceType":"Bundle","type":"collection","entry":[
        {"fullUrl":"resource:0","resource":{"resourceType":"Patient","name":[{"family":"Example","given":["Alice"]}],"birthDate":"1980-04-02"}},
        {"fullUrl":"resource:1","resource":{"resourceType":"Immunization","status":"completed",
          "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207","display":"COVID-19 mRNA vaccine"}]},
          "patient":{"reference":"resource:0"},"occurrenceDateTime":"2021-01-01","lotNumber":"0000001"}}
        ]}
        """#

    /// A card (compact JWS, payload not compressed) for `issuer`, signed ES256 by `key`.
    static func card(issuer: String, key: SHCIssuerKey, nbf: Int64) throws -> String {
        let payload = #"{"iss":"\#(issuer)","nbf":\#(nbf),"vc":{"type":["https://smarthealth.cards#health-card"],"#
            + #""credentialSubject":{"fhirVersion":"4.0.1","fhirBundle":\#(cardBundle)}}}"#
        let header = #"{"alg":"ES256","kid":"\#(key.kid)"}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signature = try key.privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return signingInput + "." + Base64URL.encode(Array(signature))
    }

    /// `jws` with one byte of its signature flipped (still 64 bytes: a signature that does not match).
    static func tampered(_ jws: String) throws -> String {
        var parts = jws.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        var signature = try Base64URL.decode(parts[2])
        signature[5] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        return parts.joined(separator: ".")
    }

    /// The viewer address of a summary link shows the summary; of three cards it says one
    /// verified, one whose signature does not match, one whose issuer's keys could not be fetched.
    @Test(.enabled(if: browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func viewerSaysEachCardsVerdict() async throws {
        let python = try #require(Self.browser)
        try await Hosting.with(.sqlite) { setup in
            let base = setup.server.baseURL
            let issuerKey = try #require(setup.world.service.cardIssuerKey)
            let nbf = setup.world.now.secondsSince1970 - 60
            let good = try Self.card(issuer: base, key: issuerKey, nbf: nbf)
            let cards = [good, try Self.tampered(good), try Self.card(issuer: base + "/no-issuer-here", key: issuerKey, nbf: nbf)]
            let cardFile = #"{"verifiableCredential":["# + cards.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(
                files: try Hosting.files([(SHLContentType.fhirJSON, Array(Self.summary.utf8)), (SHLContentType.smartHealthCard, Array(cardFile.utf8))],
                                         key: key), label: "Summary for Dr. Díaz"))
            // The address a sharer hands out: the viewer of the server that hosts the link.
            let link = SHLink.link(try SHLinkPayload(url: record.manifestURL, key: key, label: "Summary for Dr. Díaz"))
            let viewer = base + "/viewer#" + link
            #expect(try SHLink.parse(viewer).url == record.manifestURL)

            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("viewer-verdicts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let errors = folder.appendingPathComponent("viewer-verdicts.log")
            let output = try await Self.run(python, [Self.packageRoot.appendingPathComponent("scripts/viewer-verdicts.py").path, viewer, "Dr. Díaz"],
                                            errors: errors)
            try #require(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
            let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
            #expect(report["status"] as? Int == 200)
            #expect((report["errors"] as? [String])?.isEmpty == true, "\(report["errors"] ?? "")")
            #expect((report["problem"] as? String)?.isEmpty == true, "\(report["problem"] ?? "")")
            let text = report["text"] as? String ?? ""
            // The summary, in words.
            #expect(text.contains("Alice Example") && text.contains("Peanut allergy") && text.contains("Hives"), "\(text)")
            #expect(text.contains("COVID-19 mRNA vaccine"), "\(text)")
            // Each card's verdict, in words, in the file's order.
            #expect(report["verdicts"] as? [String] == ["verified", "invalid", "unknown"], "\(report["verdictTexts"] ?? "")")
            #expect(report["verdictTexts"] as? [String] == [
                "Signature verified: issued by \(base).",
                "Not verified: the signature does not match the issuer's key.",
                "Not checked: the issuer's keys could not be fetched.",
            ], "\(report["verdictTexts"] ?? "")")
            // The keys were asked of the issuers (the server for both), and nothing left the server.
            let requests = report["requests"] as? [String] ?? []
            #expect(requests.contains("GET \(base)/.well-known/jwks.json"), "\(requests)")
            #expect(requests.contains("GET \(base)/no-issuer-here/.well-known/jwks.json"), "\(requests)")
            #expect(requests.allSatisfy { $0.split(separator: " ", maxSplits: 1).last?.hasPrefix(base + "/") == true }, "\(requests)")
            // The sharer sees who opened it.
            #expect(try await setup.wallet.links().first?.accesses.map(\.recipient) == ["Dr. Díaz"])
        }
    }

    /// Runs the browser script off the cooperative pool; its standard output, its errors in `errors`.
    static func run(_ python: URL, _ arguments: [String], errors: URL) async throws -> (status: Int32, out: Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let process = ChildProcess()
                    process.executableURL = python
                    process.arguments = arguments
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
}
