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
}
