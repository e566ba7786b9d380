import Foundation
@testable import HealthWebApp
import OpenHealthKit
import Testing

/// What Browse, Today and the trends show for a type, as the Health app does: a day's total for a
/// type that adds up (today's, or the last day with data, labelled), last night's sleep, the latest
/// value; blood pressure once, as one reading.
@Suite("Type headlines")
struct TypeHeadlineTests {
    static let steps = HKQuantityType(.stepCount)
    static let calendar = WebTestFixture.calendar
    static let today = calendar.startOfDay(for: WebTestFixture.now)

    /// A day's steps, sources merged, from the statistics API.
    static func steps(on day: Date, in store: HKHealthStore) async throws -> Double {
        let statistics = try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: steps, predicate: HKQuery.predicateForSamples(withStart: day, end: day.addingTimeInterval(86_400))),
            options: .cumulativeSum).result(for: store)
        return try #require(statistics?.sumQuantity()?.doubleValue(for: .count()))
    }

    /// The line of Browse that lists a type (from its link to the end of the line).
    static func line(_ html: String, _ identifier: String) -> Substring? {
        guard let link = html.range(of: "<li><a href=\"/browse/\(identifier)\">") else { return nil }
        return html[link.lowerBound...].prefix { $0 != "\n" }
    }

    /// Browse on a web application whose clock says `now`.
    static func browse(_ fixture: WebTestFixture, now: Date) async throws -> String {
        let webApp = try HealthWebApp(store: fixture.store, calendar: calendar, clock: { now })
        return try await BrowseView(store: fixture.store, pages: try PageRenderer(), text: webApp.sampleText()).index(now: now)
    }

    @Test("Browse shows today's total of steps (not the last hourly sample), last night's time asleep, the latest weight, and one blood-pressure reading")
    func browseToday() async throws {
        let fixture = try await WebTestFixture.make(days: 10)
        let html = try await Self.browse(fixture, now: WebTestFixture.now)
        let expected = try await Self.steps(on: Self.today, in: fixture.store)
        let steps = try #require(Self.line(html, Self.steps.identifier))
        #expect(steps.contains("data-value=\"\(Int(expected))\"") && steps.contains("<span class=\"muted\">Today</span>"), "\(steps)")
        let newestSteps = try #require(try await fixture.store.newest(of: Self.steps) as? HKQuantitySample)
        #expect(newestSteps.quantity.doubleValue(for: .count()) < expected)
        // Last night: 4 h core and 1 h 30 min deep.
        let sleep = try #require(Self.line(html, HKCategoryTypeIdentifier.sleepAnalysis.rawValue))
        #expect(sleep.contains(">5 h 30 min</span>") && sleep.contains(">Last night</span>"), "\(sleep)")
        let weight = try #require(Self.line(html, HKQuantityTypeIdentifier.bodyMass.rawValue))
        #expect(weight.contains("2025-11-26 07:00 UTC"), "\(weight)")
        // Blood pressure: one line, "systolic/diastolic mmHg"; its two parts are not listed, but its page links to them.
        let pressure = try #require(try await fixture.store.newest(of: HKCorrelationType(.bloodPressure)) as? HKCorrelation)
        let parts = try #require(HealthPresentationReading.parts(pressure))
        let line = try #require(Self.line(html, HKCorrelationTypeIdentifier.bloodPressure.rawValue))
        #expect(line.contains(">\(parts.systolic)/\(parts.diastolic) mmHg</span>"), "\(line)")
        for part in [HKQuantityTypeIdentifier.bloodPressureSystolic, .bloodPressureDiastolic] {
            #expect(!html.contains("/browse/\(part.rawValue)\""), "\(part.rawValue) is listed on its own")
        }
        #expect(html.contains("5 of \(HKObjectType.allSampleTypes.filter(TypeGroup.listed).count) types have data."))
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/browse/\(HKCorrelationTypeIdentifier.bloodPressure.rawValue)", cookie: cookie)
        }
        #expect(page.body.contains("href=\"/browse/\(HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue)\"")
                && page.body.contains("href=\"/browse/\(HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue)\""))
        // Searching for a part finds the reading.
        let search = try await BrowseView(store: fixture.store, pages: try PageRenderer(),
                                          text: fixture.webApp.sampleText()).index(search: "systolic", now: WebTestFixture.now)
        #expect(search.contains("href=\"/browse/\(HKCorrelationTypeIdentifier.bloodPressure.rawValue)\"") && search.contains("1 type match"))
    }

    @Test("while today has no data yet, Browse and Today show the last day with data, labelled Yesterday or with its day")
    func lastDayWithData() async throws {
        let fixture = try await WebTestFixture.make(days: 10)
        let expected = try await Self.steps(on: Self.today, in: fixture.store)
        for (offset, label) in [(1, "Yesterday"), (3, "2025-11-26")] {
            let now = WebTestFixture.now.addingTimeInterval(Double(offset) * 86_400)
            let html = try await Self.browse(fixture, now: now)
            let steps = try #require(Self.line(html, Self.steps.identifier))
            #expect(steps.contains("data-value=\"\(Int(expected))\"") && steps.contains("<span class=\"muted\">\(label)</span>"), "\(steps)")
            let sleep = try #require(Self.line(html, HKCategoryTypeIdentifier.sleepAnalysis.rawValue))
            #expect(sleep.contains(">5 h 30 min</span>") && sleep.contains(">Night ending 2025-11-26</span>"), "\(sleep)")
            let webApp = try HealthWebApp(store: fixture.store, calendar: Self.calendar, clock: { now })
            let today = try await webApp.todayContent(now: now)
            #expect(TodayPageTests.value(today, kind: Self.steps.identifier) == String(Int(expected)))
            #expect(today.contains("data-day=\"2025-11-26\"") && today.contains("<span class=\"tile-when past\">\(label)</span>"))
            #expect(today.contains("Nothing recorded today yet; the last day with data."))
            #expect(TodayPageTests.value(today, kind: "sleep") == "5.5" && today.contains(">Night ending 2025-11-26</span>"))
        }
        // Today, with data today: today's total, labelled Today.
        let today = try await fixture.webApp.todayContent(now: WebTestFixture.now)
        #expect(today.contains("<span class=\"tile-when\">Today</span>") && today.contains("data-day=\"2025-11-26\""))
        #expect(!today.contains("tile-when past"))
    }

    @Test("the trends show blood pressure once, as systolic/diastolic, its parts not on their own")
    func bloodPressureTrend() async throws {
        let fixture = try await WebTestFixture.make(days: 40)
        let html = try await fixture.webApp.todayContent(now: WebTestFixture.now)
        let row = try #require(html.components(separatedBy: "<tr data-kind=\"\(HKCorrelationTypeIdentifier.bloodPressure.rawValue)\"").dropFirst().first?
            .components(separatedBy: "</tr>").first)
        #expect(row.contains(">Blood Pressure</a>") && row.contains("(systolic)"), "\(row)")
        let cells = row.components(separatedBy: "<td>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(cells.count == 2 && cells.allSatisfy { $0.range(of: #"^\d+/\d+ mmHg$"#, options: .regularExpression) != nil }, "\(cells)")
        for part in [HKQuantityTypeIdentifier.bloodPressureSystolic, .bloodPressureDiastolic] {
            #expect(!html.contains("<tr data-kind=\"\(part.rawValue)\""))
        }
    }
}

/// A reading's two numbers as the page writes them.
enum HealthPresentationReading {
    static func parts(_ correlation: HKCorrelation) -> (systolic: Int, diastolic: Int)? {
        let mmHg = HKUnit.millimeterOfMercury()
        guard let high = correlation.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample,
              let low = correlation.objects(for: HKQuantityType(.bloodPressureDiastolic)).first as? HKQuantitySample else { return nil }
        return (Int(high.quantity.doubleValue(for: mmHg)), Int(low.quantity.doubleValue(for: mmHg)))
    }
}
