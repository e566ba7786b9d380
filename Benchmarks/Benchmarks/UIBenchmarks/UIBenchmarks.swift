import Benchmark
import BenchmarkSupport
import DemoData
import Foundation
import HealthWebApp
import OpenHealthKit

// `health ui`'s Summary page against its statistics queries alone, in one run on one machine:
//
// - The page: `HealthWebApp.summaryContent(period: .year, now:)`, what GET /?period=year renders
//   inside the layout: the year's statistics queries (steps, heart rate, weight, blood pressure:
//   daily collections; sleep: one sample query), the newest sample of every type for the "latest
//   values" table, and the rendering (SVG charts drawn by Swift, swift-mustache templates).
// - The ceiling: `SummaryReport.load(...)`, the same statistics queries alone, with no rendering.
//
// The store: a year (365 days) of `health demo`'s generator (DemoData: a phone and a watch,
// about 120,000 samples), saved once per benchmark in setup (not timed), in an encrypted file
// store. The goal (issue 17): the page in at most twice the time of its queries.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(20),
        maxIterations: 20
    )

    Benchmark("Summary page, a year of demo data (render)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.webApp.summaryContent(period: .year, now: UIFixture.now))
        }
    } setup: {
        try await UIFixture.make()
    }

    Benchmark("Summary page, a year of demo data (ceiling: its statistics queries alone)") { benchmark, fixture in
        for _ in benchmark.scaledIterations {
            blackHole(try await SummaryReport.load(from: fixture.store, period: .year, now: UIFixture.now, calendar: UIFixture.calendar))
        }
    } setup: {
        try await UIFixture.make()
    }
}

/// A store holding a year of demo data, and the web application over it.
struct UIFixture: Sendable {
    /// 2026-01-01T00:00:00Z: the demo's year is 2025.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    let store: HKHealthStore
    let webApp: HealthWebApp

    static func make() async throws -> UIFixture {
        let folder = try ScratchFolder("ui-summary")
        let store = try BenchmarkStore.open(in: folder)
        let data = DemoData.generate(days: 365, endingAt: now, calendar: calendar)
        try await store.save(data.phone + data.watch)
        for (workout, rates) in data.watchWorkouts {
            try await store.save(workout)
            try await store.add(rates, to: workout)
        }
        return UIFixture(store: store, webApp: try HealthWebApp(store: store, calendar: calendar, clock: { now }))
    }
}
