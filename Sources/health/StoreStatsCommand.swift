import ArgumentParser
import Foundation
import HealthPresentation
import OpenHealthKit

/// `health store stats`: statistics per calendar interval, drawn as a bar chart.
struct StoreStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Statistics per interval (sum, average, min, max, most recent) with a bar chart.",
        discussion: """
            Intervals are calendar periods in the local time zone: days start at midnight (a day across a daylight-saving \
            change lasts 23 or 25 hours), weeks on the first weekday of the locale (LC_ALL, LC_TIME or LANG: Sunday for en_US, \
            Monday for en_GB), months on the 1st, years on January 1; \
            hours and minutes count from midnight. The window is made of whole periods: by default the current one and \
            those before it (the last 7 days, 4 weeks, 12 months, 5 years, 24 hours or 60 minutes, today's included); \
            --from moves its start back to the start of its period, and --to its end on to the end of its period.
            Example: health store stats --type stepCount --interval week
            """)

    enum Statistic: String, ExpressibleByArgument, CaseIterable {
        case sum, average, min, max, mostRecent = "most-recent"
    }

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "A quantity type (stepCount, heartRate, bodyMass…).")
    var type: String

    @Option(help: "The interval: minute, hour, day, week, month, year, or a count and unit such as 15min, 6h, 2d, 2w, 3mo.")
    var interval: String = "day"

    @Option(help: "The statistic: sum, average, min, max, most-recent (default: sum for cumulative types, average otherwise).")
    var statistic: Statistic?

    @Option(help: "The unit to show (default: the unit the type is shown in, the owner's choice on the page's Settings, e.g. km for distances).")
    var unit: String?

    @Option(help: "From the start of this date's period (default: whole periods back from the current one).")
    var from: String?

    @Option(help: "Up to this date, the end of its period included unless it is a period's start (default: the end of the current period).")
    var to: String?

    @Flag(help: "Print JSON.")
    var json = false

    mutating func run() async throws {
        guard let quantityType = try parseSampleType(type) as? HKQuantityType else {
            throw ValidationError("'\(type)' is not a quantity type; statistics need one (stepCount, heartRate…)")
        }
        let period = try StatisticsPeriod(parsing: interval)
        let statistic = self.statistic ?? (quantityType.aggregationStyle == .cumulative ? .sum : .average)
        let options: HKStatisticsOptions
        switch statistic {
        case .sum: options = .cumulativeSum
        case .average: options = .discreteAverage
        case .min: options = .discreteMin
        case .max: options = .discreteMax
        case .mostRecent: options = .mostRecent
        }
        if quantityType.aggregationStyle == .cumulative, statistic != .sum, statistic != .mostRecent {
            throw ValidationError("\(quantityType.displayName) is cumulative: use --statistic sum")
        }
        if quantityType.aggregationStyle != .cumulative, statistic == .sum {
            throw ValidationError("\(quantityType.displayName) is not cumulative: use average, min, max or most-recent")
        }
        let store = try storeOptions.openStore()
        // The unit the owner sees the type in (Settings on the page), as `store query` shows it.
        let storeFormatter = try await HealthFormatter.forStore(store, types: [quantityType])
        let unit = try self.unit.map(parseUnit) ?? storeFormatter.displayUnit(for: quantityType)
        guard quantityType.is(compatibleWith: unit) else {
            throw ValidationError("unit '\(unit.unitString)' does not fit \(quantityType.displayName)")
        }
        let calendar = StatisticsPeriod.localCalendar()
        let window = try period.window(from: from.map(parseDate), to: to.map(parseDate), now: Date(), calendar: calendar)
        // Apple's sample code: the anchor is a period's start (here the window's), the components one period.
        let descriptor = HKStatisticsCollectionQueryDescriptor(
            predicate: .quantitySample(type: quantityType, predicate: HKQuery.predicateForSamples(withStart: window.start, end: window.end)),
            options: options, anchorDate: window.start, intervalComponents: period.intervalComponents)
        let collection = try await withActivity("Computing") { try await descriptor.result(for: store) }
        var rows: [(start: Date, end: Date, value: Double?)] = []
        // The last instant before the end, so the period starting at the end is not listed.
        collection.enumerateStatistics(from: window.start, to: window.end.addingTimeInterval(-0.001)) { statistics, _ in
            let quantity: HKQuantity?
            switch statistic {
            case .sum: quantity = statistics.sumQuantity()
            case .average: quantity = statistics.averageQuantity()
            case .min: quantity = statistics.minimumQuantity()
            case .max: quantity = statistics.maximumQuantity()
            case .mostRecent: quantity = statistics.mostRecentQuantity()
            }
            rows.append((statistics.startDate, statistics.endDate, quantity?.doubleValue(for: unit)))
        }
        if json {
            let objects: [[String: Any]] = rows.map { start, end, value in
                ["start": isoDate(start), "end": isoDate(end), "value": value ?? NSNull()]
            }
            let document: [String: Any] = ["type": quantityType.identifier, "unit": unit.unitString, "statistic": statistic.rawValue,
                                           "intervals": objects]
            print(String(decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]),
                         as: UTF8.self))
            return
        }
        // Values as HealthFormatter writes them: the type's precision in the unit, grouped, never in exponent form.
        let formatter = HealthFormatter(units: storeFormatter.units, timeZone: calendar.timeZone)
        let label = HealthUnits.label(for: unit, type: quantityType)
        print("\(quantityType.displayName), \(statistic.rawValue) per \(interval) (\(label.isEmpty ? unit.unitString : label)), "
              + "local time \(formatter.zoneName(at: window.end))")
        let labels = period.labelFormatter(calendar: calendar)
        let lines = BarChart.lines(rows.map { (labels.string(from: $0.start), $0.value) }) { value in
            let number = HealthFormatter.personNumber(HKQuantity(unit: unit, doubleValue: value), unit: unit)
            return NumberText.format(number, decimals: HealthFormatter.decimals(for: quantityType, unit: unit, number: number))
        }
        for line in lines { print(line) }
    }
}

/// A `health store stats` interval: a count of one calendar unit, and the periods it is
/// aligned to.
struct StatisticsPeriod {
    /// The calendar units an interval counts.
    enum Unit: String, CaseIterable {
        case minute, hour, day, week, month, year
    }

    /// The unit.
    let unit: Unit
    /// How many units make one interval (1 to 10,000).
    let count: Int

    /// Parses interval names: `day`, `week`, `15min`, `6h`, `2d`, `2w`, `1mo`, `1y`.
    init(parsing text: String) throws {
        let key = text.lowercased()
        if let unit = Unit(rawValue: key) {
            self.unit = unit
            count = 1
            return
        }
        let digits = key.prefix { $0.isNumber }
        let units: [Substring: Unit] = ["min": .minute, "m": .minute, "h": .hour, "d": .day, "w": .week, "mo": .month, "y": .year]
        guard let count = Int(digits), count > 0, count <= 10_000, let unit = units[key.dropFirst(digits.count)] else {
            throw ValidationError("invalid interval '\(text)': use minute, hour, day, week, month, year or e.g. 15min, 6h, 2d, 2w, 3mo")
        }
        self.unit = unit
        self.count = count
    }

    /// The calendar of the person running the command: Foundation's current calendar and time
    /// zone, with the locale the environment names (`LC_ALL`, else `LC_TIME`, else `LANG`, as
    /// POSIX orders them; `C` and `POSIX` keep Foundation's), which Foundation on Linux does not
    /// read: weeks start on that locale's first weekday (Sunday for `en_US`, Monday for `en_GB`).
    static func localCalendar(environment: [String: String] = ProcessInfo.processInfo.environment) -> Calendar {
        var calendar = Calendar.current
        guard let value = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return calendar
        }
        // `de_DE.UTF-8@euro` names the locale `de_DE`.
        let identifier = String(value.prefix { $0 != "." && $0 != "@" })
        if !identifier.isEmpty, identifier != "C", identifier != "POSIX" { calendar.locale = Locale(identifier: identifier) }
        return calendar
    }

    /// The components of one interval (weeks as 7 days, as Apple's sample code writes them).
    var intervalComponents: DateComponents {
        switch unit {
        case .minute: return DateComponents(minute: count)
        case .hour: return DateComponents(hour: count)
        case .day: return DateComponents(day: count)
        case .week: return DateComponents(day: 7 * count)
        case .month: return DateComponents(month: count)
        case .year: return DateComponents(year: count)
        }
    }

    /// The default window, in intervals: 60 minutes, 24 hours, 7 days, 4 weeks, 12 months or
    /// 5 years, in whole intervals.
    private var defaultIntervals: Int {
        let units: Int
        switch unit {
        case .minute: units = 60
        case .hour: units = 24
        case .day: units = 7
        case .week: units = 4
        case .month: units = 12
        case .year: units = 5
        }
        return (units + count - 1) / count
    }

    /// The start of the calendar period an interval grid containing `date` counts from: the
    /// day's start for minutes, hours and days, the week's (the calendar's first weekday), the
    /// month's for one month, the year's for several months (`3mo` gives quarters) and years.
    private func gridOrigin(for date: Date, calendar: Calendar) -> Date {
        let component: Calendar.Component
        switch unit {
        case .minute, .hour, .day: component = .day
        case .week: component = .weekOfYear
        case .month: component = count == 1 ? .month : .year
        case .year: component = .year
        }
        return calendar.dateInterval(of: component, for: date)?.start ?? calendar.startOfDay(for: date)
    }

    /// Boundary `k` of the grid from `origin`, computed from the origin as the statistics query does.
    private func boundary(_ k: Int, from origin: Date, calendar: Calendar) throws -> Date {
        var components = intervalComponents
        for field in [Calendar.Component.minute, .hour, .day, .month, .year] {
            if let value = components.value(for: field) { components.setValue(value * k, for: field) }
        }
        guard let date = calendar.date(byAdding: components, to: origin) else {
            throw ValidationError("the dates are out of range for --interval \(count)\(unit.rawValue)")
        }
        return date
    }

    /// The start of the interval that contains `date`, on the grid of its calendar period.
    func start(containing date: Date, calendar: Calendar) throws -> Date {
        let origin = gridOrigin(for: date, calendar: calendar)
        var k = 0
        // At most 1,500 steps (the minutes of a 25-hour day when the clocks go back, and some);
        // a multi-unit interval longer than its period starts at the period.
        while try boundary(k + 1, from: origin, calendar: calendar) <= date, k < 1_500 { k += 1 }
        return try boundary(k, from: origin, calendar: calendar)
    }

    /// The window of whole intervals: from the start of `from`'s interval (or the default
    /// number of intervals back from the last one) to the end of `to`'s (or now's) interval,
    /// `to` itself excluded when an interval starts there.
    func window(from: Date?, to: Date?, now: Date, calendar: Calendar) throws -> DateInterval {
        if let from, let to, to <= from { throw ValidationError("--to must be after --from") }
        let start: Date
        if let from {
            start = try self.start(containing: from, calendar: calendar)
        } else {
            let lastStart = try self.start(containing: to.map { $0.addingTimeInterval(-0.001) } ?? now, calendar: calendar)
            start = try boundary(1 - defaultIntervals, from: lastStart, calendar: calendar)
        }
        // The end: the first boundary of the window's grid after now, or at or after `to`.
        var k = 1
        var end = try boundary(k, from: start, calendar: calendar)
        while to.map({ end < $0 }) ?? (end <= now) {
            k += 1
            guard k <= 2_000_000 else { throw ValidationError("the window holds too many intervals: use a longer --interval") }
            end = try boundary(k, from: start, calendar: calendar)
        }
        return DateInterval(start: start, end: end)
    }

    /// Labels of interval starts: `2026-11-20 08:15` for minutes and hours, `2026-11-20` for
    /// days and weeks (the week's first day), `2026-11` for months, `2026` for years; local time.
    func labelFormatter(calendar: Calendar) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        switch unit {
        case .minute, .hour: formatter.dateFormat = "yyyy-MM-dd HH:mm"
        case .day, .week: formatter.dateFormat = "yyyy-MM-dd"
        case .month: formatter.dateFormat = count == 1 ? "yyyy-MM" : "yyyy-MM-dd"
        case .year: formatter.dateFormat = count == 1 ? "yyyy" : "yyyy-MM-dd"
        }
        return formatter
    }
}

/// Draws labelled values as horizontal bars.
enum BarChart {
    /// One line per row: its label, a bar as long as its value is of the largest, and the value
    /// as `format` writes it (default ``formatStatistic(_:)``); `–` for a row without a value.
    static func lines(_ rows: [(label: String, value: Double?)], width: Int = 40,
                      format: (Double) -> String = formatStatistic) -> [String] {
        let maximum = rows.compactMap(\.value).max() ?? 0
        return rows.map { label, value in
            guard let value else { return "\(label)  " + String(repeating: " ", count: width) + "  –" }
            // Clamped before it becomes an Int: -1e300 against a largest value of 1e-300 is -inf
            // (imported water temperatures did that), which Int(_:) traps on.
            let scaled = maximum > 0 ? (value / maximum * Double(width)).rounded() : 0
            let cells = scaled.isNaN ? 0 : Int(min(Double(width), max(0, scaled)))
            let bar = String(repeating: "█", count: cells)
            return "\(label)  \(bar.padding(toLength: width, withPad: " ", startingAt: 0))  \(format(value))"
        }
    }
}

/// Formats a statistic for the bar chart without exponent: whole numbers as they are
/// (`150000000`), others to two decimals (`72.35`) and values under 1 to three significant
/// digits (`0.0123`).
func formatStatistic(_ value: Double) -> String {
    guard value.isFinite else { return value.isNaN ? "–" : (value > 0 ? "∞" : "-∞") }
    let style = FloatingPointFormatStyle<Double>(locale: Locale(identifier: "en_US_POSIX")).grouping(.never)
    if value != 0, abs(value) < 1 { return value.formatted(style.precision(.significantDigits(1...3))) }
    return value.formatted(style.precision(.fractionLength(0...2)))
}
