import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

/// A lab result's page shows the results of the same test (same code and unit) as a chart with
/// the reference range as a band, values to the precision written, never binary noise.
@Suite("Lab result history")
struct LabHistoryTests {
    static func observation(code: String, value: String, day: Int) -> HKClinicalRecord {
        let json = """
            {"resourceType":"Observation","id":"o\(day)","status":"final",
             "code":{"coding":[{"system":"http://loinc.org","code":"\(code)","display":"Hemoglobin A1c"}],"text":"Hemoglobin A1c"},
             "effectiveDateTime":"2025-\(day < 10 ? "0" : "")\(day)-01T08:00:00Z",
             "valueQuantity":{"value":\(value),"unit":"%"},
             "referenceRange":[{"low":{"value":4,"unit":"%"},"high":{"value":5.6,"unit":"%"}}]}
            """
        var components = DateComponents(year: 2025, month: day, day: 1, hour: 8)
        components.timeZone = TimeZone(identifier: "UTC")
        let date = WebTestFixture.calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
        return HKClinicalRecord(type: HKClinicalType(.labResultRecord), startDate: date, endDate: date, displayName: "Hemoglobin A1c",
                                fhirResource: HKFHIRResource(resourceType: .observation, identifier: "o\(code)\(day)", data: Data(json.utf8),
                                                             sourceURL: nil, fhirVersion: .primaryR4()))
    }

    @Test("the earlier values of the same code, oldest first in the chart, newest first in the table, with the reference range; another code is not mixed in")
    func history() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let records = [Self.observation(code: "4548-4", value: "5.4", day: 3), Self.observation(code: "4548-4", value: "15.605116822620527", day: 6),
                       Self.observation(code: "4548-4", value: "6.1", day: 9), Self.observation(code: "2345-7", value: "99", day: 7)]
        try await fixture.store.saveHealthRecords(records, source: HKSource(name: "Example Lab", bundleIdentifier: "org.example.lab"))
        let (page, other) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/records/\(records[2].uuid.uuidString)", cookie: cookie),
                    try await client.send(.get, "/records/\(records[3].uuid.uuidString)", cookie: cookie))
        }
        #expect(page.status == .ok)
        #expect(page.body.contains("History: 3 results of this test"))
        #expect(SVGAttributes.values(page.body, element: "circle", className: "dot", attribute: "data-value") == ["5.4", "15.61", "6.1"])
        #expect(SVGAttributes.values(page.body, element: "rect", className: "band", attribute: "data-low") == ["4"])
        #expect(SVGAttributes.values(page.body, element: "rect", className: "band", attribute: "data-high") == ["5.6"])
        #expect(page.body.contains("<td>2025-09-01</td><td>6.1 %</td><td>this result, above the range</td>"))
        #expect(page.body.contains("<td>2025-06-01</td><td>15.61 %</td><td>above the range</td>"))
        #expect(page.body.contains("<td>2025-03-01</td><td>5.4 %</td><td></td>"))
        let history = try #require(page.body.components(separatedBy: "History: 3 results").last)
        #expect(!history.contains("15.6051"))
        #expect(page.body.contains("reference range, 4 to 5.6 %"))
        #expect(other.body.contains("History: no other result of this test"))
        #expect(!other.body.contains("5.4 %"))
    }
}
