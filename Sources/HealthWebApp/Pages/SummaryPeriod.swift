import Foundation

/// The span the Summary and a type's page show, ending on a day: that day (24 hourly bars), the
/// 7 or 30 days up to it (a bar per day), or the twelve calendar months up to it (a bar per month,
/// the last one up to the day).
public enum SummaryPeriod: String, CaseIterable, Sendable {
    case day, week, month, year

    /// How many days the period covers (a year: 365, though it is counted in calendar months).
    public var days: Int {
        switch self {
        case .day: 1
        case .week: 7
        case .month: 30
        case .year: 365
        }
    }

    var label: String {
        switch self {
        case .day: "Day"
        case .week: "Week"
        case .month: "Month"
        case .year: "Year"
        }
    }

    /// The length of one bar of the period's charts: an hour for a day, a day for a week or a
    /// month, a month for a year.
    public var bucket: DateComponents {
        switch self {
        case .day: DateComponents(hour: 1)
        case .week, .month: DateComponents(day: 1)
        case .year: DateComponents(month: 1)
        }
    }

    /// The period's span: from the start of its first day (a year: the first day of the month
    /// eleven months before) to the start of the day after `now`.
    public func interval(endingAt now: Date, calendar: Calendar) -> DateInterval {
        let today = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: today) ?? today.addingTimeInterval(86_400)
        let start: Date
        if self == .year {
            let month = calendar.dateInterval(of: .month, for: today)?.start ?? today
            start = calendar.date(byAdding: .month, value: -11, to: month) ?? month
        } else {
            start = calendar.date(byAdding: .day, value: -(days - 1), to: today) ?? today
        }
        return DateInterval(start: start, end: end)
    }

    /// The starts of the period's bars, in time order.
    public func bucketStarts(of interval: DateInterval, calendar: Calendar) -> [Date] {
        var starts: [Date] = []
        var current = interval.start
        while current < interval.end, starts.count < 400 {
            starts.append(current)
            guard let next = calendar.date(byAdding: bucket, to: current), next > current else { break }
            current = next
        }
        return starts
    }

    /// A bar's label: `08:00` (an hour), `11-23` (a day), `2025-11` (a month).
    func bucketLabel(_ start: Date, text: SampleText) -> String {
        let local = text.formatter.localDateTime(start)
        switch self {
        case .day: return String(local.dropFirst(11))
        case .week, .month: return text.day(start)
        case .year: return String(local.prefix(7))
        }
    }

    /// The last day of the period before the one ending on `lastDay`, and of the one after (nil
    /// when that would start after `today`; it ends on `today` at the latest).
    func steps(from interval: DateInterval, today: Date, calendar: Calendar) -> (previous: Date, next: Date?) {
        let lastDay = interval.end.addingTimeInterval(-1)
        let previous = calendar.date(byAdding: .day, value: -1, to: interval.start) ?? interval.start
        guard interval.end <= calendar.startOfDay(for: today) else { return (previous, nil) }
        var next: Date
        if self == .year {
            let month = calendar.dateInterval(of: .month, for: lastDay)?.start ?? lastDay
            let after = calendar.date(byAdding: .month, value: 13, to: month) ?? month
            next = calendar.date(byAdding: .day, value: -1, to: after) ?? after
        } else {
            next = calendar.date(byAdding: .day, value: days, to: lastDay) ?? lastDay
        }
        if calendar.startOfDay(for: today) < calendar.startOfDay(for: next) { next = today }
        return (previous, next)
    }

    /// The years a period may end in: every period ending in them, a year's included, lies within
    /// `Date.distantPast ... Date.distantFuture` (0001-01-01 to 4001-01-01), where statistics are
    /// computed; a period reaching beyond them answered 500 (`?end=0001-01-07&period=year`, `?end=9999-12-31`).
    static let endYears = 2...3999

    /// The day a `YYYY-MM-DD` text names (noon of it, in the calendar's zone); nil for anything else,
    /// a day outside ``endYears`` included.
    static func day(_ text: String, calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              endYears.contains(year), (1...12).contains(month), (1...31).contains(day),
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
              calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}
