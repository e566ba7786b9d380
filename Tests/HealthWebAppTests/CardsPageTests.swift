import Foundation
import HealthWebApp
import OpenHealthKit
import QRCode
import QRImageReader
import SmartHealthCards
import Testing
import TestSupport

@Suite("Health cards page")
struct CardsPageTests {
    static let issuer = "https://spec.smarthealth.cards/examples/issuer"

    /// A verifier that knows the spec examples' issuer (its keys and revocation list from the
    /// committed folder) and trusts it under a VCI-directory name, or one that knows no keys.
    static func verifier(knowsIssuer: Bool = true) -> SHCVerifier {
        let folders = knowsIssuer ? [issuer: TestData.specExamples.appendingPathComponent("issuer")] : [:]
        let directory = VCIDirectory(issuers: [.init(iss: issuer, name: "Spec Example Issuer")])
        return SHCVerifier(resolver: FolderKeyResolver(folders), trust: .directory(directory), now: WebTestFixture.now)
    }

    static func example(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: TestData.specExamples.appendingPathComponent(name)))
    }

    static func cards(in store: HKHealthStore) async throws -> Int {
        try await store.count(of: HKObjectType.verifiableClinicalRecordType())
    }

    /// Example 00's JWS with one character of its signature changed.
    static func forgedJWS() throws -> String {
        var jws = Array(String(decoding: try example("example-00-d-jws.txt"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        let signatureStart = try #require(jws.lastIndex(of: ".")) + 1
        let index = signatureStart + (jws.count - signatureStart) / 2
        jws[index] = jws[index] == "A" ? "B" : "A"
        return String(jws)
    }

    @Test("a stored card shows its issuer (named from the VCI directory), trust, that it verifies now, its person, items, dates and QR code")
    func card() async throws {
        let fixture = try await WebTestFixture.make(days: 1, verifier: Self.verifier())
        let jws = try String(contentsOf: TestData.specExamples.appendingPathComponent("example-00-d-jws.txt"), encoding: .utf8)
        let issued = Date(timeIntervalSince1970: 1_620_000_000)
        let card = HKVerifiableClinicalRecord(
            recordTypes: ["https://smarthealth.cards#health-card", "https://smarthealth.cards#immunization"],
            issuerIdentifier: Self.issuer,
            subject: HKVerifiableClinicalRecordSubject(fullName: "John B. Anyperson", dateOfBirthComponents: nil),
            issuedDate: issued, relevantDate: issued, expirationDate: nil, itemNames: ["COVID-19 vaccine <dose 1>"],
            sourceType: .smartHealthCard, dataRepresentation: Data(jws.utf8))
        try await fixture.store.saveHealthRecords([card], source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/cards", cookie: cookie)
        }
        #expect(page.status == .ok)
        for text in ["<dt>Issuer</dt><dd>Spec Example Issuer (https://spec.smarthealth.cards/examples/issuer)</dd>",
                     "<dt>Issuer trusted</dt><dd>Yes</dd>", "data-verifies=\"yes\"><strong>Verifies now.</strong>",
                     "<dt>For</dt><dd>John B. Anyperson</dd>",
                     "<dt>Items</dt><dd>COVID-19 vaccine &lt;dose 1&gt;</dd>", "<dt>Kinds</dt><dd>health-card, immunization</dd>",
                     "<svg class=\"qr\" role=\"img\" aria-label=\"QR code of the card\"", "action=\"/cards/add\" enctype=\"multipart/form-data\""] {
            #expect(page.body.contains(text), "\(text)")
        }
        #expect(!page.body.contains("<?xml"))
        #expect(page.body.components(separatedBy: "<svg class=\"qr\"").count == 2)
    }

    @Test("an empty store says so")
    func empty() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let page = try await fixture.withClient { client in
            try await client.send(.get, "/cards", cookie: try await client.startSession())
        }
        #expect(page.body.contains("The store has no health cards yet."))
        #expect(page.body.contains("No list of trusted issuers was given"))
    }

    @Test("a valid .smart-health-card file is verified, stored and shown; the same card again replaces it")
    func addFile() async throws {
        let fixture = try await WebTestFixture.make(days: 1, verifier: Self.verifier())
        let file = try Self.example("example-00-e-file.smart-health-card")
        let (added, page) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let body = MultipartBody().field("csrf", client.csrf(cookie)).file("card", filename: "card.smart-health-card", file)
                .file("image", filename: "", []).field("shc", "").closed
            let added = try await client.send(.post, "/cards/add", cookie: cookie, multipart: body)
            _ = try await client.send(.post, "/cards/add", cookie: cookie, multipart: body)
            return (added, try await client.send(.get, added.headers[.location] ?? "/cards", cookie: cookie))
        }
        #expect(added.status == .seeOther)
        #expect(added.headers[.location] == "/cards?added=1")
        #expect(page.body.contains("Added 1 card(s); each was verified first."))
        #expect(page.body.contains("<dt>For</dt><dd>John B. Anyperson</dd>"))
        #expect(page.body.contains("<strong>Verifies now.</strong>"))
        #expect(try await Self.cards(in: fixture.store) == 1)
    }

    @Test("a forged card (one signature byte changed) or one from an unknown issuer is refused with its reason in plain words; nothing is stored")
    func forged() async throws {
        let fixture = try await WebTestFixture.make(days: 1, verifier: Self.verifier())
        let forged = try Self.forgedJWS()
        let refused = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let body = MultipartBody().field("csrf", client.csrf(cookie)).file("card", filename: "forged.jws", Array(forged.utf8)).closed
            return try await client.send(.post, "/cards/add", cookie: cookie, multipart: body)
        }
        #expect(refused.status == .unprocessableContent)
        #expect(refused.body.contains("The card was not added"))
        #expect(refused.body.contains("The signature does not match: the card was changed after it was signed"))
        #expect(refused.body.contains("jws.signature.invalid"))
        #expect(refused.body.contains("Nothing was stored."))
        #expect(try await Self.cards(in: fixture.store) == 0)

        let unknown = try await WebTestFixture.make(days: 1, verifier: Self.verifier(knowsIssuer: false))
        let answer = try await unknown.withClient { client in
            let cookie = try await client.startSession()
            let body = MultipartBody().field("csrf", client.csrf(cookie))
                .file("card", filename: "card.smart-health-card", try Self.example("example-00-e-file.smart-health-card")).closed
            return try await client.send(.post, "/cards/add", cookie: cookie, multipart: body)
        }
        #expect(answer.status == .unprocessableContent)
        #expect(answer.body.contains("The issuer&#39;s keys are not known here") || answer.body.contains("The issuer's keys are not known here"))
        #expect(try await Self.cards(in: unknown.store) == 0)
    }

    @Test("pasted shc:/ text is added; a chunked card's chunks are read as one card; text that is not a card is refused")
    func paste() async throws {
        let fixture = try await WebTestFixture.make(days: 1, verifier: Self.verifier())
        let single = String(decoding: try Self.example("example-00-f-qr-code-numeric-value-0.txt"), as: UTF8.self)
        let chunks = try (0...2).map { String(decoding: try Self.example("example-02-f-qr-code-numeric-value-\($0).txt"), as: UTF8.self) }
        let (added, chunked, junk) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            func post(_ text: String) async throws -> WebAnswer {
                try await client.send(.post, "/cards/add", cookie: cookie,
                                      multipart: MultipartBody().field("csrf", client.csrf(cookie)).field("shc", text).closed)
            }
            return (try await post("  SHC:/" + single.dropFirst("shc:/".count) + "\n"),
                    try await post(chunks.joined(separator: "\n\n")), try await post("hello world"))
        }
        #expect(added.status == .seeOther)
        #expect(try await Self.cards(in: fixture.store) == 1)
        // Example 02 breaks rule 29 (its references are not resource:N): read as one card, then refused.
        #expect(chunked.status == .unprocessableContent)
        #expect(chunked.body.contains("the pasted text (card 1)"))
        #expect(chunked.body.contains("The health record inside the card does not follow the SMART Health Card rules."))
        #expect(junk.status == .unprocessableContent)
        #expect(junk.body.contains("Line 1 of the pasted text is neither shc:/ text nor a card"))
        #expect(try await Self.cards(in: fixture.store) == 1)
    }

    @Test("a QR image (PNG) of a card is read with zxing-cpp, verified and stored",
          .enabled(if: (try? QRImageReader.availability.get()) != nil, "needs zxing-cpp and the OpenHealthKitQRImages library"))
    func qrImage() async throws {
        let fixture = try await WebTestFixture.make(days: 1, verifier: Self.verifier())
        let jws = String(decoding: try Self.example("example-00-d-jws.txt"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let png = try QRCode.smartHealthCard(numeric: try SHCNumeric.encode(jws)).png(moduleSize: 4, border: 4)
        let (added, notImage) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let body = MultipartBody().field("csrf", client.csrf(cookie)).file("image", filename: "card.png", Array(png), type: "image/png").closed
            let other = MultipartBody().field("csrf", client.csrf(cookie)).file("image", filename: "card.png", Array("not a picture".utf8)).closed
            return (try await client.send(.post, "/cards/add", cookie: cookie, multipart: body),
                    try await client.send(.post, "/cards/add", cookie: cookie, multipart: other))
        }
        #expect(added.status == .seeOther)
        #expect(added.headers[.location] == "/cards?added=1")
        #expect(notImage.status == .unprocessableContent)
        #expect(notImage.body.contains("The file is not a PNG or JPEG image."))
        #expect(try await Self.cards(in: fixture.store) == 1)
    }

    @Test("a revoked card already stored shows that it does not verify now, and why; Re-check all runs as a job that ends on the checked cards")
    func revokedAndRecheck() async throws {
        let fixture = try await WebTestFixture.make(days: 1, verifier: Self.verifier())
        // Stored through the importer with a verifier that does not check revocation (no CRL folder).
        for name in ["example-00-d-jws.txt", "example-03-d-jws.txt"] {
            let jws = String(decoding: try Self.example(name), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let card = HKVerifiableClinicalRecord(
                recordTypes: ["https://smarthealth.cards#health-card"], issuerIdentifier: Self.issuer,
                subject: HKVerifiableClinicalRecordSubject(fullName: name, dateOfBirthComponents: nil),
                issuedDate: WebTestFixture.now, relevantDate: WebTestFixture.now, expirationDate: nil, itemNames: [name],
                sourceType: .smartHealthCard, dataRepresentation: Data(jws.utf8))
            try await fixture.store.saveHealthRecords([card], source: HKSource(name: "Cards", bundleIdentifier: "org.example.cards"))
        }
        let (page, recheck, result) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let page = try await client.send(.get, "/cards", cookie: cookie)
            let recheck = try await client.send(.post, "/cards/recheck", cookie: cookie, form: "csrf=\(client.csrf(cookie))")
            let location = recheck.headers[.location] ?? ""
            await fixture.webApp.jobs.waitUntilFinished(String(location.dropFirst("/jobs/".count)))
            return (page, recheck, try await client.send(.get, location, cookie: cookie))
        }
        #expect(page.body.contains("Does not verify now: the issuer has revoked it."))
        #expect(page.body.contains("The issuer has revoked this card."))
        #expect(page.body.components(separatedBy: "<strong>Verifies now.</strong>").count == 2)
        #expect(recheck.status == .seeOther)
        #expect(recheck.headers[.location]?.hasPrefix("/jobs/") == true)
        #expect(result.status == .ok)
        #expect(result.body.contains("Checked 2 card(s) again: 1 do not verify now."))
        #expect(result.body.contains("The issuer has revoked this card."))
        #expect(!result.body.contains("http-equiv=\"refresh\""))
    }
}
