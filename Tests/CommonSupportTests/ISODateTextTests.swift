import CommonSupport
import Foundation
import Testing
import TestSupport

@Suite("ISO 8601 text of instants")
struct ISODateTextTests {
    @Test("To the second as Foundation's ISO 8601 style writes it, over 1583–9999; to the millisecond, that and the three digits")
    func matchesFoundation() {
        var generator = SplitMix64(seed: 0x1509)
        for _ in 0..<3_000 {
            let milliseconds = Int64(generator.int(-12_212_553_600_000...253_402_300_799_999))
            let (seconds, millisecond) = milliseconds >= 0 ? (milliseconds / 1000, milliseconds % 1000)
                : ((milliseconds - 999) / 1000, milliseconds - (milliseconds - 999) / 1000 * 1000)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601)
            #expect(ISODateText.string(secondsSince1970: date.timeIntervalSince1970) == date.formatted(.iso8601), "\(milliseconds)")
            #expect(ISODateText.string(millisecondsSince1970: milliseconds) == whole.dropLast() + "." + CivilCalendar.padded(Int(millisecond), width: 3) + "Z",
                    "\(milliseconds)")
        }
    }

    @Test("Edges: before 1970, years beyond four digits or below zero, appending to a buffer")
    func edges() {
        #expect(ISODateText.string(millisecondsSince1970: -1) == "1969-12-31T23:59:59.999Z")
        #expect(ISODateText.string(millisecondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISODateText.string(millisecondsSince1970: 253_402_300_800_001) == "10000-01-01T00:00:00.001Z")
        #expect(ISODateText.string(millisecondsSince1970: -62_167_219_200_001) == "-0001-12-31T23:59:59.999Z")
        #expect(ISODateText.string(secondsSince1970: .infinity) == "inf")
        var bytes = Array("at ".utf8)
        ISODateText.append(secondsSince1970: 1_687_450_764, to: &bytes)
        ISODateText.append(secondsSince1970: 0, millisecond: 7, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "at 2023-06-22T16:19:24Z1970-01-01T00:00:00.007Z")
    }
}
