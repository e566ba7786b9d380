import Foundation
import HealthWebApp
import OpenHealthKit
import Testing

/// A type page's samples paged by keyset both ways (older and newer, 50 a page, newest first) and
/// the sleep page's nights ranked newest, longest or shortest first.
@Suite("Type page navigation")
struct TypePageNavigationTests {
    static let steps = HKQuantityType(.stepCount)

    /// The page's link named `words`, unescaped; nil when the page has none.
    static func link(_ html: String, _ words: String) -> String? {
        guard let range = html.range(of: "\">\(words)") else { return nil }
        let before = html[..<range.lowerBound]
        guard let open = before.range(of: "href=\"", options: .backwards) else { return nil }
        let href = before[open.upperBound...].prefix { $0 != "\"" }
        return String(href).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test("Newer samples pages back by keyset from the last page to the newest: every sample once on the way, newest first, 50 a page")
    func newerPaging() async throws {
        let fixture = try await WebTestFixture.make(days: 1)
        let start = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now).addingTimeInterval(-5 * 86_400)
        // 70 instants, three sources each: 210 samples, page boundaries inside groups of equal starts.
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
            predicates: [.quantitySample(type: Self.steps, predicate: HKQuery.predicateForSamples(withStart: interval.start, end: interval.end,
                                                                                                    options: .strictStartDate))],
            sortDescriptors: []).result(for: fixture.store)
        #expect(all.count == 213)
        let starts = Dictionary(uniqueKeysWithValues: all.map { ($0.uuid, $0.startDate) })
        let (first, second, walk) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            let first = try await client.send(.get, "/browse/\(Self.steps.identifier)?period=week", cookie: cookie)
            // Older to the last page.
            var path = Self.link(first.body, "Older samples →")
            var second: WebAnswer?
            var last = first
            while let next = path {
                last = try await client.send(.get, next, cookie: cookie)
                if second == nil { second = last }
                path = Self.link(last.body, "Older samples →")
            }
            // Then newer, back to the newest.
            var walk = [TypePageTests.uuids(last.body)]
            path = Self.link(last.body, "← Newer samples")
            while let next = path, walk.count < 12 {
                let page = try await client.send(.get, next, cookie: cookie)
                #expect(page.status == .ok)
                walk.append(TypePageTests.uuids(page.body))
                path = Self.link(page.body, "← Newer samples")
            }
            return (first, second, walk)
        }
        let firstPage = TypePageTests.uuids(first.body)
        #expect(Self.link(first.body, "← Newer samples") == nil && Self.link(first.body, "⇤ Newest samples") == nil)
        let secondPage = try #require(second)
        #expect(Self.link(secondPage.body, "← Newer samples")?.contains("&after=") == true)
        #expect(Self.link(secondPage.body, "⇤ Newest samples") == "/browse/\(Self.steps.identifier)?period=week&end=2025-11-26")
        // The walk ends on the newest page, as the type's page opens.
        #expect(walk.count >= 5 && walk.last == firstPage)
        #expect(Set(walk.flatMap { $0 }) == Set(all.map(\.uuid)))
        for page in walk {
            let times = page.compactMap { starts[$0] }
            #expect(times.count == page.count && zip(times, times.dropFirst()).allSatisfy { $0 >= $1 }, "newest first")
            #expect(page.count <= 52)
        }
        // Before the newest page, each newer page starts just after the page before it: nothing skipped, nothing twice.
        for (older, newer) in zip(walk.dropLast(), walk.dropLast().dropFirst()) {
            let oldestOfNewer = try #require(newer.compactMap { starts[$0] }.min()), newestOfOlder = try #require(older.compactMap { starts[$0] }.max())
            #expect(oldestOfNewer > newestOfOlder)
            #expect(!all.contains { $0.startDate > newestOfOlder && $0.startDate < oldestOfNewer })
            #expect((50...52).contains(newer.count))
        }
    }

    @Test("the sleep page ranks the period's nights newest, longest or shortest first")
    func nightsRanked() async throws {
        let fixture = try await WebTestFixture.make(days: 7)
        // The night ending 2025-11-24 has 1 h 30 min of REM more: 7 h asleep, the others 5 h 30 min.
        let night = WebTestFixture.calendar.startOfDay(for: WebTestFixture.now).addingTimeInterval(-2 * 86_400)
        try await fixture.store.save([HKCategorySample(type: HKCategoryType(.sleepAnalysis), value: HKCategoryValueSleepAnalysis.asleepREM.rawValue,
                                                       start: night.addingTimeInterval(4.5 * 3600), end: night.addingTimeInterval(6 * 3600))])
        let sleep = HKCategoryTypeIdentifier.sleepAnalysis.rawValue
        let (newest, longest, shortest, year) = try await fixture.withClient { client in
            let cookie = try await client.startSession()
            return (try await client.send(.get, "/browse/\(sleep)?period=week", cookie: cookie),
                    try await client.send(.get, "/browse/\(sleep)?period=week&order=longest", cookie: cookie),
                    try await client.send(.get, "/browse/\(sleep)?period=week&order=shortest", cookie: cookie),
                    try await client.send(.get, "/browse/\(sleep)?period=year", cookie: cookie))
        }
        func nights(_ html: String) -> [(String, Double)] {
            html.components(separatedBy: "<tr data-night=\"").dropFirst().compactMap { row in
                let day = String(row.prefix(10))
                guard let asleep = row.components(separatedBy: "data-asleep=\"").dropFirst().first.flatMap({ Double($0.prefix { $0 != "\"" }) }) else {
                    return nil
                }
                return (day, asleep)
            }
        }
        let byDate = nights(newest.body)
        #expect(byDate.map(\.0) == (0..<7).map { "2025-11-\(26 - $0)" })
        #expect(byDate.first { $0.0 == "2025-11-24" }?.1 == 7)
        #expect(nights(longest.body).first?.0 == "2025-11-24" && nights(longest.body).map(\.1) == byDate.map(\.1).sorted(by: >))
        #expect(nights(shortest.body).last?.0 == "2025-11-24" && nights(shortest.body).map(\.1) == byDate.map(\.1).sorted())
        #expect(longest.body.contains("aria-current=\"true\">Longest first</a>"))
        #expect(newest.body.contains("href=\"/browse/\(sleep)?period=week&amp;end=2025-11-26&amp;order=shortest\">Shortest first</a>"))
        #expect(year.body.contains("Choose a month to rank its nights.") && nights(year.body).isEmpty)
    }
}
