import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Today page")
struct TodayPageTests {
    /// The `data-value` of the Today card of `kind`.
    static func value(_ html: String, kind: String) -> String? {
        guard let card = html.components(separatedBy: "data-kind=\"\(kind)\"").dropFirst().first?.components(separatedBy: "</a>").first,
              let attribute = card.components(separatedBy: "data-value=\"").dropFirst().first else { return nil }
        return String(attribute.prefix { $0 != "\"" })
    }

    @Test("the first page is Today: today's totals equal the statistics API's sums, the newest values and last night's sleep are shown, each card links to its type")
    func totalsEqualStatistics() async throws {
        let fixture = try await WebTestFixture.make(days: 10)
        let calendar = WebTestFixture.calendar
        let start = calendar.startOfDay(for: WebTestFixture.now)
        let steps = try await HKStatisticsQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.stepCount), predicate: HKQuery.predicateForSamples(withStart: start, end: start.addingTimeInterval(86_400))),
            options: .cumulativeSum).result(for: fixture.store)
        let expectedSteps = try #require(steps?.sumQuantity()?.doubleValue(for: .count()))
        let (page, summary, old) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/", cookie: cookie), try await client.send(.get, "/summary?period=month", cookie: cookie),
                    try await client.send(.get, "/?period=year", cookie: cookie))
        }
        #expect(page.status == .ok)
        #expect(page.body.contains("<h1>Today</h1>"))
        #expect(Self.value(page.body, kind: "HKQuantityTypeIdentifierStepCount") == String(Int(expectedSteps)))
        #expect(page.body.contains("href=\"/browse/HKQuantityTypeIdentifierStepCount\" data-kind=\"HKQuantityTypeIdentifierStepCount\""))
        // The fixture has no distance: the card says so rather than showing 0.
        #expect(Self.value(page.body, kind: "HKQuantityTypeIdentifierDistanceWalkingRunning") == nil)
        // Last night: 4 h core and 1.5 h deep.
        #expect(Self.value(page.body, kind: "sleep") == "5.5")
        #expect(page.body.contains("Core: 4 h") && page.body.contains("Deep: 1 h 30 min"))
        let newestWeight = try #require(try await fixture.store.newest(of: HKQuantityType(.bodyMass)) as? HKQuantitySample)
        #expect(Self.value(page.body, kind: "HKQuantityTypeIdentifierBodyMass").flatMap(Double.init)
                == newestWeight.quantity.doubleValue(for: .gramUnit(with: .kilo)))
        #expect(page.body.contains(">Weight</span>") && page.body.contains(">Heart Rate</span>") && !page.body.contains("Body Mass"))
        // Blood pressure is one reading: systolic/diastolic.
        let pressure = try #require(try await fixture.store.newest(of: HKCorrelationType(.bloodPressure)) as? HKCorrelation)
        let systolic = try #require(pressure.objects(for: HKQuantityType(.bloodPressureSystolic)).first as? HKQuantitySample)
        #expect(page.body.contains("data-systolic=\"\(Int(systolic.quantity.doubleValue(for: .millimeterOfMercury())))\""))
        #expect(page.body.contains("No workout today."))
        // The Summary is reachable, and its old address leads to it.
        #expect(summary.status == .ok && summary.body.contains("<h1>Summary</h1>"))
        #expect(old.status == .seeOther && old.headers[.location] == "/summary?period=year")
        #expect(page.body.contains("<a href=\"/\" aria-current=\"page\">Today</a>"))
    }

    @Test("Today in pounds after the person chose lb in Settings")
    func personUnits() async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let bodyMass = HKQuantityType(.bodyMass)
        try fixture.store.setPreferredUnit(.pound(), for: bodyMass)
        let html = try await fixture.webApp.todayContent(now: WebTestFixture.now)
        let newest = try #require(try await fixture.store.newest(of: bodyMass) as? HKQuantitySample)
        let pounds = try #require(Self.value(html, kind: bodyMass.identifier).flatMap(Double.init))
        #expect(abs(pounds - newest.quantity.doubleValue(for: .pound())) < 0.01)
        #expect(html.contains(" lb<"))
    }

    @Test("an empty store shows Today with no values, not an error")
    func emptyStore() async throws {
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        try store.open()
        let webApp = try HealthWebApp(store: store, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let html = try await webApp.todayContent(now: WebTestFixture.now)
        #expect(html.contains("Nothing recorded today.") && html.contains("No sleep recorded last night.") && html.contains("No reading yet."))
    }
}
