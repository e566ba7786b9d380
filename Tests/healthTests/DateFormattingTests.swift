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
}
