/// Instants as people read them in messages: ISO 8601 in UTC to the second
/// (`2023-06-22T16:19:24Z`), never a count of seconds since 1970.
package enum ISODateText {
    /// `seconds` since 1970-01-01T00:00:00Z as `YYYY-MM-DDThh:mm:ssZ` (fractions dropped); a
    /// year past 9999 is written with all its digits. Not finite, or beyond what a day count
    /// holds: the number itself.
    package static func string(secondsSince1970 seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)" }
        let whole = Int(seconds.rounded(.down))
        let (days, secondOfDay) = whole.quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let civil = CivilCalendar.civilDate(daysSinceEpoch: day)
        let year = civil.year < 0 ? "-" + CivilCalendar.padded(-civil.year, width: 4) : CivilCalendar.padded(civil.year, width: 4)
        return year + "-" + CivilCalendar.padded(civil.month, width: 2) + "-" + CivilCalendar.padded(civil.day, width: 2)
            + "T" + CivilCalendar.padded(second / 3600, width: 2) + ":" + CivilCalendar.padded(second / 60 % 60, width: 2)
            + ":" + CivilCalendar.padded(second % 60, width: 2) + "Z"
    }
}
