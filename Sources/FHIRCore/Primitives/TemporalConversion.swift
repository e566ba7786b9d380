import CommonSupport
import Foundation

/// Conversion between FHIR temporal values and Foundation `Date`, by integer arithmetic on the
/// proleptic Gregorian calendar (no `Calendar` or `DateFormatter`).
enum TemporalConversion {
    private static let millisecondsPerDay: Int64 = 86_400_000
    /// 0001-01-01T00:00:00.000Z in milliseconds since 1970.
    private static let minimumMilliseconds = Int64(CivilCalendar.daysSinceEpoch(year: 1, month: 1, day: 1)) * millisecondsPerDay
    /// 9999-12-31T23:59:59.999Z in milliseconds since 1970.
    private static let maximumMilliseconds =
        Int64(CivilCalendar.daysSinceEpoch(year: 10_000, month: 1, day: 1)) * millisecondsPerDay - 1

    /// The instant at the start of the period the components denote; no zone means UTC.
    /// Nil when a part is out of range (a value built or changed by hand).
    static func date(date: FHIRDate, time: FHIRTime?, timeZone: FHIRTimeZone?) -> Date? {
        guard date.isValid, time?.isValid ?? true, timeZone?.isValid ?? true else { return nil }
        let days = CivilCalendar.daysSinceEpoch(
            year: date.year,
            month: Int(date.month ?? 1),
            day: Int(date.day ?? 1)
        )
        var seconds = Double(days * 86_400)
        if let time { seconds += time.secondsSinceMidnight }
        if let timeZone { seconds -= Double(timeZone.secondsFromGMT) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Splits `date` into local date, time (milliseconds when non-zero) and zone in `timeZone`.
    /// The offset is rounded to whole minutes (a zero offset is written `Z`; one beyond ±14:00
    /// falls back to UTC) and the result is clamped to years 0001–9999.
    static func components(of date: Date, in timeZone: TimeZone) -> (date: FHIRDate, time: FHIRTime, zone: FHIRTimeZone) {
        let interval = date.timeIntervalSince1970
        let utcMilliseconds = clamp(interval.isNaN ? 0 : interval * 1000)
        var offsetMinutes = 0
        if interval.isFinite {
            let offsetSeconds = timeZone.secondsFromGMT(for: date)
            offsetMinutes = Int((Double(offsetSeconds) / 60).rounded())
            if abs(offsetMinutes) > 14 * 60 { offsetMinutes = 0 }
        }
        let local = clamp(Double(utcMilliseconds) + Double(offsetMinutes) * 60_000)
        let days = floorDivide(local, millisecondsPerDay)
        let millisecondOfDay = Int(local - days * millisecondsPerDay)
        let civil = CivilCalendar.civilDate(daysSinceEpoch: Int(days))
        let milliseconds = millisecondOfDay % 1000
        let secondOfDay = millisecondOfDay / 1000
        let fhirDate = FHIRDate(unchecked: civil.year, month: UInt8(civil.month), day: UInt8(civil.day))
        let time = FHIRTime(
            unchecked: UInt8(secondOfDay / 3600),
            minute: UInt8(secondOfDay / 60 % 60),
            second: UInt8(secondOfDay % 60),
            fraction: milliseconds == 0 ? nil : CivilCalendar.padded(milliseconds, width: 3)
        )
        let zone = FHIRTimeZone(secondsFromGMT: offsetMinutes * 60) ?? .utc
        return (fhirDate, time, zone)
    }

    /// Whether `lhs` comes before `rhs`; a value that names no point in time comes first.
    static func precedes(_ lhs: Date?, _ rhs: Date?) -> Bool {
        switch (lhs, rhs) {
        case let (lhs?, rhs?): lhs < rhs
        case (nil, _?): true
        default: false
        }
    }

    /// Rounds to whole milliseconds and clamps into the representable range (handles ±infinity).
    private static func clamp(_ milliseconds: Double) -> Int64 {
        let rounded = milliseconds.rounded()
        if !(rounded > Double(minimumMilliseconds)) { return minimumMilliseconds }
        if !(rounded < Double(maximumMilliseconds)) { return maximumMilliseconds }
        return Int64(rounded)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
