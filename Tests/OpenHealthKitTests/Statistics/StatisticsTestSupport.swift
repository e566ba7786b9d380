import Foundation
import Testing

@testable import OpenHealthKit
import TestSupport

/// Calendars, dates and samples shared by the statistics tests.
enum StatisticsTestSupport {
    /// A Gregorian calendar in the named time zone.
    static func calendar(_ timeZone: String) throws -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: timeZone))
        return calendar
    }

    /// A local date in `calendar`'s time zone.
    static func date(
        _ calendar: Calendar,
        _ year: Int,
        _ month: Int,
        _ day: Int,
        _ hour: Int = 0,
        _ minute: Int = 0,
        _ second: Int = 0
    ) throws -> Date {
        try #require(
            calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
        )
    }

    /// Reference-date seconds of a local date.
    static func seconds(_ calendar: Calendar, _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) throws
        -> Double
    {
        try date(calendar, year, month, day, hour, minute).timeIntervalSinceReferenceDate
    }

    /// A daily grid anchored at local midnight on `year-month-day`.
    static func dailyGrid(_ calendar: Calendar, _ year: Int = 2024, _ month: Int = 1, _ day: Int = 1) throws
        -> StatisticsIntervalGrid
    {
        try StatisticsIntervalGrid(
            anchorDate: date(calendar, year, month, day),
            intervalComponents: DateComponents(day: 1),
            calendar: calendar
        )
    }

    /// The result of a call with typed throws, as an optional error.
    static func error<T>(_ body: () throws(StatisticsError) -> T) -> StatisticsError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// The shared seeded generator.
    typealias SplitMix64 = TestSupport.SplitMix64
}
