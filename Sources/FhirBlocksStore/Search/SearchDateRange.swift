import CommonSupport

/// A closed range of instants in milliseconds since 1970 UTC: how search compares dates. A
/// partial date is the range it covers (`2020` is all of 2020, `2020-03-01T10:00` that
/// minute); a Period is from its start's low to its end's high, open where absent.
public struct SearchDateRange: Sendable, Hashable {
    /// The first millisecond in the range (`Int64.min` when unbounded).
    public var low: Int64
    /// The last millisecond in the range (`Int64.max` when unbounded).
    public var high: Int64

    /// A range.
    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }

    /// The range a FHIR date, dateTime or instant covers; nil when the text is not one. A
    /// time without a zone is taken as UTC.
    public init?(fhir text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + digits)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func skip(_ ascii: Character) -> Bool {
            guard index < bytes.count, bytes[index] == ascii.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4) else { return nil }
        var month = 1, day = 1
        var unit: Int64 = 0   // the length of the range in ms; 0 until known
        var monthGiven = false, dayGiven = false
        if skip("-") {
            guard let value = number(2), (1...12).contains(value) else { return nil }
            month = value
            monthGiven = true
            if skip("-") {
                guard let value = number(2), (1...CivilCalendar.daysInMonth(month, year: year)).contains(value) else { return nil }
                day = value
                dayGiven = true
            }
        }
        let days = Int64(CivilCalendar.daysSinceEpoch(year: year, month: month, day: day))
        var start = days * 86_400_000
        guard index < bytes.count else {
            let end: Int64
            if dayGiven {
                end = start + 86_400_000
            } else if monthGiven {
                end = start + Int64(CivilCalendar.daysInMonth(month, year: year)) * 86_400_000
            } else {
                end = Int64(CivilCalendar.daysSinceEpoch(year: year + 1, month: 1, day: 1)) * 86_400_000
            }
            self.init(low: start, high: end - 1)
            return
        }
        guard dayGiven, skip("T"), let hour = number(2), hour < 24, skip(":"), let minute = number(2), minute < 60 else { return nil }
        start += Int64(hour * 3_600_000 + minute * 60_000)
        unit = 60_000
        if skip(":") {
            guard let second = number(2), second < 60 else { return nil }
            start += Int64(second * 1000)
            unit = 1000
            if skip(".") {
                var scale: Int64 = 100
                var fraction: Int64 = 0
                var digits = 0
                while index < bytes.count, (48...57).contains(bytes[index]) {
                    if scale > 0 { fraction += Int64(bytes[index] - 48) * scale }
                    scale /= 10
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { return nil }
                start += fraction
                unit = 1
            }
        }
        if skip("Z") {
            // UTC
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            guard let hours = number(2), hours <= 14, skip(":"), let minutes = number(2), minutes < 60 else { return nil }
            start -= sign * Int64(hours * 3_600_000 + minutes * 60_000)
        }
        guard index == bytes.count else { return nil }
        self.init(low: start, high: start + unit - 1)
    }
}
