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

    @Test("A calendar date is what String(format: \"%04d-%02d-%02d\") writes, for any parts (negative, wider, Int.min)")
    func dateMatchesPrintf() {
        var generator = SplitMix64(seed: 0x1510)
        let edges = [Int.min, Int.min + 1, -10_000, -1_000, -999, -10, -1, 0, 1, 9, 10, 99, 100, 999, 9_999, 10_000, Int.max]
        for _ in 0..<3_000 {
            let parts = (0..<3).map { _ in
                switch generator.below(3) {
                case 0: edges[generator.below(edges.count)]
                case 1: generator.int(-20_000...20_000)
                default: Int(truncatingIfNeeded: generator.next())
                }
            }
            #expect(ISODateText.string(year: parts[0], month: parts[1], day: parts[2])
                    == String(format: "%04ld-%02ld-%02ld", parts[0], parts[1], parts[2]), "\(parts)")
        }
        #expect(ISODateText.string(year: 1987, month: 3, day: 9) == "1987-03-09")
        #expect(ISODateText.string(year: -1, month: 1, day: 1) == "-001-01-01")
    }

    @Test("A datetime-local field's text is what String(format: \"%04d-%02d-%02dT%02d:%02d\") writes, for any parts (negative, wider)")
    func minuteMatchesPrintf() {
        var generator = SplitMix64(seed: 0x1512)
        let edges = [-10_000, -1_000, -999, -10, -1, 0, 1, 9, 10, 59, 99, 100, 999, 9_999, 10_000]
        for _ in 0..<3_000 {
            let parts = (0..<5).map { _ in generator.below(2) == 0 ? edges[generator.below(edges.count)] : generator.int(-20_000...20_000) }
            #expect(ISODateText.string(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4])
                    == String(format: "%04d-%02d-%02dT%02d:%02d", parts[0], parts[1], parts[2], parts[3], parts[4]), "\(parts)")
        }
        #expect(ISODateText.string(year: 2026, month: 11, day: 29, hour: 7, minute: 30) == "2026-11-29T07:30")
        #expect(ISODateText.string(year: 0, month: 1, day: 1, hour: 0, minute: 0) == "0000-01-01T00:00")
    }

    @Test("A UTC day is the date part of the instant's text, and what Foundation's ISO 8601 date style writes over 1583–9999")
    func dayMatchesFoundation() {
        var generator = SplitMix64(seed: 0x1511)
        for _ in 0..<3_000 {
            let milliseconds = generator.int(-12_212_553_600_000...253_402_300_799_999)
            let seconds = Double(milliseconds) / 1000
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISODateText.dayString(secondsSince1970: seconds) == date.formatted(.iso8601.year().month().day()), "\(milliseconds)")
            #expect(ISODateText.dayString(secondsSince1970: seconds) == String(ISODateText.string(secondsSince1970: seconds).prefix(10)))
        }
        #expect(ISODateText.dayString(secondsSince1970: -0.5) == "1969-12-31")
        #expect(ISODateText.dayString(secondsSince1970: .nan) == "nan")
    }
}
