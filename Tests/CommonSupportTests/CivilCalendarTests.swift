import CommonSupport
import Foundation
import Testing

@Suite("The civil calendar")
struct CivilCalendarTests {
    @Test("Leap years by the Gregorian rules")
    func leapYears() {
        #expect(CivilCalendar.isLeapYear(2000))
        #expect(!CivilCalendar.isLeapYear(1900))
        #expect(CivilCalendar.isLeapYear(2024))
        #expect(!CivilCalendar.isLeapYear(2023))
        #expect(CivilCalendar.daysInMonth(2, year: 2024) == 29 && CivilCalendar.daysInMonth(2, year: 2100) == 28)
    }

    @Test("Days and dates convert both ways over ten thousand years either side of 1970")
    func roundTrip() {
        for days in stride(from: -3_000_000, through: 3_000_000, by: 997) {
            let civil = CivilCalendar.civilDate(daysSinceEpoch: days)
            #expect(CivilCalendar.daysSinceEpoch(year: civil.year, month: civil.month, day: civil.day) == days)
            #expect((1...12).contains(civil.month) && (1...CivilCalendar.daysInMonth(civil.month, year: civil.year)).contains(civil.day))
        }
    }

    @Test("The same days as Foundation's Gregorian calendar in UTC (from 1583: Foundation's calendar is Julian before the 1582 reform)")
    func agreesWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for year in stride(from: 1583, through: 9999, by: 37) {
            for month in [1, 2, 3, 7, 12] {
                let day = CivilCalendar.daysInMonth(month, year: year)
                let date = try #require(calendar.date(from: DateComponents(year: year, month: month, day: day)))
                #expect(CivilCalendar.daysSinceEpoch(year: year, month: month, day: day) == Int((date.timeIntervalSince1970 / 86_400).rounded(.down)),
                        "\(year)-\(month)-\(day)")
            }
        }
        #expect(CivilCalendar.padded(7, width: 3) == "007" && CivilCalendar.padded(12345, width: 4) == "12345")
    }
}
