import Foundation
import HealthPresentation
import HealthWebApp
import OpenHealthKit
import Testing

/// A type's page through time: its period and previous/next steps, the period's chart equal to
/// the statistics (a year: twelve monthly bars), its samples 50 a page by keyset, sleep merged
/// across sources, workouts with their numbers.
@Suite("Type page through time")
struct TypePageTests {
    static let steps = HKQuantityType(.stepCount)

    static func statistics(_ store: HKHealthStore, _ type: HKQuantityType, _ interval: DateInterval, _ bucket: DateComponents) async throws -> [Double] {
        try await HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: type, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)),
            options: .cumulativeSum, anchorDate: interval.start, intervalComponents: bucket).result(for: store)
            .statistics().compactMap { $0.sumQuantity()?.doubleValue(for: .count()) }
    }

    static func bars(_ html: String) -> [Double] {
        SVGAttributes.values(html, element: "rect", className: "bar", attribute: "data-value").compactMap(Double.init)
    }

    /// The UUIDs of the samples a page lists, in its order.
    static func uuids(_ html: String) -> [UUID] {
        html.components(separatedBy: "name=\"uuid\" value=\"").dropFirst().compactMap { UUID(uuidString: String($0.prefix(36))) }
    }

    /// The page's link to older samples, unescaped; nil on the last page.
    static func older(_ html: String) -> String? {
        guard let range = html.range(of: "\" rel=\"next\">Older samples") else { return nil }
        let before = html[..<range.lowerBound]
        guard let open = before.range(of: "href=\"", options: .backwards) else { return nil }
        return String(before[open.upperBound...]).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("each period's chart equals the statistics (a day by hour, a week and a month by day, a year by month, twelve bars); previous, next",
          arguments: SummaryPeriod.allCases)
    func periods(period: SummaryPeriod) async throws {
        let fixture = try await WebTestFixture.make(days: 40)
        let interval = period.interval(endingAt: WebTestFixture.now, calendar: WebTestFixture.calendar)
        let expected = try await Self.statistics(fixture.store, Self.steps, interval, period.bucket)
        #expect(expected.count == [SummaryPeriod.day: 3, .week: 7, .month: 30, .year: 2][period])
        let (page, summary, back) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/browse/\(Self.steps.identifier)?period=\(period.rawValue)", cookie: cookie),
                    try await client.send(.get, "/summary?period=\(period.rawValue)", cookie: cookie),
                    try await client.send(.get, "/browse/\(Self.steps.identifier)?period=\(period.rawValue)&end=2025-10-20", cookie: cookie))
        }
        #expect(page.status == .ok)
        #expect(Self.bars(page.body) == expected)
        #expect(Self.bars(summary.body) == expected)
        #expect(page.body.contains("aria-current=\"true\">\(period.rawValue.capitalized)</a>"))
        #expect(!page.body.contains("Next \(period.rawValue)"))
        // At most six labels under the bars, as far apart as a phone needs: a year's twelve months show six on a
        // phone (every other month; a wide screen shows all twelve, SVGChartTests).
        let labels = SVGChartTests.axisTexts(page.body, anchor: "middle")
        #expect(labels.count == [SummaryPeriod.day: 6, .week: 4, .month: 6, .year: 6][period], "\(labels.map(\.text))")
        let widest = Double(labels.map(\.text.count).max() ?? 0) * SVGChart.charWidth * SVGChart.phoneTextSize
        #expect(zip(labels, labels.dropFirst()).allSatisfy { $1.x - $0.x >= widest + SVGChart.labelGap }, "\(labels)")
        // A period ending earlier: its chart is that period's statistics, and Next leads forward.
        let earlier = period.interval(endingAt: Date(timeIntervalSince1970: 1_760_961_600), calendar: WebTestFixture.calendar) // 2025-10-20 12:00
        #expect(Self.bars(back.body) == (try await Self.statistics(fixture.store, Self.steps, earlier, period.bucket)))
        #expect(back.body.contains("Next \(period.rawValue) →"))
        let previousEnd = WebTestFixture.calendar.date(byAdding: .day, value: -1, to: interval.start) ?? interval.start
        let previousText = ISO8601DateFormatter.string(from: previousEnd, timeZone: TimeZone(identifier: "UTC") ?? .current, formatOptions: [.withFullDate])
        let previousLink = "href=\"/browse/\(Self.steps.identifier)?period=\(period.rawValue)&amp;end=\(previousText)\">← Previous \(period.rawValue)</a>"
        #expect(page.body.contains(previousLink))
        if period == .year { #expect(page.body.contains("2024-12-01 to 2025-11-26")) }
    }

    @Test("samples are listed 50 a page, newest first, by keyset: every sample of the period once, samples starting at the same instant on one page")
    func keysetPaging() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let start = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now).addingTimeInterval(-5 * 86_400)
        // 70 instants, three sources each: 210 samples, every page boundary inside a group of equal starts.
        var samples: [HKObject] = []
        var revisions: [HKSourceRevision] = []
        for index in 0..<70 {
            for source in ["a", "b", "c"] {
                let at = start.addingTimeInterval(Double(index) * 600)
                samples.append(HKQuantitySample(type: Self.steps, quantity: HKQuantity(unit: .count(), doubleValue: Double(index)), start: at,
                                                end: at.addingTimeInterval(60)))
                revisions.append(HKSourceRevision(source: HKSource(name: "Source \(source)", bundleIdentifier: "org.example.\(source)"), version: "1",
                                                  productType: nil,
                                                  operatingSystemVersion: OperatingSystemVersion(majorVersion: 1, minorVersion: 0, patchVersion: 0)))
            }
        }
        _ = try await fixture.store.save(samples, recordedAs: revisions)
        let interval = SummaryPeriod.week.interval(endingAt: WebTestFixture.now, calendar: WebTestFixture.calendar)
        let all = try await HKSampleQueryDescriptor(
            predicates: [.quantitySample(type: Self.steps,
                                         predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end, options: .strictStartDate))],
            sortDescriptors: []).result(for: fixture.store)
        #expect(all.count == 213) // and the fixture's 3 of today
        let starts = Dictionary(uniqueKeysWithValues: all.map { ($0.uuid, $0.startDate) })
        let (pages, odd) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            var pages: [[UUID]] = []
            var path: String? = "/browse/\(Self.steps.identifier)?period=week"
            while let next = path, pages.count < 10 {
                let page = try await client.send(.get, next, cookie: cookie)
                #expect(page.status == .ok)
                pages.append(Self.uuids(page.body))
                path = Self.older(page.body)
                if path == nil { #expect(page.body.contains("the last page of this period")) }
            }
            // A cursor that is not a number is ignored: the newest page.
            return (pages, try await client.send(.get, "/browse/\(Self.steps.identifier)?period=week&before=nan", cookie: cookie))
        }
        let listed = pages.flatMap { $0 }
        #expect(pages.count == 5)
        #expect(pages.dropLast().allSatisfy { (50...52).contains($0.count) })
        #expect(listed.count == all.count && Set(listed) == Set(all.map(\.uuid)))
        let times = listed.compactMap { starts[$0] }
        #expect(times.count == listed.count && zip(times, times.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(Self.uuids(odd.body) == pages.first)
    }

    @Test("last night's sleep counts overlapping sources once, the watch's first: on Today, the sleep page and the Summary")
    func sleepMergedBySource() async throws {
        let store = HKHealthStore(configuration: .init(location: .inMemory, role: .owner))
        try store.open()
        let today = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now)
        let sleep = HKCategoryType(.sleepAnalysis)
        let watch = HKSourceRevision(source: HKSource(name: "Watch", bundleIdentifier: "com.apple.health.watch"), version: "11", productType: "Watch6,1",
                                     operatingSystemVersion: OperatingSystemVersion(majorVersion: 11, minorVersion: 0, patchVersion: 0))
        let app = HKSourceRevision(source: HKSource(name: "Sleep app", bundleIdentifier: "org.example.sleep"), version: "2", productType: nil,
                                   operatingSystemVersion: OperatingSystemVersion(majorVersion: 17, minorVersion: 0, patchVersion: 0))
        func at(_ hour: Double) -> Date { today.addingTimeInterval(hour * 3600) }
        // The app saves first; the watch outranks it. Watch: core 23:00–03:00, deep 03:00–04:00.
        // App: asleep 22:30–06:00, overlapping both. Counted once: 4 h core, 1 h deep, 2.5 h asleep (22:30–23:00, 04:00–06:00).
        _ = try await store.save([HKCategorySample(type: sleep, value: HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue, start: at(-1.5), end: at(6)),
                                  HKCategorySample(type: sleep, value: HKCategoryValueSleepAnalysis.asleepCore.rawValue, start: at(-1), end: at(3)),
                                  HKCategorySample(type: sleep, value: HKCategoryValueSleepAnalysis.asleepDeep.rawValue, start: at(3), end: at(4))],
                                 recordedAs: [app, watch, watch])
        let webApp = try HealthWebApp(store: store, calendar: WebTestFixture.calendar, clock: { WebTestFixture.now })
        let report = try await TodayReport.load(from: store, now: WebTestFixture.now, calendar: WebTestFixture.calendar)
        #expect(report.sleepHours == [4, 1, 0, 2.5, 0])
        let todayHTML = try await webApp.todayContent(now: WebTestFixture.now)
        #expect(todayHTML.contains("data-value=\"7.5\" data-day=\"2025-11-26\">7 h 30 min</span>"))
        let summary = try await SummaryReport.load(from: store, period: .week, now: WebTestFixture.now, calendar: WebTestFixture.calendar)
        #expect(summary.sleep.last?.segments == [4, 1, 0, 2.5, 0])
        let fixture = WebTestFixture(store: store, webApp: webApp)
        let page = try await fixture.withClient { client in
            try await client.send(.get, "/browse/\(sleep.identifier)?period=week", cookie: try await client.startSession())
        }
        #expect(page.status == .ok)
        let segments = SVGAttributes.values(page.body, element: "rect", className: "s0", attribute: "data-value")
            + SVGAttributes.values(page.body, element: "rect", className: "s1", attribute: "data-value")
            + SVGAttributes.values(page.body, element: "rect", className: "s3", attribute: "data-value")
        #expect(segments == ["4", "1", "2.5"])
        #expect(page.body.contains("<td>11-26</td><td>4.0</td><td>1.0</td><td>0.0</td><td>2.5</td><td>0.0</td>"))
    }

    @Test("the workouts page lists each workout's duration, energy, distance and route length")
    func workouts() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let start = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now).addingTimeInterval(-86_400 + 7 * 3600)
        let workout = HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(40 * 60), workoutEvents: nil,
                                totalEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: 420),
                                totalDistance: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 6.5), device: nil, metadata: nil)
        try await fixture.store.save(workout)
        let locations = (0..<11).map { CLLocation(latitude: 52 + Double($0) * 0.001, longitude: 13) }
        let builder = HKWorkoutRouteBuilder(healthStore: fixture.store, device: nil)
        try await builder.insertRouteData(locations)
        _ = try await builder.finishRoute(with: workout, metadata: nil)
        let length = zip(locations, locations.dropFirst()).map { $1.distance(from: $0) }.reduce(0, +)
        let formatter = HealthFormatter(units: [:], timeZone: WebTestFixture.calendar.timeZone)
        let lengthText = formatter.quantity(HKQuantity(unit: .meter(), doubleValue: length), of: HKQuantityType(.distanceWalkingRunning))
        #expect(length > 1_100 && length < 1_120)
        let page = try await fixture.withClient { client in
            try await client.send(.get, "/browse/\(HKWorkoutType().identifier)", cookie: try await client.startSession())
        }
        #expect(page.status == .ok)
        for header in ["When", "Activity", "Duration", "Energy", "Distance", "Route"] {
            #expect(page.body.contains("<th scope=\"col\">\(header)</th>"), "\(header)")
        }
        #expect(page.body.contains("<td>Running</td><td>40 min</td><td>420 kcal</td><td>6.5 km</td><td>\(lengthText)</td>"), "\(lengthText)")
    }

    @Test("the workouts page charts each bar's workout minutes: the sum of the durations of the workouts that start in it, with the numbers in a table",
          arguments: [SummaryPeriod.day, .week, .year])
    func workoutMinutes(period: SummaryPeriod) async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let calendar = WebTestFixture.calendar
        let today = calendar.startOfDay(for: WebTestFixture.now)
        // Days back, starting hour, minutes: two on one day, one that ends the next day, one in an earlier month, one a year before.
        let plan: [(day: Double, hour: Double, minutes: Double)] = [(1, 7, 40), (1, 18, 25.5), (3, 23.5, 45), (0, 6, 30), (40, 9, 61), (400, 9, 20)]
        for (day, hour, minutes) in plan {
            let start = today.addingTimeInterval(-day * 86_400 + hour * 3600)
            try await fixture.store.save(HKWorkout(activityType: .running, start: start, end: start.addingTimeInterval(minutes * 60), workoutEvents: nil,
                                                   totalEnergyBurned: nil, totalDistance: nil, device: nil, metadata: nil))
        }
        let all = try await HKSampleQueryDescriptor(predicates: [.sample(type: HKWorkoutType(), predicate: nil)], sortDescriptors: [])
            .result(for: fixture.store)
        #expect(all.count >= plan.count)
        let interval = period.interval(endingAt: WebTestFixture.now, calendar: calendar)
        var expected: [Double] = []
        for start in period.bucketStarts(of: interval, calendar: calendar) {
            let end = min(calendar.date(byAdding: period.bucket, to: start) ?? interval.end, interval.end)
            let inBar = all.filter { $0.startDate >= start && $0.startDate < end }
            if !inBar.isEmpty { expected.append(inBar.map { $0.endDate.timeIntervalSince($0.startDate) / 60 }.reduce(0, +)) }
        }
        #expect(expected.count == [SummaryPeriod.day: 1, .week: 3, .year: 2][period])
        let page = try await fixture.withClient { client in
            try await client.send(.get, "/browse/\(HKWorkoutType().identifier)?period=\(period.rawValue)", cookie: try await client.startSession())
        }
        #expect(page.status == .ok)
        #expect(Self.bars(page.body).map { ($0 * 100).rounded() } == expected.map { ($0 * 100).rounded() })
        let per = [SummaryPeriod.day: "hour", .week: "day", .year: "month"][period] ?? ""
        #expect(page.body.contains("<h2 id=\"type-heading\">Workout minutes per \(per)</h2>"))
        if period == .week {
            #expect(page.body.contains("<td>11-25</td><td>66</td><td>2</td>"), "the numbers of 25 November: 65.5 minutes in 2 workouts")
        }
    }

    @Test("Today's trends: the last 7 full days against the four weeks before, from the statistics, with the direction the numbers give")
    func trends() async throws {
        let fixture = try await WebTestFixture.make(days: 40)
        let today = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now)
        let interval = DateInterval(start: today.addingTimeInterval(-35 * 86_400), end: today)
        let weekly = try await Self.statistics(fixture.store, Self.steps, interval, DateComponents(day: 7)).map { $0 / 7 }
        #expect(weekly.count == 5)
        let current = weekly[4], previous = weekly.prefix(4).reduce(0, +) / 4
        let html = try await fixture.webApp.todayContent(now: WebTestFixture.now)
        let row = try #require(html.components(separatedBy: "<tr data-kind=\"\(Self.steps.identifier)\"").dropFirst().first)
        let change = (current - previous) / previous
        let direction = abs(change) < 0.05 ? "steady" : (change > 0 ? "up" : "down")
        #expect(row.hasPrefix(" data-direction=\"\(direction)\" data-current=\"\(Self.n(current))\" data-previous=\"\(Self.n(previous))\""),
                "\(row.prefix(200))")
        #expect(html.contains("<tr data-kind=\"\(HKQuantityTypeIdentifier.heartRate.rawValue)\""))
        #expect(html.contains("<tr data-kind=\"\(HKQuantityTypeIdentifier.bodyMass.rawValue)\""))
        // Ten days of data are not enough for a trend.
        let short = try await WebTestFixture.make(days: 10)
        #expect(try await short.webApp.todayContent(now: WebTestFixture.now).contains("No type has five weeks of data yet."))
    }

    /// A number as the page's data attributes write it (at most two decimals).
    static func n(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
