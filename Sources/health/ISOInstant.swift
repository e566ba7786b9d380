import CommonSupport
import Foundation

/// A complete ISO 8601 instant, `YYYY-MM-DDThh:mm:ss` with `Z` or `±hh:mm`, read by arithmetic.
///
/// `--at` is parsed on every `shc verify` run; Foundation's parsers and the CLI's local-time
/// formatters cost far more than the verification of a card (their first use loads ICU's
/// calendars). Text of any other form is left to ``parseDate(_:)``'s Foundation parsers.
enum ISOInstant {
    /// The instant `text` names, or nil when it is not exactly of the form above with valid
    /// fields (year 1–9999, a real day of its month, hours below 24, minutes and seconds below 60, a
    /// zone offset below 15 hours).
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 20 || bytes.count == 25 else { return nil }
            func number(_ start: Int, _ digits: Int) -> Int? {
                var value = 0
                for index in start..<start + digits {
                    let byte = bytes[index]
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                  let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  year >= 1, (1...12).contains(month), (1...CivilCalendar.daysInMonth(month, year: year)).contains(day),
                  hour < 24, minute < 60, second < 60
            else { return nil }
            var offset = 0
            if bytes.count == 20 {
                guard bytes[19] == UInt8(ascii: "Z") else { return nil }
            } else {
                let sign = bytes[19]
                guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes[22] == UInt8(ascii: ":"),
                      let hours = number(20, 2), let minutes = number(23, 2), hours < 15, minutes < 60
                else { return nil }
                offset = (hours * 60 + minutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
            let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }
}
