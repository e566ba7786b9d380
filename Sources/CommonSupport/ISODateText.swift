/// Instants as ISO 8601 text in UTC (`2023-06-22T16:19:24Z`, or with milliseconds
/// `2023-06-22T16:19:24.657Z`), written with integer arithmetic over ``CivilCalendar``: the one
/// writer for messages, reports and the FhirBlocks wire. Never a count of seconds since 1970.
package enum ISODateText {
    /// `seconds` since 1970-01-01T00:00:00Z as `YYYY-MM-DDThh:mm:ssZ` (fractions dropped); a
    /// year past 9999 is written with all its digits. Not finite, or beyond what a day count
    /// holds: the number itself.
    package static func string(secondsSince1970 seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        append(secondsSince1970: Int(seconds.rounded(.down)), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `milliseconds` since 1970-01-01T00:00:00Z as `YYYY-MM-DDThh:mm:ss.SSSZ` (always three
    /// fraction digits); a year outside 0000–9999 is written with all its digits, or its sign.
    package static func string(millisecondsSince1970 milliseconds: Int64) -> String {
        var (seconds, millisecond) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        if millisecond < 0 { seconds -= 1; millisecond += 1000 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(secondsSince1970: Int(seconds), millisecond: Int(millisecond), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A calendar date as `YYYY-MM-DD`, written as C's `%04d-%02d-%02d` writes it: each part
    /// zero-padded to its width, a negative part with its sign inside the width (`-001`), a wider
    /// part with all its digits. What dates of birth and day keys are written with.
    /// - Parameters:
    ///   - year: The year (proleptic Gregorian).
    ///   - month: The month, 1–12.
    ///   - day: The day of the month, 1–31.
    package static func string(year: Int, month: Int, day: Int) -> String {
        field(year, width: 4) + "-" + field(month, width: 2) + "-" + field(day, width: 2)
    }

    /// A wall-clock time as `YYYY-MM-DDThh:mm`, what a browser's `datetime-local` field shows
    /// (no seconds, no zone), each part written as C's `%04d`/`%02d` writes it (see
    /// ``string(year:month:day:)``).
    /// - Parameters:
    ///   - year: The year (proleptic Gregorian).
    ///   - month: The month, 1–12.
    ///   - day: The day of the month, 1–31.
    ///   - hour: The hour, 0–23.
    ///   - minute: The minute, 0–59.
    package static func string(year: Int, month: Int, day: Int, hour: Int, minute: Int) -> String {
        string(year: year, month: month, day: day) + "T" + field(hour, width: 2) + ":" + field(minute, width: 2)
    }

    /// The UTC calendar day of `seconds` since 1970-01-01T00:00:00Z as `YYYY-MM-DD` (the date part
    /// of ``string(secondsSince1970:)``); not finite, or beyond what a day count holds: the number
    /// itself.
    package static func dayString(secondsSince1970 seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        let days = Int(seconds.rounded(.down)).quotientAndRemainder(dividingBy: 86_400)
        let civil = CivilCalendar.civilDate(daysSinceEpoch: days.remainder < 0 ? days.quotient - 1 : days.quotient)
        return string(year: civil.year, month: civil.month, day: civil.day)
    }

    /// `value` as `%0<width>d` writes it: zero-padded to `width` characters, the sign counted.
    private static func field(_ value: Int, width: Int) -> String {
        let sign = value < 0 ? "-" : ""
        let digits = String(value.magnitude)
        let padding = max(0, width - sign.count - digits.count)
        return sign + String(repeating: "0", count: padding) + digits
    }

    /// Appends `seconds` since 1970-01-01T00:00:00Z as UTF-8 `YYYY-MM-DDThh:mm:ssZ`, or with
    /// `.SSS` before the `Z` when `millisecond` (0–999) is given; a year outside 0000–9999 is
    /// written with all its digits, or its sign (`-0001`).
    /// - Parameters:
    ///   - seconds: Whole seconds since 1970 (floor of the instant).
    ///   - millisecond: The millisecond within that second, or nil to write none.
    ///   - bytes: Where the text is appended (a report writes its dates into its buffer).
    package static func append(secondsSince1970 seconds: Int, millisecond: Int? = nil, to bytes: inout [UInt8]) {
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let civil = CivilCalendar.civilDate(daysSinceEpoch: day)
        let fixedCount = millisecond == nil ? 20 : 24
        if (0...9999).contains(civil.year) {
            // Written digit by digit in place, not interpolated from padded pieces: reports and
            // audit entries write many.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: fixedCount) { text in
                func put(_ value: Int, digits: Int, at end: Int, then separator: UInt8) {
                    var remaining = value
                    for index in stride(from: end - 1, through: end - digits, by: -1) {
                        text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
                        remaining /= 10
                    }
                    text[end] = separator
                }
                put(civil.year, digits: 4, at: 4, then: UInt8(ascii: "-"))
                put(civil.month, digits: 2, at: 7, then: UInt8(ascii: "-"))
                put(civil.day, digits: 2, at: 10, then: UInt8(ascii: "T"))
                put(second / 3600, digits: 2, at: 13, then: UInt8(ascii: ":"))
                put(second / 60 % 60, digits: 2, at: 16, then: UInt8(ascii: ":"))
                if let millisecond {
                    put(second % 60, digits: 2, at: 19, then: UInt8(ascii: "."))
                    put(millisecond, digits: 3, at: 23, then: UInt8(ascii: "Z"))
                } else {
                    put(second % 60, digits: 2, at: 19, then: UInt8(ascii: "Z"))
                }
                bytes.append(contentsOf: UnsafeBufferPointer(text))
            }
            return
        }
        let year = civil.year < 0 ? "-" + CivilCalendar.padded(-civil.year, width: 4) : CivilCalendar.padded(civil.year, width: 4)
        var text = year + "-" + CivilCalendar.padded(civil.month, width: 2) + "-" + CivilCalendar.padded(civil.day, width: 2)
            + "T" + CivilCalendar.padded(second / 3600, width: 2) + ":" + CivilCalendar.padded(second / 60 % 60, width: 2)
            + ":" + CivilCalendar.padded(second % 60, width: 2)
        if let millisecond { text += "." + CivilCalendar.padded(millisecond, width: 3) }
        bytes.append(contentsOf: (text + "Z").utf8)
    }
}
