import Foundation
@testable import health
import Testing
import TestSupport

@Suite("Dates as the CLI prints them")
struct DateFormattingTests {
    @Test("isoDate writes what Foundation's ISO 8601 style writes, for random instants over 1583-9999")
    func matchesFoundation() {
        var generator = SplitMix64(seed: 0x150)
        for _ in 0..<5_000 {
            let seconds = Double(generator.int(-12_212_553_600...253_402_300_799)) + (generator.chance(0.5) ? 0.75 : 0)
            let date = Date(timeIntervalSince1970: seconds)
            #expect(isoDate(date) == date.formatted(.iso8601), "\(seconds)")
        }
        #expect(isoDate(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(isoDate(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
    }

    @Test("a date no day count holds (a card's exp or nbf of ±1e19 s verifies and is stored) is written as its seconds, not a trap in Int(_:)")
    func datesBeyondADayCount() {
        #expect(isoDate(Date(timeIntervalSince1970: 1e19)) == "1e+19")
        #expect(isoDate(Date(timeIntervalSince1970: -1e19)) == "-1e+19")
        #expect(isoDate(Date(timeIntervalSince1970: 9.3e18)) == "9.3e+18")
        #expect(isoDate(Date(timeIntervalSince1970: .infinity)) == "inf")
        #expect(isoDate(Date(timeIntervalSince1970: 1e15)) == "\(1e15)")
        #expect(isoDate(Date(timeIntervalSince1970: 1e15 - 1)).hasSuffix("T01:46:39Z"))
        var bytes = Array("exp: ".utf8)
        appendISODate(Date(timeIntervalSince1970: 1e19), to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "exp: 1e+19")
    }

    @Test("parseDate reads complete instants with any zone, and refuses what is not a date")
    func parsesInstants() throws {
        var generator = SplitMix64(seed: 0x13A7)
        for _ in 0..<500 {
            let seconds = generator.int(-12_212_553_600...253_402_300_799)
            let offset = generator.int(-(14 * 60 + 59)...(14 * 60 + 59))
            let magnitude = abs(offset)
            var text = Date(timeIntervalSince1970: TimeInterval(seconds + offset * 60)).formatted(.iso8601)
            text.removeLast()
            text += (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
            #expect(try parseDate(text) == Date(timeIntervalSince1970: TimeInterval(seconds)), "\(text)")
        }
        #expect(try parseDate("2024-02-29T12:30:45-05:30") == Date(timeIntervalSince1970: 1_709_229_645))
        #expect(try parseDate("2025-01-01T00:00:00Z") == Date(timeIntervalSince1970: 1_735_689_600))
        #expect(try parseDate(" 2025-01-01T00:00:00Z") == Date(timeIntervalSince1970: 1_735_689_600))
        for text in ["", "yesterday", "2025-01-0x", "12:00"] {
            #expect(throws: (any Error).self, "\(text)") { try parseDate(text) }
        }
    }

    @Test("health shc verify --json writes dates in the proleptic Gregorian calendar, before 1582 as after (not Foundation's Julian dates)")
    func shcReportDates() throws {
        let dates = [Date(timeIntervalSince1970: -14_826_628_800),   // 1500-03-01T12:00:00Z
                     Date(timeIntervalSince1970: -28_502_721_000),   // 1066-10-14T09:30:00Z
                     Date(timeIntervalSince1970: 1_893_553_445),     // 2030-01-02T03:04:05Z
                     Date(timeIntervalSince1970: 1_893_553_445.75)]  // fractions dropped, as isoDate does
        let json = String(decoding: try ShcReportWriter.makeEncoder().encode(dates), as: UTF8.self)
        #expect(json == #"""
            [
              "1500-03-01T12:00:00Z",
              "1066-10-14T09:30:00Z",
              "2030-01-02T03:04:05Z",
              "2030-01-02T03:04:05Z"
            ]
            """#)
        var generator = SplitMix64(seed: 0x1582)
        for _ in 0..<1_000 {
            let date = Date(timeIntervalSince1970: Double(generator.int(-62_135_596_800...253_402_300_799)))
            #expect(try ShcReportWriter.makeEncoder().encode(date) == Data("\"\(isoDate(date))\"".utf8))
        }
    }

    @Test("records show writes a date of birth's parts as %04d-%02d-%02d would, without String(format:)")
    func birthText() {
        #expect(RecordsFormatter.birthText(DateComponents(year: 1984, month: 2, day: 29)) == "1984-02-29")
        #expect(RecordsFormatter.birthText(DateComponents(year: 1984, month: 2)) == "1984-02")
        #expect(RecordsFormatter.birthText(DateComponents(year: 1984)) == "1984")
        #expect(RecordsFormatter.birthText(DateComponents(year: 5, month: 7)) == "0005-07")
        #expect(RecordsFormatter.birthText(DateComponents(year: 1500, month: 3, day: 1)) == "1500-03-01")
        #expect(RecordsFormatter.birthText(DateComponents(month: 2, day: 3)) == nil)
        #expect(RecordsFormatter.birthText(nil) == nil)
        var generator = SplitMix64(seed: 0xB127)
        for _ in 0..<2_000 {
            let year = generator.int(-99_999...99_999)
            let month = generator.chance(0.8) ? generator.int(1...12) : nil
            let day = month != nil && generator.chance(0.7) ? generator.int(1...31) : nil
            var expected = String(format: "%04d", year)
            if let month { expected += String(format: "-%02d", month) }
            if let day { expected += String(format: "-%02d", day) }
            #expect(RecordsFormatter.birthText(DateComponents(year: year, month: month, day: day)) == expected)
        }
    }
}
