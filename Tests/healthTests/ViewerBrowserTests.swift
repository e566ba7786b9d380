import AsyncHTTPClient
import Crypto
import FHIRCore
import FhirBlocksClient
import Foundation
import HTTPTestSupport
import SmartHealthLinks
import Testing
import TestSupport

/// The SMART Health Links viewer of `health serve` (`GET /viewer`) in real headless Chromium
/// (scripts/viewer-browser.py, Playwright driving Debian's /usr/bin/chromium): a link the wallet
/// created on the server to a patient summary with an allergy and a health card signed with the
/// server's own issuer key, opened at 1280 and 390 px; screenshots in .build/ui-screenshots.
@Suite("health serve: the links viewer in Chromium", .serialized)
struct ViewerBrowserTests {
    static let summary = #"""
        {"resourceType":"Bundle","type":"document","timestamp":"2026-11-01T09:00:00Z","entry":[
        {"fullUrl":"urn:uuid:c1","resource":{"resourceType":"Composition","status":"final","title":"Patient summary",
          "type":{"coding":[{"system":"http://loinc.org","code":"60591-5"}]},"subject":{"reference":"urn:uuid:p1"},
          "date":"2026-11-01","author":[{"display":"Alice"}]}},
        {"fullUrl":"urn:uuid:p1","resource":{"resourceType":"Patient","name":[{"given":["Alice"],"family":"Example"}],
          "birthDate":"1980-04-02","gender":"female"}},
        {"fullUrl":"urn:uuid:a1","resource":{"resourceType":"AllergyIntolerance","code":{"text":"Peanut allergy"},"criticality":"high",
          "reaction":[{"manifestation":[{"text":"Hives"}]}],"patient":{"reference":"urn:uuid:p1"},"recordedDate":"2019-05-01"}},
        {"fullUrl":"urn:uuid:o1","resource":{"resourceType":"Observation","status":"final","code":{"text":"Hemoglobin A1c"},
          "valueQuantity":{"value":5.4,"unit":"%"},"effectiveDateTime":"2026-10-12","subject":{"reference":"urn:uuid:p1"}}}
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

    @Test("""
        a created link opens in the viewer at 1280 and 390 px: the allergy is shown, the card verified, a wrong passcode said \
        with the attempts left; no console error, no request but to the server, no inline script, no sideways scroll
        """,
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func viewer() async throws {
        let python = try #require(UICommandTests.browser)
        let runner = CommandRunner()
        defer { runner.remove() }
        let server = try await ServeCommandTests.Server.start(runner)
        defer {
            server.process.terminate()
            server.process.waitUntilExit()
        }
        let identityPath = runner.folder.appendingPathComponent("w.json").path
        let registered = try await runner.run(["wallet", "register", "--server", server.url, "--identity", identityPath, "--first-name", "Alice"])
        try #require(registered.status == 0, "\(registered.error)")

        let cardFile = try await Self.cardFile(issuer: server.url, keyFile: runner.folder.appendingPathComponent("data/card-issuer-key.json"))
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let files = [
            SharedLinkFile(contentType: SHLContentType.fhirJSON,
                           jwe: try SHLFile.encrypt(Array(Self.summary.utf8), contentType: SHLContentType.fhirJSON, key: key, compress: true)),
            SharedLinkFile(contentType: SHLContentType.smartHealthCard,
                           jwe: try SHLFile.encrypt(Array(cardFile.utf8), contentType: SHLContentType.smartHealthCard, key: key)),
        ]
        let client = try FhirBlocksClient(baseURL: server.url, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
        let record: SharedLinkRecord
        do {
            record = try await WalletClient(client: client, identity: try CsiIdentity.load(from: identityPath))
                .createLink(SharedLinkRequest(files: files, passcode: "4711", label: "For Dr. Díaz"))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        let link = SHLink.link(try SHLinkPayload(url: record.manifestURL, key: key, flags: [.passcode], label: "For Dr. Díaz"))

        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let errors = runner.folder.appendingPathComponent("viewer-browser.log")
        let arguments = [UICommandTests.packageRoot.appendingPathComponent("scripts/viewer-browser.py").path,
                         server.url + "/viewer#" + link, shots.path, "4711", "Dr. Díaz"]
        let output = try await UICommandTests.runBrowserScript(python, arguments, errors: errors)
        try #require(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        let widths = report["widths"] as? [String: Any] ?? [:]
        #expect(widths.count == 2)
        for (label, value) in widths {
            let result = value as? [String: Any] ?? [:]
            #expect(result["status"] as? Int == 200, "\(label)")
            #expect((result["csp"] as? String)?.contains("script-src 'self'") == true, "\(label)")
            #expect(result["label"] as? String == "“For Dr. Díaz”", "\(label)")
            #expect(result["passcodeAsked"] as? Bool == true, "\(label)")
            let text = result["text"] as? String ?? ""
            #expect(text.contains("Peanut allergy") && text.contains("Hives"), "\(label): \(text)")
            #expect(text.contains("Alice Example") && text.contains("born 2 April 1980"), "\(label): \(text)")
            #expect(text.contains("Hemoglobin A1c") && text.contains("5.4 %") && text.contains("12 October 2026"), "\(label): \(text)")
            #expect(text.contains("COVID-19 mRNA vaccine") && text.contains("given 1 January 2021"), "\(label): \(text)")
            #expect(result["verdicts"] as? [String] == ["verified"], "\(label): \(result["verdictTexts"] ?? "")")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(label): \(result["problems"] ?? "")")
            #expect((result["foreign"] as? [String])?.isEmpty == true, "\(label): \(result["foreign"] ?? "")")
            #expect(result["inlineScripts"] as? Int == 0, "\(label)")
            #expect(result["overflow"] as? Bool == false, "\(label)")
            // The page, its script and stylesheet, the manifest, the files, the issuer's keys: all on the server.
            let requests = result["requests"] as? [String] ?? []
            #expect(requests.contains { $0.hasPrefix("POST \(record.manifestURL)") }, "\(label): \(requests)")
            #expect(requests.contains("GET \(server.url)/.well-known/jwks.json"), "\(label): \(requests)")
        }
        let desktop = widths["desktop"] as? [String: Any] ?? [:]
        #expect(desktop["wrongPasscode"] as? String == "Wrong passcode: 9 attempts remain before the link locks.", "\(desktop["wrongPasscode"] ?? "")")
        #expect(desktop["askedAgain"] as? Bool == true)
        // The person sees who opened the link.
        let listed = try await Self.accesses(server: server.url, identityPath: identityPath)
        #expect(listed.filter { $0 == "Dr. Díaz opened" }.count == 2, "\(listed)")
    }

    /// The records of the store `health share create --summary` summarizes: an allergy, a
    /// medication, a problem and a lab result of the person the card names.
    static let storeBundle = """
        {"resourceType":"Bundle","type":"collection","entry":[
        {"resource":{"resourceType":"Patient","id":"p1","name":[{"family":"Example","given":["Alice"]}],"birthDate":"1980-04-02"}},
        {"resource":{"resourceType":"AllergyIntolerance","id":"al1","patient":{"reference":"Patient/p1"},\
        "code":{"coding":[{"system":"http://snomed.info/sct","code":"91936005","display":"Allergy to penicillin"}]},\
        "reaction":[{"manifestation":[{"text":"Rash"}]}],"recordedDate":"2019-05-01"}},
        {"resource":{"resourceType":"MedicationStatement","id":"m1","status":"active","subject":{"reference":"Patient/p1"},\
        "medicationCodeableConcept":{"text":"Metformin 500 mg tablet"},"dosage":[{"text":"one tablet twice a day"}],\
        "effectiveDateTime":"2023-06-01"}},
        {"resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/p1"},"code":{"text":"Type 2 diabetes"},\
        "recordedDate":"2015-04-01"}},
        {"resource":{"resourceType":"Observation","id":"a1c","status":"final","category":[{"coding":[{"system":\
        "http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"text":"Hemoglobin A1c"},\
        "subject":{"reference":"Patient/p1"},"effectiveDateTime":"2024-03-03T08:00:00Z","valueQuantity":{"value":6.3,"unit":"%"}}}
        ]}
        """

    @Test("""
        a link made by health share create --summary --cards --passcode --viewer opens at its printed viewer URL at 1280 and 390 \
        px: the passcode is asked and accepted; the store's allergy, medication, problem and lab value are shown, the card \
        verified; no console error, no request but to the server, no sideways scroll
        """,
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func createdLinkViewer() async throws {
        let python = try #require(UICommandTests.browser)
        let runner = CommandRunner()
        defer { runner.remove() }
        // Over TLS on loopback: a card's `iss` must be https for `health records import` to keep it.
        let certificates = try LoopbackCertificates.make(in: runner.folder)
        let server = try await ServeCommandTests.Server.start(runner, arguments: ["--tls-cert", certificates.certificateFile,
                                                                                  "--tls-key", certificates.keyFile])
        defer {
            server.process.terminate()
            server.process.waitUntilExit()
        }
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let trust = ["SSL_CERT_FILE": certificates.authorityFile]
        let identityPath = runner.folder.appendingPathComponent("w.json").path
        let registered = try await runner.run(["wallet", "register", "--server", server.url, "--identity", identityPath,
                                               "--first-name", "Alice", "--last-name", "Example", "--birth-date", "1980-04-02"],
                                              environment: trust)
        try #require(registered.status == 0, "\(registered.error)")

        // The store: the records, and a card signed with the server's issuer key, imported after
        // `health records import` verified it with the key set the server serves.
        let bundleFile = runner.folder.appendingPathComponent("bundle.json")
        try Data(Self.storeBundle.utf8).write(to: bundleFile)
        let imported = try await runner.run(["records", "import", bundleFile.path])
        try #require(imported.status == 0, "\(imported.output)\(imported.error)")
        let httpClient = HTTPExchange.makeClient(trusting: [certificates.authority])
        let jwks: [UInt8]
        do {
            let response = try await httpClient.execute(HTTPClientRequest(url: server.url + "/.well-known/jwks.json"), timeout: .seconds(300))
            jwks = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            try await httpClient.shutdown()
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        let issuerFolder = runner.folder.appendingPathComponent("issuer")
        try FileManager.default.createDirectory(at: issuerFolder.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        try Data(jwks).write(to: issuerFolder.appendingPathComponent(".well-known/jwks.json"))
        let card = try Self.cardFile(issuer: server.url, keyFile: runner.folder.appendingPathComponent("data/card-issuer-key.json"), keySet: jwks)
        let cardPath = runner.folder.appendingPathComponent("card.smart-health-card")
        try Data(card.utf8).write(to: cardPath)
        let cardImported = try await runner.run(["records", "import", cardPath.path, "--issuer", "\(server.url)=\(issuerFolder.path)"])
        try #require(cardImported.status == 0, "\(cardImported.output)\(cardImported.error)")

        let created = try await runner.run(["share", "create", "--server", server.url, "--identity", identityPath,
                                            "--summary", "--cards", "--passcode", "4711", "--viewer", "--label", "For Dr. Díaz"],
                                           environment: trust)
        try #require(created.status == 0, "\(created.output)\(created.error)")
        let viewerURL = try #require(created.output.split(separator: "\n").first.map(String.init), "\(created.output)")
        #expect(viewerURL.hasPrefix(server.url + "/viewer#shlink:/"), "\(viewerURL)")

        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots/created")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let errors = runner.folder.appendingPathComponent("viewer-browser.log")
        let arguments = [UICommandTests.packageRoot.appendingPathComponent("scripts/viewer-browser.py").path, viewerURL, shots.path, "4711", "Dr. Díaz"]
        // Chromium takes the test authority's certificate for this run alone (Playwright's ignore_https_errors).
        let output = try await UICommandTests.runBrowserScript(python, arguments, errors: errors, environment: ["VIEWER_BROWSER_TEST_TLS": "1"])
        try #require(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])
        let widths = report["widths"] as? [String: Any] ?? [:]
        #expect(widths.count == 2)
        for (label, value) in widths {
            let result = value as? [String: Any] ?? [:]
            #expect(result["status"] as? Int == 200, "\(label)")
            #expect(result["label"] as? String == "“For Dr. Díaz”", "\(label)")
            #expect(result["passcodeAsked"] as? Bool == true, "\(label)")
            let text = result["text"] as? String ?? ""
            #expect(text.contains("Allergy to penicillin") && text.contains("Rash"), "\(label): \(text)")
            #expect(text.contains("Metformin 500 mg tablet") && text.contains("one tablet twice a day"), "\(label): \(text)")
            #expect(text.contains("Type 2 diabetes"), "\(label): \(text)")
            #expect(text.contains("Hemoglobin A1c") && text.contains("6.3 %"), "\(label): \(text)")
            #expect(text.contains("COVID-19 mRNA vaccine"), "\(label): \(text)")
            let verdicts = result["verdicts"] as? [String] ?? []
            #expect(!verdicts.isEmpty && verdicts.allSatisfy { $0 == "verified" }, "\(label): \(result["verdictTexts"] ?? "")")
            #expect((result["problems"] as? [String])?.isEmpty == true, "\(label): \(result["problems"] ?? "")")
            #expect((result["foreign"] as? [String])?.isEmpty == true, "\(label): \(result["foreign"] ?? "")")
            #expect(result["inlineScripts"] as? Int == 0, "\(label)")
            #expect(result["overflow"] as? Bool == false, "\(label)")
        }
        let desktop = widths["desktop"] as? [String: Any] ?? [:]
        #expect(desktop["wrongPasscode"] as? String == "Wrong passcode: 9 attempts remain before the link locks.", "\(desktop["wrongPasscode"] ?? "")")
        let listed = try await runner.run(["share", "list", "--server", server.url, "--identity", identityPath, "--json"], environment: trust)
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.components(separatedBy: "Dr. Díaz").count - 1 >= 2, "\(listed.output)")
    }

    @Test("""
        the viewer of one server opens links of another on plain-HTTP loopback (requests to those two only); malformed links (a \
        table and a seeded fuzz) end in a message, never a script error or a request; an expired link is said without a request; \
        a revoked link's 404 is said; a long-term link is polled after Retry-After, a too-early second open is told to wait \
        (429), and the updated content is shown
        """,
          .enabled(if: UICommandTests.browser != nil, "needs Debian's chromium and Playwright in OPENHEALTHKIT_PEERS_VENV (scripts/test.sh installs both)"))
    func viewerCases() async throws {
        let python = try #require(UICommandTests.browser)
        let viewerRunner = CommandRunner(), linkRunner = CommandRunner()
        defer {
            viewerRunner.remove()
            linkRunner.remove()
        }
        let viewerServer = try await ServeCommandTests.Server.start(viewerRunner)
        defer {
            viewerServer.process.terminate()
            viewerServer.process.waitUntilExit()
        }
        let linkServer = try await ServeCommandTests.Server.start(linkRunner)
        defer {
            linkServer.process.terminate()
            linkServer.process.waitUntilExit()
        }
        let identityPath = linkRunner.folder.appendingPathComponent("w.json").path
        let registered = try await linkRunner.run(["wallet", "register", "--server", linkServer.url, "--identity", identityPath, "--first-name", "Alice"])
        try #require(registered.status == 0, "\(registered.error)")

        var generator = SystemRandomNumberGenerator()
        func newKey() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        func summaryFile(_ text: String, key: [UInt8]) throws -> [SharedLinkFile] {
            [SharedLinkFile(contentType: SHLContentType.fhirJSON,
                            jwe: try SHLFile.encrypt(Array(text.utf8), contentType: SHLContentType.fhirJSON, key: key, compress: true))]
        }
        let updatedSummary = Self.summary.replacingOccurrences(of: "Peanut allergy", with: "Shellfish allergy")
        let client = try FhirBlocksClient(baseURL: linkServer.url)
        let wallet = WalletClient(client: client, identity: try CsiIdentity.load(from: identityPath))
        let plainKey = newKey(), revokedKey = newKey(), longKey = newKey()
        let plain: SharedLinkRecord, revoked: SharedLinkRecord, longTerm: SharedLinkRecord
        do {
            plain = try await wallet.createLink(SharedLinkRequest(files: try summaryFile(Self.summary, key: plainKey), label: "Plain"))
            revoked = try await wallet.createLink(SharedLinkRequest(files: try summaryFile(Self.summary, key: revokedKey)))
            try await wallet.revokeLink(id: revoked.id)
            longTerm = try await wallet.createLink(SharedLinkRequest(files: try summaryFile(Self.summary, key: longKey), label: "Kept current",
                                                                     longTerm: true))
        } catch {
            try? await client.shutdown()
            throw error
        }
        let yesterday = Int64(Date().timeIntervalSince1970) - 86_400
        let shots = UICommandTests.packageRoot.appendingPathComponent(".build/ui-screenshots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let marker = viewerRunner.folder.appendingPathComponent("long-term-shown")
        let config: [String: Any] = [
            "viewer": viewerServer.url + "/viewer", "shots": shots.path, "manifest": plain.manifestURL, "key": Self.base64url(plainKey),
            "valid": SHLink.link(try SHLinkPayload(url: plain.manifestURL, key: plainKey, label: "Plain")),
            "expired": SHLink.link(try SHLinkPayload(url: plain.manifestURL, key: plainKey, expiration: yesterday, label: "Old")),
            "revoked": SHLink.link(try SHLinkPayload(url: revoked.manifestURL, key: revokedKey)),
            "longTerm": SHLink.link(try SHLinkPayload(url: longTerm.manifestURL, key: longKey, flags: [.longTerm], label: "Kept current")),
            "marker": marker.path,
        ]
        let configFile = viewerRunner.folder.appendingPathComponent("viewer-cases.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        let errors = viewerRunner.folder.appendingPathComponent("viewer-cases.log")
        let arguments = [UICommandTests.packageRoot.appendingPathComponent("scripts/viewer-cases.py").path, configFile.path]
        async let browsed = UICommandTests.runBrowserScript(python, arguments, errors: errors)
        // Once the long-term link's first content shows, its files change (as health share update does).
        var waited = 0
        while !FileManager.default.fileExists(atPath: marker.path) && waited < 600 {
            try await Task.sleep(for: .milliseconds(500))
            waited += 1
        }
        do {
            _ = try await wallet.updateLink(id: longTerm.id, files: try summaryFile(updatedSummary, key: longKey))
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            _ = try? await browsed
            throw error
        }
        let output = try await browsed
        try #require(output.status == 0, "\((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        let report = try #require(try JSONSerialization.jsonObject(with: output.out) as? [String: Any])

        let malformed = report["malformed"] as? [[String: Any]] ?? []
        #expect(malformed.count >= 25)
        for row in malformed { #expect(row["ok"] as? Bool == true, "\(row)") }
        let fuzz = report["fuzz"] as? [String: Any] ?? [:]
        #expect(fuzz["cases"] as? Int == 160)
        #expect((fuzz["failures"] as? [Any])?.isEmpty == true, "\(fuzz["failures"] ?? "")")

        let expired = report["expired"] as? [String: Any] ?? [:]
        #expect(expired["state"] as? String == "problem")
        #expect((expired["message"] as? String)?.hasPrefix("This link expired on ") == true, "\(expired)")
        #expect((expired["fetched"] as? [String])?.isEmpty == true, "\(expired)")
        #expect((expired["problems"] as? [String])?.isEmpty == true, "\(expired)")

        let gone = report["revoked"] as? [String: Any] ?? [:]
        #expect(gone["message"] as? String == "This link is no longer active: it expired, was revoked, or was locked after too many wrong passcodes.",
                "\(gone)")
        #expect((gone["problems"] as? [String])?.isEmpty == true, "\(gone)")

        let loopback = report["loopback"] as? [String: Any] ?? [:]
        #expect((loopback["text"] as? String)?.contains("Peanut allergy") == true, "\(loopback)")
        #expect((loopback["problems"] as? [String])?.isEmpty == true, "\(loopback)")
        #expect((loopback["elsewhere"] as? [String])?.isEmpty == true, "\(loopback)")
        #expect((loopback["requests"] as? [String])?.contains("POST \(plain.manifestURL)") == true, "\(loopback)")
        #expect((loopback["csp"] as? String)?.contains("connect-src 'self' https: http://127.0.0.1:* http://localhost:*;") == true, "\(loopback)")

        let polled = report["longTerm"] as? [String: Any] ?? [:]
        #expect((polled["firstText"] as? String)?.contains("Peanut allergy") == true, "\(polled)")
        #expect((polled["firstUpdates"] as? String)?.contains("This link can change") == true, "\(polled)")
        #expect((polled["secondStatus"] as? String)?.contains("The link's server asks to wait") == true, "\(polled)")
        #expect(polled["secondShown"] as? Bool == false, "\(polled)")
        #expect((polled["secondProblems"] as? [String])?.isEmpty == true, "\(polled)")
        #expect((polled["updatedText"] as? String)?.contains("Shellfish allergy") == true, "\(polled)")
        #expect((polled["updatedText"] as? String)?.contains("Peanut allergy") == false, "\(polled)")
        #expect((polled["updatedUpdates"] as? String)?.hasPrefix("Updated: the link's content changed.") == true, "\(polled)")
        #expect((polled["problems"] as? [String])?.isEmpty == true, "\(polled)")
        #expect(polled["overflow"] as? Bool == false)
        // The server saw the early second open as too many requests, and no other refusal.
        let listed = try await Self.accesses(server: linkServer.url, identityPath: identityPath)
        #expect(listed.contains("Dr. Díaz too-many-requests"), "\(listed)")
        #expect(listed.contains("Dr. Díaz refused-revoked"), "\(listed)")
    }

    /// Who opened the link and how, as the wallet lists it.
    static func accesses(server: String, identityPath: String) async throws -> [String] {
        let client = try FhirBlocksClient(baseURL: server)
        do {
            let links = try await WalletClient(client: client, identity: try CsiIdentity.load(from: identityPath)).links()
            try await client.shutdown()
            return links.flatMap(\.accesses).map { "\($0.recipient) \($0.outcome)" }
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A health card file signed with the server's issuer key (`data/card-issuer-key.json`), its
    /// `iss` the server, so the viewer fetches the keys from the server it was served by. The
    /// payload is raw DEFLATE in stored blocks (`zip: DEF`), signed ES256 (r‖s).
    static func cardFile(issuer: String, keyFile: URL) async throws -> String {
        var request = HTTPClientRequest(url: issuer + "/.well-known/jwks.json")
        request.method = .GET
        let response = try await HTTPExchange.client.execute(request, timeout: .seconds(300))
        return try cardFile(issuer: issuer, keyFile: keyFile, keySet: Array(try await response.body.collect(upTo: 1 << 20).readableBytesView))
    }

    /// The same card file, the key's `kid` read from `keySet` (the server's `/.well-known/jwks.json`).
    static func cardFile(issuer: String, keyFile: URL, keySet keySetBytes: [UInt8]) throws -> String {
        let jwk = try JSONParser.parse(Array(try Data(contentsOf: keyFile)))
        let d = try #require(jwk["d"]?.stringValue.flatMap(Self.base64urlDecoded))
        let signingKey = try P256.Signing.PrivateKey(rawRepresentation: d)
        let keySet = try JSONParser.parse(keySetBytes)
        let kid = try #require(keySet["keys"]?.arrayValue?.first?["kid"]?.stringValue)
        let payload = #"{"iss":"\#(issuer)","nbf":\#(Int(Date().timeIntervalSince1970) - 60),"vc":{"type":["https://smarthealth.cards#health-card","#
            + #""https://smarthealth.cards#immunization"],"credentialSubject":{"fhirVersion":"4.0.1","fhirBundle":\#(cardBundle)}}}"#
        let header = #"{"alg":"ES256","zip":"DEF","kid":"\#(kid)"}"#
        let signingInput = Self.base64url(Array(header.utf8)) + "." + Self.base64url(Self.storedDeflate(Array(payload.utf8)))
        let signature = try signingKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return #"{"verifiableCredential":["\#(signingInput).\#(Self.base64url(Array(signature)))"]}"#
    }

    /// Raw DEFLATE of `bytes` in stored (uncompressed) blocks: valid DEFLATE any inflater reads.
    static func storedDeflate(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + 65_535, bytes.count)
            let length = UInt16(end - start)
            out.append(end == bytes.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += bytes[start..<end]
            start = end
        } while start < bytes.count
        return out
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64urlDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
