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

    @Test("ISOInstant reads what Foundation's ISO 8601 strategy reads, and leaves every other form to it")
    func instantsMatchFoundation() throws {
        var generator = SplitMix64(seed: 0x13A7)
        for _ in 0..<5_000 {
            let seconds = generator.int(-12_212_553_600...253_402_300_799)
            let offset = generator.chance(0.5) ? 0 : generator.int(-(14 * 60 + 59)...(14 * 60 + 59))
            var text = Date(timeIntervalSince1970: TimeInterval(seconds + offset * 60)).formatted(.iso8601)
            if offset != 0 || generator.chance(0.2) {
                let magnitude = abs(offset)
                text.removeLast()
                text += (offset < 0 ? "-" : "+") + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
            }
            let expected = try Date(text, strategy: .iso8601)
            #expect(ISOInstant.parse(text) == expected, "\(text)")
            #expect(try parseDate(text) == expected)
        }
        for text in ["2025-01-01", "2025-01-01T00:00", "2025-01-01T00:00:00.5Z", " 2025-01-01T00:00:00Z", "2025-01-01t00:00:00Z",
                     "2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-01-01T24:00:00Z", "2025-01-01T00:00:60Z",
                     "0000-01-01T00:00:00Z", "2025-01-01T00:00:00+0100", "2025-01-01T00:00:00+15:00", "now", "", "2025-01-0１T00:00:00Z"] {
            #expect(ISOInstant.parse(text) == nil, "\(text)")
        }
        #expect(ISOInstant.parse("2024-02-29T12:30:45-05:30") == Date(timeIntervalSince1970: 1_709_229_645))
        #expect(try parseDate(" 2025-01-01T00:00:00Z") == Date(timeIntervalSince1970: 1_735_689_600))   // Foundation's path
    }
}
