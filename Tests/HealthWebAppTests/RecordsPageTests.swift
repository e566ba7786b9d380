import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Health records pages")
struct RecordsPageTests {
    static let observation = """
        {"resourceType":"Observation","id":"hb1","status":"final",
         "code":{"text":"Hemoglobin <b>A1c</b>"},
         "effectiveDateTime":"2025-10-01T08:00:00Z",
         "valueQuantity":{"value":6.1,"unit":"%"},
         "referenceRange":[{"low":{"value":4,"unit":"%"},"high":{"value":5.6,"unit":"%"}}],
         "interpretation":[{"coding":[{"code":"H","display":"High"}]}],
         "performer":[{"display":"Dr. Example Lab"}]}
        """
    static let medication = """
        {"resourceType":"MedicationStatement","id":"m1","status":"active",
         "medicationCodeableConcept":{"text":"Metformin 500 mg"},
         "effectiveDateTime":"2025-09-01",
         "dosage":[{"text":"One tablet twice a day with meals"}]}
        """

    static func record(_ type: HKClinicalTypeIdentifier, _ resourceType: HKFHIRResourceType, _ json: String, name: String) -> HKClinicalRecord {
        let date = Date(timeIntervalSince1970: 1_759_305_600)
        return HKClinicalRecord(type: HKClinicalType(type), startDate: date, endDate: date, displayName: name,
                                fhirResource: HKFHIRResource(resourceType: resourceType, identifier: "x", data: Data(json.utf8),
                                                             sourceURL: nil, fhirVersion: .primaryR4()))
    }

    @Test("records are listed by category; a lab result's page shows value, range, interpretation and performer; the JSON on request")
    func labResult() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let lab = Self.record(.labResultRecord, .observation, Self.observation, name: "Hemoglobin <b>A1c</b>")
        let drug = Self.record(.medicationRecord, .medicationStatement, Self.medication, name: "Metformin 500 mg")
        try await fixture.store.saveHealthRecords([lab, drug], source: HKSource(name: "Example Clinic", bundleIdentifier: "org.example.clinic"))
        try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let index = try await client.send(.get, "/records", cookie: cookie)
            #expect(index.status == .ok)
            #expect(index.body.contains(">Lab Results (1)</h2>"))
            #expect(index.body.contains(">Medications (1)</h2>"))
            #expect(!index.body.contains(">Conditions"))
            #expect(index.body.contains("Hemoglobin &lt;b&gt;A1c&lt;/b&gt;"))
            #expect(!index.body.contains("<b>A1c"))
            let page = try await client.send(.get, "/records/\(lab.uuid.uuidString)", cookie: cookie)
            #expect(page.status == .ok)
            for text in ["<dt>Value</dt><dd>6.1 %</dd>", "<dt>Reference range</dt><dd>4 % to 5.6 %</dd>", "<dt>Interpretation</dt><dd>High</dd>",
                         "<dt>Performed by</dt><dd>Dr. Example Lab</dd>", "<dt>Source</dt><dd>Example Clinic</dd>",
                         "<details class=\"card\"><summary>FHIR JSON</summary>", "&quot;resourceType&quot; : &quot;Observation&quot;"] {
                #expect(page.body.contains(text), "\(text)")
            }
            let medication = try await client.send(.get, "/records/\(drug.uuid.uuidString)", cookie: cookie)
            #expect(medication.body.contains("<dt>Dosage</dt><dd>One tablet twice a day with meals</dd>"))
            #expect(try await client.send(.get, "/records/\(UUID().uuidString)", cookie: cookie).status == .notFound)
            #expect(try await client.send(.get, "/records/not-a-uuid", cookie: cookie).status == .notFound)
        }
    }
}
