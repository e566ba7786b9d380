import Foundation
@testable import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Profile records by person")
struct ProfileRecordsTests {
    static func record(_ id: String, _ reference: String) -> HKClinicalRecord {
        let json = """
            {"resourceType":"Condition","id":"\(id)","code":{"text":"Condition \(id)"},\(reference)"recordedDate":"2025-09-01"}
            """
        let date = Date(timeIntervalSince1970: 1_759_305_600)
        return HKClinicalRecord(type: HKClinicalType(.conditionRecord), startDate: date, endDate: date, displayName: "Condition \(id)",
                                fhirResource: HKFHIRResource(resourceType: .condition, identifier: id, data: Data(json.utf8),
                                                             sourceURL: nil, fhirVersion: .primaryR4()))
    }

    @Test("the Profile page groups the health records under the profile's person, flags another person's and counts those that name nobody")
    func grouped() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        try await fixture.store.saveOwnerProfile(HKOwnerProfile(givenName: "Zelinda", familyName: "Quarrington",
                                                                 dateOfBirth: DateComponents(year: 1984, month: 2, day: 29)))
        let records = [
            Self.record("a", "\"subject\":{\"reference\":\"Patient/z\",\"display\":\"Zelinda Quarrington\"},"),
            Self.record("b", "\"subject\":{\"reference\":\"Patient/z\",\"display\":\"Ms. Zelinda M. Quarrington\"},"),
            Self.record("c", "\"patient\":{\"reference\":\"Patient/p7\",\"display\":\"Antonio Castellanos\"},"),
            Self.record("d", "\"subject\":{\"reference\":\"Patient/q\"},"),
        ]
        try await fixture.store.saveHealthRecords(records, source: HKSource(name: "Example Clinic", bundleIdentifier: "org.example.clinic"))
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/profile", cookie: cookie)
        }
        let part = try #require(page.body.range(of: "Health records by person")).upperBound
        let section = String(page.body[part...])
        let mine = try #require(section.range(of: "<h3>Zelinda Quarrington (you)</h3>"))
        let other = try #require(section.range(of: "<h3>Antonio Castellanos <span class=\"flag\">Another person&#39;s records</span></h3>")
                                 ?? section.range(of: "<h3>Antonio Castellanos <span class=\"flag\">Another person's records</span></h3>"))
        let unnamed = try #require(section.range(of: "<h3>Records that do not name their patient (Patient/q)</h3>"))
        #expect(mine.lowerBound < other.lowerBound && other.lowerBound < unnamed.lowerBound)
        #expect(section[mine.upperBound..<other.lowerBound].contains("2 record(s)"))
        #expect(section.contains("href=\"/records/\(records[2].uuid.uuidString)\""))
    }

    @Test("without a profile that names someone, records are listed but not compared")
    func noProfile() {
        let groups = ProfileRecords.groups([Self.record("c", "\"patient\":{\"display\":\"Antonio Castellanos\"},")], owner: nil)
        #expect(groups.count == 1 && groups.first?.kind == .unnamed)
        #expect(ProfileRecords.patient(Data("not json".utf8)).name == nil)
    }
}
