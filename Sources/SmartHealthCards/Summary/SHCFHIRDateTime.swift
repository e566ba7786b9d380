import Foundation

/// Reads FHIR `date`, `dateTime` and `instant` values as `Date`s (pure arithmetic, no `Calendar`).
enum SHCFHIRDateTime {
    /// `YYYY[-MM[-DD[Thh:mm[:ss[.fff]](Z|±hh:mm)]]]`. Partial dates are their first instant in UTC.
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// The same from the text's UTF-8 bytes (read in place: a summary reads several dates per card).
    private static func date(fromUTF8 utf8: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let day = SHCPartialDate(fhirUTF8: utf8) else { return nil }
        var seconds = day.startDate.timeIntervalSince1970
        guard utf8.count > 10 else { return Date(timeIntervalSince1970: seconds) }
        guard utf8.count >= 16, utf8[10] == UInt8(ascii: "T") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= utf8.count else { return nil }
            var value = 0
            for byte in utf8[start..<(start + count)] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let hour = number(11, 2), utf8[13] == UInt8(ascii: ":"), let minute = number(14, 2) else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        var index = 16
        if index < utf8.count, utf8[index] == UInt8(ascii: ":") {
            guard let second = number(index + 1, 2) else { return nil }
            seconds += Double(second)
            index += 3
            if index < utf8.count, utf8[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                while index < utf8.count, utf8[index] >= UInt8(ascii: "0"), utf8[index] <= UInt8(ascii: "9") {
                    seconds += Double(utf8[index] - UInt8(ascii: "0")) * scale
                    scale /= 10
                    index += 1
                }
            }
        }
        guard index < utf8.count else { return Date(timeIntervalSince1970: seconds) }
        switch utf8[index] {
        case UInt8(ascii: "Z"):
            guard index + 1 == utf8.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == utf8.count, let offsetHours = number(index + 1, 2), utf8[index + 3] == UInt8(ascii: ":"),
                  let offsetMinutes = number(index + 4, 2) else { return nil }
            let offset = Double(offsetHours * 3600 + offsetMinutes * 60)
            seconds += utf8[index] == UInt8(ascii: "+") ? -offset : offset
        default:
            return nil
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
