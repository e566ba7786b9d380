import CommonSupport
import Foundation

/// A FHIR `date` with its precision (year, year-month or full date), like the date-of-birth
/// components HealthKit's `HKVerifiableClinicalRecordSubject` exposes.
public struct SHCPartialDate: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The year.
    public var year: Int
    /// The month (1-12), when known.
    public var month: Int?
    /// The day of the month, when known.
    public var day: Int?

    /// Creates a date.
    public init(year: Int, month: Int? = nil, day: Int? = nil) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Reads the date part of a FHIR `date` or `dateTime` (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, then
    /// optionally `T…`). Nil when it does not start with a valid date.
    public init?(fhir text: String) {
        var text = text
        guard let date = text.withUTF8({ SHCPartialDate(fhirUTF8: $0) }) else { return nil }
        self = date
    }

    /// The same from the text's UTF-8 bytes.
    init?(fhirUTF8 text: UnsafeBufferPointer<UInt8>) {
        let count = min(text.count, 10)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= count else { return nil }
            var value = 0
            for byte in text[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4) else { return nil }
        self.year = year
        month = nil
        day = nil
        if count > 4 {
            guard text[4] == UInt8(ascii: "-"), let month = number(5..<7), (1...12).contains(month) else { return nil }
            self.month = month
            if count > 7 {
                guard text[7] == UInt8(ascii: "-"), let day = number(8..<10), (1...31).contains(day) else { return nil }
                self.day = day
            }
        }
    }

    /// The date as `DateComponents` (year, and month and day when known).
    public var dateComponents: DateComponents {
        DateComponents(year: year, month: month, day: day)
    }

    /// The first instant of the date in UTC.
    public var startDate: Date {
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month ?? 1, day: day ?? 1)
        return Date(timeIntervalSince1970: Double(days) * 86_400)
    }

    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = pad(year, 4)
        if let month { text += "-" + pad(month, 2) }
        if let day { text += "-" + pad(day, 2) }
        return text
    }
}
