import Foundation
import OpenHealthKit
import Testing

@Suite("health store stats: calendar days, weeks and months, whole-period windows, plain numbers")
struct StoreStatsCommandTests {
    /// Adds `value` steps over the hour starting at `start` (ISO 8601 with its zone).
    private static func addSteps(_ runner: CommandRunner, _ value: Int, at start: String) async throws {
        let date = try #require(ISO8601DateFormatter().date(from: start))
        let result = try await runner.run(["store", "add", "--type", "stepCount", "--value", "\(value)",
                                           "--start", start, "--end", ISO8601DateFormatter().string(from: date.addingTimeInterval(3_600))])
        #expect(result.status == 0, "\(result.error)")
    }

    /// The intervals of `health store stats --json`: start and value.
    private static func intervals(_ runner: CommandRunner, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> [(start: String, value: Double?)] {
        let result = try await runner.run(["store", "stats", "--json"] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let intervals = try #require(document["intervals"] as? [[String: Any]])
        return intervals.map { ($0["start"] as? String ?? "", $0["value"] as? Double) }
    }

    @Test("Days are local calendar days: in New York a sample at 03:00 UTC counts on the day before")
    func localDays() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        try await Self.addSteps(runner, 1_000, at: "2026-11-19T03:00:00Z")  // 22:00 on the 18th in New York
        try await Self.addSteps(runner, 2_000, at: "2026-11-19T15:00:00Z")
        let newYork = ["TZ": "America/New_York"]
        let days = try await Self.intervals(runner, ["--type", "stepCount", "--from", "2026-11-18", "--to", "2026-11-20"], environment: newYork)
        #expect(days.map(\.start) == ["2026-11-18T05:00:00Z", "2026-11-19T05:00:00Z"])
        #expect(days.map(\.value) == [1_000, 2_000])
        // --from inside a day starts at that day's midnight; --to inside a day ends at the next.
        let widened = try await Self.intervals(runner, ["--type", "stepCount", "--from", "2026-11-18T13:00", "--to", "2026-11-19T09:00"],
                                               environment: newYork)
        #expect(widened.map(\.start) == ["2026-11-18T05:00:00Z", "2026-11-19T05:00:00Z"])
        #expect(widened.map(\.value) == [1_000, 2_000])
    }

    @Test("Weeks start on the locale's first weekday: Sunday for en_US, Monday for en_GB", arguments: [
        ("en_US.UTF-8", ["2026-11-15T00:00:00Z", "2026-11-22T00:00:00Z"], [500, 1_300.0]),
        ("de_DE.UTF-8@euro", ["2026-11-16T00:00:00Z", "2026-11-23T00:00:00Z"], [1_000, 800.0]),
        ("en_GB.UTF-8", ["2026-11-16T00:00:00Z", "2026-11-23T00:00:00Z"], [1_000, 800.0]),
    ])
    func weekStart(locale: String, starts: [String], values: [Double]) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        try await Self.addSteps(runner, 500, at: "2026-11-18T10:00:00Z")  // Wednesday
        try await Self.addSteps(runner, 500, at: "2026-11-22T10:00:00Z")  // Sunday
        try await Self.addSteps(runner, 800, at: "2026-11-23T10:00:00Z")  // Monday
        // From a Wednesday: the first interval is still the whole week around it.
        let weeks = try await Self.intervals(runner, ["--type", "stepCount", "--interval", "week", "--from", "2026-11-18", "--to", "2026-11-24"],
                                             environment: ["LC_ALL": locale])
        #expect(weeks.map(\.start) == starts)
        #expect(weeks.map(\.value) == values)
        // Without LC_ALL and LC_TIME, LANG names the locale.
        let fromLang = try await Self.intervals(runner, ["--type", "stepCount", "--interval", "week", "--from", "2026-11-18", "--to", "2026-11-24"],
                                                environment: ["LC_ALL": "", "LC_TIME": "", "LANG": locale])
        #expect(fromLang.map(\.start) == starts)
    }

    @Test("Months start on the 1st, whatever day --from names, and are labelled by month")
    func months() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        try await Self.addSteps(runner, 300, at: "2026-01-31T10:00:00Z")
        try await Self.addSteps(runner, 700, at: "2026-03-01T10:00:00Z")
        let months = try await Self.intervals(runner, ["--type", "stepCount", "--interval", "month", "--from", "2026-01-15", "--to", "2026-04-02"])
        #expect(months.map(\.start) == ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"])
        #expect(months.map(\.value) == [300, nil, 700, nil])
        let chart = try await runner.run(["store", "stats", "--type", "stepCount", "--interval", "month", "--from", "2026-01-15", "--to", "2026-04-02"])
        let labels = chart.output.split(separator: "\n").dropFirst().map { String($0.prefix(7)) }
        #expect(labels == ["2026-01", "2026-02", "2026-03", "2026-04"])
        // Quarters: three months from January.
        let quarters = try await Self.intervals(runner, ["--type", "stepCount", "--interval", "3mo", "--from", "2026-02-10", "--to", "2026-04-02"])
        #expect(quarters.map(\.start) == ["2026-01-01T00:00:00Z", "2026-04-01T00:00:00Z"])
        #expect(quarters.first?.value == 1_000)
    }

    @Test("The default window is whole periods ending with the current one: 7 days with today, 4 weeks, 12 months")
    func defaultWindow() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "stepCount", "--value", "42"]).status == 0)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        let formatter = ISO8601DateFormatter()
        for (interval, count, component) in [("day", 7, Calendar.Component.day), ("week", 4, .weekOfYear), ("month", 12, .month)] {
            // en_GB: weeks from Monday, as the expectation's calendar computes them.
            utc.locale = Locale(identifier: "en_GB")
            let before = Date()
            let rows = try await Self.intervals(runner, ["--type", "stepCount", "--interval", interval], environment: ["LC_ALL": "en_GB.UTF-8"])
            let after = Date()
            #expect(rows.count == count, "\(interval)")
            // The last period holds now (the command ran between `before` and `after`), the first starts a period.
            let current = [before, after].compactMap { utc.dateInterval(of: component, for: $0)?.start }.map { formatter.string(from: $0) }
            #expect(current.contains(rows.last?.start ?? ""), "\(interval): \(rows.map(\.start))")
            #expect(rows.last?.value == 42 || current[0] != current[1], "\(interval)")
            let first = try #require(formatter.date(from: rows.first?.start ?? ""))
            #expect(utc.dateInterval(of: component, for: first)?.start == first, "\(interval)")
        }
    }

    @Test("Without --unit, stats are in the unit query shows: a distance in km, not the stored metres")
    func defaultUnitIsTheDisplayUnit() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "distance", "--value", "6500 m",
                                      "--start", "2026-11-20T10:00:00Z", "--end", "2026-11-20T11:00:00Z"]).status == 0)
        let query = try await runner.run(["store", "query", "--type", "distance"])
        #expect(query.output.contains("6.5 km"), "\(query.output)")
        let chart = try await runner.run(["store", "stats", "--type", "distance", "--from", "2026-11-20", "--to", "2026-11-21"])
        #expect(chart.status == 0, "\(chart.error)")
        #expect(chart.output.contains("(km)"), "\(chart.output)")
        #expect(chart.output.split(separator: "\n").last?.hasSuffix("  6.5") == true, "\(chart.output)")
        let document = try await runner.run(["store", "stats", "--json", "--type", "distance", "--from", "2026-11-20", "--to", "2026-11-21"])
        #expect(document.output.contains("\"unit\" : \"km\""), "\(document.output)")
    }

    @Test("Minute intervals late on the 25-hour day the clocks go back start where asked, not an hour early")
    func minutesOnTheFallBackDay() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // 2026-11-01 in New York has 25 hours: 23:30 EST is 1,470 minutes after midnight EDT.
        let rows = try await Self.intervals(runner, ["--type", "stepCount", "--interval", "minute", "--from", "2026-11-01T23:30",
                                                     "--to", "2026-11-01T23:32"], environment: ["TZ": "America/New_York"])
        #expect(rows.map(\.start) == ["2026-11-02T04:30:00Z", "2026-11-02T04:31:00Z"])
    }

    @Test("Large and small values are written out to the type's precision, never in exponent form")
    func plainNumbers() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        #expect(try await runner.run(["store", "add", "--type", "distanceWalkingRunning", "--value", "1234567.8", "--unit", "m",
                                      "--start", "2026-11-20T10:00:00Z", "--end", "2026-11-20T11:00:00Z"]).status == 0)
        #expect(try await runner.run(["store", "add", "--type", "distanceWalkingRunning", "--value", "0.0123", "--unit", "m",
                                      "--start", "2026-11-21T10:00:00Z", "--end", "2026-11-21T11:00:00Z"]).status == 0)
        let chart = try await runner.run(["store", "stats", "--type", "distanceWalkingRunning", "--unit", "m",
                                          "--from", "2026-11-20", "--to", "2026-11-22"])
        #expect(chart.status == 0, "\(chart.error)")
        let lines = chart.output.split(separator: "\n")
        #expect(lines.count == 3)
        // Three significant digits for a distance in metres, as HealthFormatter writes it; grouped.
        #expect(lines.dropFirst().first?.hasSuffix("  1,234,568") == true, "\(chart.output)")
        #expect(lines.last?.hasSuffix("  0.0123") == true, "\(chart.output)")
        #expect(!chart.output.contains("e+") && !chart.output.contains("e-"))
    }
}
