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
}
