import CommonSupport
import Foundation

/// Dates as the signed content holds them: whole milliseconds since 1970, written as DER
/// GeneralizedTime text (`YYYYMMDDHHMMSS[.f{1,3}]Z`, no trailing zero in the fraction).
enum SignatureTime {
    static let earliest: Int64 = Int64(CivilCalendar.daysSinceEpoch(year: 1, month: 1, day: 1)) * 86_400_000
    static let latest: Int64 = Int64(CivilCalendar.daysSinceEpoch(year: 10_000, month: 1, day: 1)) * 86_400_000 - 1

    /// The date rounded to the nearest millisecond (clamped into the representable years, so
    /// that encoding reports them rather than overflowing).
    static func milliseconds(of date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value > 0 ? latest + 1 : earliest - 1 }
        return Int64(max(Double(earliest - 1), min(Double(latest + 1), value)))
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The DER text, or nil outside the years 1–9999.
    static func text(milliseconds: Int64) -> String? {
        guard milliseconds >= earliest, milliseconds <= latest else { return nil }
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        let (year, month, day) = CivilCalendar.civilDate(daysSinceEpoch: Int(days))
        let seconds = Int(inDay / 1000), fraction = Int(inDay % 1000)
        var text = CivilCalendar.padded(year, width: 4) + CivilCalendar.padded(month, width: 2) + CivilCalendar.padded(day, width: 2)
            + CivilCalendar.padded(seconds / 3600, width: 2) + CivilCalendar.padded(seconds / 60 % 60, width: 2)
            + CivilCalendar.padded(seconds % 60, width: 2)
        if fraction > 0 {
            var digits = CivilCalendar.padded(fraction, width: 3)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    /// Parses the DER text strictly; nil for anything else (other forms, bad fields, more
    /// than three fraction digits, a trailing zero).
    static func milliseconds(text bytes: some Collection<UInt8>) -> Int64? {
        let text = Array(bytes)
        guard text.count >= 15, text.count <= 19, text.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in text[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(8..<10),
              let minute = number(10..<12), let second = number(12..<14) else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var fraction = 0
        if text.count > 15 {
            let digits = text.count - 16
            guard text[14] == UInt8(ascii: "."), (1...3).contains(digits), text[text.count - 2] != UInt8(ascii: "0"),
                  let value = number(15..<(text.count - 1)) else { return nil }
            fraction = value * (digits == 1 ? 100 : digits == 2 ? 10 : 1)
        }
        let days = Int64(CivilCalendar.daysSinceEpoch(year: year, month: month, day: day))
        return days * 86_400_000 + Int64(hour * 3600 + minute * 60 + second) * 1000 + Int64(fraction)
    }
}
