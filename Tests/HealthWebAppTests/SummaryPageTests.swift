import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

@Suite("Summary page")
struct SummaryPageTests {
    @Test("the steps chart's bars equal the sums the statistics API returns: hourly for a day, daily for a week and a month, monthly for a year",
          arguments: SummaryPeriod.allCases)
    func stepsEqualStatistics(period: SummaryPeriod) async throws {
        let fixture = try await WebTestFixture.make(days: 40)
        let interval = period.interval(endingAt: WebTestFixture.now, calendar: WebTestFixture.calendar)
        let statistics = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.stepCount), predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
            options: .cumulativeSum, anchorDate: interval.start, intervalComponents: period.bucket).result(for: fixture.store)
        let expected = statistics.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }
        #expect(expected.count == [SummaryPeriod.day: 3, .week: 7, .month: 30, .year: 2][period])
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/summary?period=\(period.rawValue)", cookie: cookie)
        }
        #expect(page.status == .ok)
        let bars = SVGAttributes.values(page.body, element: "rect", className: "bar", attribute: "data-value").compactMap(Double.init)
        #expect(bars == expected)
        #expect(page.body.contains("aria-current=\"true\">\(period.rawValue.capitalized)</a>"))
    }

    @Test("heart rate, weight, blood pressure and sleep show the statistics' numbers, charts and tables")
    func otherCharts() async throws {
        let fixture = try await WebTestFixture.make(days: 10)
        let report = try await SummaryReport.load(from: fixture.store, period: .week, now: WebTestFixture.now, calendar: WebTestFixture.calendar)
        let interval = report.interval
        let heart = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.heartRate), predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
            options: [.discreteMax], anchorDate: interval.start, intervalComponents: DateComponents(day: 1)).result(for: fixture.store)
        let bpm = HKUnit.count().unitDivided(by: .minute())
        #expect(report.heartRate.compactMap(\.high) == heart.statistics().compactMap { $0.maximumQuantity()?.doubleValue(for: bpm) })
        #expect(report.weight.compactMap(\.value).count == 7)
        #expect(report.bloodPressure.allSatisfy { ($0.low ?? 0) < ($0.high ?? 1) })
        // Each night: 4 h core (from 23:00) and 1.5 h deep.
        #expect(report.sleep.map(\.segments) == Array(repeating: [4, 1.5, 0, 0, 0], count: 7))
        let page = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return try await client.send(.get, "/summary", cookie: cookie)
        }
        let maxima = SVGAttributes.values(page.body, element: "rect", className: "range", attribute: "data-high")
        #expect(maxima.count == 14) // heart rate and blood pressure, 7 days each
        for id in ["steps", "heart", "sleep", "weight", "pressure"] {
            #expect(page.body.contains("<h2 id=\"\(id)-heading\">"))
        }
        #expect(page.body.components(separatedBy: "<table>").count - 1 == 6) // a table per chart, and the latest values
        #expect(page.body.contains("Latest values"))
        #expect(page.body.contains(">Steps</a>") && page.body.contains(">Weight</a>") && !page.body.contains(">Body Mass<"))
    }

    @Test("an empty store shows the page with no data, not an error")
    func emptyStore() async throws {
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        try store.open()
        let webApp = try HealthWebApp(store: store, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let html = try await webApp.summaryContent(period: .year, now: WebTestFixture.now)
        #expect(html.contains("No data in this period."))
        #expect(html.contains("The store has no samples yet."))
    }
}

@Suite("Summary through time")
struct SummaryTimeTests {
    @Test("Previous steps back a whole period: its bars equal the statistics of the week before; Next comes back; there is no Next past today")
    func previousAndNext() async throws {
        let fixture = try await WebTestFixture.make(days: 20)
        let (now, back, bad) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/summary", cookie: cookie), try await client.send(.get, "/summary?period=week&end=2025-11-19", cookie: cookie),
                    try await client.send(.get, "/summary?period=week&end=2025-02-31", cookie: cookie))
        }
        #expect(now.body.contains("href=\"/summary?period=week&amp;end=2025-11-19\">← Previous week</a>"))
        #expect(!now.body.contains("Next week"))
        #expect(back.body.contains("2025-11-13 to 2025-11-19"))
        #expect(back.body.contains("href=\"/summary?period=week&amp;end=2025-11-26\">Next week →</a>"))
        let start = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now).addingTimeInterval(-13 * 86_400)
        let statistics = try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: HKQuantityType(.stepCount),
                                       predicate: HKQuery.predicateForSamples(withStart: start, end: start.addingTimeInterval(7 * 86_400))),
            options: .cumulativeSum, anchorDate: start, intervalComponents: DateComponents(day: 1)).result(for: fixture.store)
        let expected = statistics.statistics().compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }
        #expect(expected.count == 7)
        #expect(SVGAttributes.values(back.body, element: "rect", className: "bar", attribute: "data-value").compactMap(Double.init) == expected)
        // A day that is not a calendar day is ignored: the period ends today.
        #expect(bad.status == .ok && bad.body.contains("2025-11-20 to 2025-11-26"))
    }

    @Test("a period reaching before 0001-01-01 or past 4001-01-01 (where statistics stop) is ignored like a non-day: it ends today, not a 500",
          arguments: ["period=year&end=0001-01-07", "period=week&end=0001-01-01", "period=day&end=4001-01-01", "period=week&end=9999-12-31"])
    func endOutsideTheStatisticsRange(query: String) async throws {
        let fixture = try await WebTestFixture.make(days: 3)
        let steps = HKQuantityType(.stepCount).identifier
        let (summary, browse) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/summary?\(query)", cookie: cookie), try await client.send(.get, "/browse/\(steps)?\(query)", cookie: cookie))
        }
        #expect(summary.status == .ok && browse.status == .ok)
        #expect(summary.body.contains("2025-11-26") && browse.body.contains("2025-11-26"))
    }
}
