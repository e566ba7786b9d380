import CommonSupport
import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate and the two obsolete forms a
/// recipient must still accept. Parsed by hand, without locale-dependent formatters.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Parses `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` or
    /// `Sun Nov  6 08:49:37 1994`; nil for anything else.
    static func parse(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == "\t" }).map(String.init)
        let day: Int, month: Int, year: Int, time: String
        switch tokens.count {
        case 6 where tokens[5] == "GMT":
            // IMF-fixdate or RFC 850: weekday, day, month, year, time, GMT.
            guard let parsedDay = Int(tokens[1]), let parsedMonth = monthNumber(tokens[2]),
                  let parsedYear = Int(tokens[3]), tokens[3].count == 4 || tokens[3].count == 2 else { return nil }
            day = parsedDay
            month = parsedMonth
            // RFC 850 two-digit years: 70–99 are 19xx, 00–69 are 20xx.
            year = tokens[3].count == 2 ? (parsedYear >= 70 ? 1900 + parsedYear : 2000 + parsedYear) : parsedYear
            time = tokens[4]
        case 5:
            // asctime: weekday, month, day, time, year.
            guard let parsedMonth = monthNumber(tokens[1]), let parsedDay = Int(tokens[2]),
                  let parsedYear = Int(tokens[4]), tokens[4].count == 4 else { return nil }
            day = parsedDay
            month = parsedMonth
            year = parsedYear
            time = tokens[3]
        default:
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (1...31).contains(day), (1...9999).contains(year) else { return nil }
        let days = CivilCalendar.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func monthNumber(_ token: String) -> Int? {
        months.firstIndex(of: token.lowercased()).map { $0 + 1 }
    }
}
