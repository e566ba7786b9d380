import Foundation
import HealthWebApp
import OpenHealthKit
import Testing
import TestSupport

@Suite("Health cards page")
struct CardsPageTests {
    @Test("a stored card shows its issuer, person, items and dates, and its QR code as inline SVG")
    func card() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let jws = try String(contentsOf: TestData.specExamples.appendingPathComponent("example-00-d-jws.txt"), encoding: .utf8)
        let issued = Date(timeIntervalSince1970: 1_620_000_000)
        let card = HKVerifiableClinicalRecord(
            recordTypes: ["https://smarthealth.cards#health-card", "https://smarthealth.cards#immunization"],
            issuerIdentifier: "https://spec.smarthealth.cards/examples/issuer",
            subject: HKVerifiableClinicalRecordSubject(fullName: "John B. Anyperson", dateOfBirthComponents: nil),
            issuedDate: issued, relevantDate: issued, expirationDate: nil, itemNames: ["COVID-19 vaccine <dose 1>"],
            sourceType: .smartHealthCard, dataRepresentation: Data(jws.utf8))
        try await fixture.store.saveHealthRecords([card], source: HKSource(name: "Card import", bundleIdentifier: "org.example.cards"))
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/cards", cookie: cookie)
        }
        #expect(page.status == .ok)
        for text in ["<dt>Issuer</dt><dd>https://spec.smarthealth.cards/examples/issuer</dd>", "<dt>For</dt><dd>John B. Anyperson</dd>",
                     "<dt>Items</dt><dd>COVID-19 vaccine &lt;dose 1&gt;</dd>", "<dt>Kinds</dt><dd>health-card, immunization</dd>",
                     "<svg class=\"qr\" role=\"img\" aria-label=\"QR code of the card\""] {
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
    }
}
