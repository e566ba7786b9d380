import Foundation

/// The span the summary shows: the last 7, 30 or 365 days, today included.
public enum SummaryPeriod: String, CaseIterable, Sendable {
    case week, month, year

    /// How many days the period covers.
    public var days: Int {
        switch self {
        case .week: 7
        case .month: 30
        case .year: 365
        }
    }

    var label: String {
        switch self {
        case .week: "Week"
        case .month: "Month"
        case .year: "Year"
        }
    }

    /// The period's days: from the start of its first day to the start of the day after `now`.
    public func interval(endingAt now: Date, calendar: Calendar) -> DateInterval {
        let today = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: today) ?? today.addingTimeInterval(86_400)
        let start = calendar.date(byAdding: .day, value: -(days - 1), to: today) ?? today
        return DateInterval(start: start, end: end)
    }

    /// The day a `YYYY-MM-DD` text names (noon of it, in the calendar's zone); nil for anything else.
    static func day(_ text: String, calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)),
              calendar.component(.day, from: date) == day else { return nil }
        return date
    }
}
