import Foundation
@testable import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Browse index")
struct BrowseIndexTests {
    @Test("every type the store knows is listed in the Health app's groups: those with data first with their latest value, the others with Add")
    func everyType() async throws {
        let fixture = try await WebTestFixture.make(days: 2)
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/browse", cookie: cookie)
        }
        #expect(page.status == .ok)
        for group in ["Activity", "Body Measurements", "Cycle Tracking", "Hearing", "Heart", "Mental Wellbeing", "Mobility", "Nutrition",
                      "Respiratory", "Sleep", "Symptoms", "Vitals"] {
            #expect(page.body.contains(">\(group)</h2>"), "\(group)")
        }
        #expect(page.body.contains("<form method=\"get\" action=\"/browse\" class=\"search\" role=\"search\">"))
        #expect(!page.body.contains("<script"))
        // Every sample type is on the page (a link to its page, or to Add data for one without data),
        // but the parts of a blood-pressure reading, reached from its page.
        for type in HKObjectType.allSampleTypes where TypeGroup.listed(type) {
            #expect(page.body.contains("\"/browse/\(type.identifier)\"") || page.body.contains("\"/browse/\(type.identifier)/add\"")
                    || page.body.contains("<li>\(SampleText.name(of: type))</li>"), "\(type.identifier)")
        }
        let weight = try #require(try await fixture.store.newest(of: HKQuantityType(.bodyMass)))
        let shown = try #require(page.body.range(of: "<a href=\"/browse/HKQuantityTypeIdentifierBodyMass\">Weight</a>"))
        let line = page.body[shown.upperBound...].prefix { $0 != "\n" }
        let kilograms = (weight as? HKQuantitySample)?.quantity.doubleValue(for: .gramUnit(with: .kilo)) ?? 0
        #expect(line.contains("<span class=\"latest-value\" data-value=\"\(SVGChart.n(kilograms))\">\(String(format: "%.1f", kilograms)) kg</span>"), "\(line)")
        #expect(line.contains("2025-11-26 07:00 UTC") && line.contains("href=\"/browse/HKQuantityTypeIdentifierBodyMass/add\""), "\(line)")
        // Within Body Measurements, Weight (with data) comes before Height (without, offered for adding).
        let body = try #require(page.body.range(of: ">Body Measurements</h2>"))
        let section = page.body[body.upperBound...].prefix { $0 != "§" }
        let weightAt = try #require(section.range(of: ">Weight</a>")), heightAt = try #require(section.range(of: "aria-label=\"Add Height\">Height</a>"))
        #expect(weightAt.lowerBound < heightAt.lowerBound)
        // Steps, heart rate, weight, sleep and blood pressure (one reading; its two parts are not listed on their own).
        #expect(page.body.contains("5 of \(HKObjectType.allSampleTypes.filter(TypeGroup.listed).count) types have data."))
    }

    @Test("the search box narrows the list by the names people use, HealthKit's names or the group; no match says so")
    func search() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let (sleep, pulse, nothing, group) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/browse?q=Sleep", cookie: cookie), try await client.send(.get, "/browse?q=pulse", cookie: cookie),
                    try await client.send(.get, "/browse?q=zzzz", cookie: cookie), try await client.send(.get, "/browse?q=cycle+tracking", cookie: cookie))
        }
        #expect(sleep.body.contains("href=\"/browse/HKCategoryTypeIdentifierSleepAnalysis\""))
        #expect(!sleep.body.contains("HKQuantityTypeIdentifierStepCount"))
        #expect(sleep.body.contains("value=\"Sleep\"") && sleep.body.contains("match “Sleep”."))
        #expect(pulse.body.contains("HKQuantityTypeIdentifierHeartRate\"") && !pulse.body.contains(">Body Measurements</h2>"))
        #expect(nothing.body.contains("No type matches.") && nothing.body.contains("0 types match"))
        #expect(group.body.contains(">Cycle Tracking</h2>") && group.body.contains("HKCategoryTypeIdentifierMenstrualFlow"))
        #expect(!group.body.contains(">Heart</h2>"))
    }
}
