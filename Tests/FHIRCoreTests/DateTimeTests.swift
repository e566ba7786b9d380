import CommonSupport
import Foundation
import Testing
@testable import FHIRCore
import TestSupport

@Suite("Dates and times")
struct DateTimeTests {
    // MARK: FHIRDate

    @Test(arguments: ["2024", "0001", "9999", "1000", "2024-02", "2024-02-29", "2000-02-29", "1999-12-31", "0100-01-01"])
    func datesRoundTrip(_ text: String) throws {
        let date = try FHIRDate(text)
        #expect(date.description == text)
        #expect(try FHIRDate(fhirJSON: .string(text)) == date)
        #expect(date.fhirJSON == .string(text))
        #expect(try DateTime(text).description == text)
    }

    @Test(arguments: [
        "", "0000", "202", "20245", "2024-", "2024-1", "2024-13", "2024-00", "2024-02-30", "2023-02-29", "1900-02-29",
        "2024-04-31", "2024-01-00", "2024-01-32", "2024-01-01T", "2024-01-01 ", "+2024", "2024/01/01", "２０２４",
    ])
    func invalidDatesAreRejected(_ text: String) {
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDate(text) }
    }

    @Test func dateComponents() throws {
        let date = FHIRDate("2024-03")
        #expect(date.year == 2024 && date.month == 3 && date.day == nil && !date.isFullDate)
        #expect(try FHIRDate(validatingYear: 2024, month: 2, day: 29).description == "2024-02-29")
        #expect(try FHIRDate(validatingYear: 7).description == "0007")
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDate(validatingYear: 2023, month: 2, day: 29) }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDate(validatingYear: 2023, month: nil, day: 1) }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDate(validatingYear: 10_000) }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRDate(validatingYear: 0) }
        // FHIRModels' initializer does not throw: it drops what cannot be a month or a day, and
        // isValid tells the rest.
        #expect(FHIRDate(year: 2024, month: 2, day: 29).description == "2024-02-29")
        #expect(FHIRDate(year: 2024, month: 13, day: 1).description == "2024")
        #expect(FHIRDate(year: 2024, month: nil, day: 1).day == nil)
        #expect(!FHIRDate(year: 2023, month: 2, day: 29).isValid && FHIRDate(year: 2023, month: 2, day: 28).isValid)
        #expect(FHIRDate(year: 10_000).asDate() == nil && FHIRDate(year: .max).asDate() == nil)
        var mutable = FHIRDate(year: 2024, month: 1)
        mutable.month = 14
        #expect(mutable.month == 1)
        mutable.day = 31
        #expect(mutable.description == "2024-01-31")
        #expect(throws: FHIRPrimitiveError(type: "date", reason: "expected a string, found number")) {
            try FHIRDate(fhirJSON: .number("2024"))
        }
    }

    // MARK: FHIRTime

    @Test func times() throws {
        for text in ["00:00:00", "23:59:59", "12:30:60", "08:15:00.5", "08:15:00.500", "08:15:00.123456789012"] {
            #expect(try FHIRTime(text).description == text)
            #expect(try FHIRTime(fhirJSON: .string(text)).fhirJSON == .string(text))
        }
        let time = FHIRTime("08:15:07.500")
        #expect((time.hour, time.minute, time.wholeSeconds, time.fraction) == (8, 15, 7, "500"))
        #expect(time.second == Decimal(string: "7.5") && time.originalSecondsString == "07.500")
        let expectedSeconds: Double = 29_707.5
        #expect(time.secondsSinceMidnight == expectedSeconds)
        for text in ["24:00:00", "23:60:00", "23:59:61", "8:15:00", "08:15", "08:15:00.", "08:15:00Z", "08:15:00+01:00", "08-15-00", ""] {
            #expect(throws: FHIRPrimitiveError.self) { try FHIRTime(text) }
        }
        #expect(try FHIRTime(hour: 1, minute: 2, second: 3, fraction: "04").description == "01:02:03.04")
        #expect(throws: FHIRPrimitiveError.self) { try FHIRTime(hour: 1, minute: 2, second: 3, fraction: "") }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRTime(hour: 1, minute: 2, second: 3, fraction: "1a") }
        #expect(throws: FHIRPrimitiveError.self) { try FHIRTime(hour: 24, minute: 0, second: 0, fraction: nil) }
        // FHIRModels' initializer: seconds as a Decimal, not checked.
        #expect(FHIRTime(hour: 12, minute: 33, second: 54).description == "12:33:54")
        let fractional = FHIRTime(hour: 12, minute: 33, second: try #require(Decimal(string: "54.6543")))
        #expect(fractional.description == "12:33:54.6543" && fractional.fraction == "6543")
        #expect(!FHIRTime(hour: 24, minute: 0, second: 0).isValid && FHIRTime(hour: 23, minute: 0, second: 0).isValid)
        var changed = fractional
        changed.second = -1
        #expect(changed == fractional)
    }

    // MARK: FHIRTimeZone

    @Test func timeZones() throws {
        #expect(try FHIRTimeZone("Z") == .utc)
        #expect(try FHIRTimeZone("+00:00") == .offset(sign: .plus, hours: 0, minutes: 0))
        #expect(try FHIRTimeZone("-00:00") == .offset(sign: .minus, hours: 0, minutes: 0))
        for text in ["Z", "+00:00", "-00:00", "+14:00", "-14:00", "+05:30", "-09:45", "+13:59"] {
            #expect(try FHIRTimeZone(text).description == text)
        }
        #expect(try FHIRTimeZone("-05:30").secondsFromGMT == -19_800)
        #expect(try FHIRTimeZone("+14:00").secondsFromGMT == 50_400)
        #expect(try FHIRTimeZone("-00:00").secondsFromGMT == 0)
        for text in ["+14:01", "-14:30", "+15:00", "+12:60", "+1:00", "+0100", "z", "UTC", "", "+01:00 "] {
            #expect(throws: FHIRPrimitiveError.self) { try FHIRTimeZone(text) }
        }
        #expect(FHIRTimeZone(secondsFromGMT: 0) == .utc)
        #expect(FHIRTimeZone(secondsFromGMT: -3600) == .offset(sign: .minus, hours: 1, minutes: 0))
        #expect(FHIRTimeZone(secondsFromGMT: 30) == nil)
        #expect(FHIRTimeZone(secondsFromGMT: 15 * 3600) == nil)
        #expect(FHIRTimeZone(secondsFromGMT: .min) == nil)
        #expect(FHIRTimeZone(secondsFromGMT: .max) == nil)
        #expect(FHIRTimeZone.offset(sign: .plus, hours: 14, minutes: 1).isValid == false)
        #expect(try FHIRTimeZone("+05:30").timeZone?.secondsFromGMT() == 19_800)
    }

    // MARK: DateTime

    @Test(arguments: [
        "2024", "2024-02", "2024-02-29", "2024-02-29T13:45:00Z", "2024-02-29T13:45:00.123+05:30",
        "2016-12-31T23:59:60Z", "2024-01-01T00:00:00-00:00", "2024-01-01T00:00:00+00:00", "2024-06-01T12:00:00.1-14:00",
        "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59.9999999999-09:30",
    ])
    func dateTimesRoundTrip(_ text: String) throws {
        let value = try DateTime(text)
        #expect(value.description == text)
        #expect(value.fhirJSON == .string(text))
        #expect(try DateTime(fhirJSON: .string(text)) == value)
    }

    @Test(arguments: [
        "2024-02-30", "2024-13", "2024-01-01T24:00:00Z", "2024-01-01T13:45:00", "2024-01-01T13:45Z", "2024-01-01T13:45:00+14:01",
        "2024-01-01T13:45:00+1400", "2024-01-01T13:45:00.Z", "2024T13:45:00Z", "2024-01T13:45:00Z", "2024-01-01t13:45:00Z",
        "2024-01-01T13:45:00z", "2024-01-01T13:45:00ZZ", "2024-01-01T13:45:61Z", "2024-01-01T13:45:00Z ", " 2024",
        "2024-01-01Z", "2024-01-01+01:00", "",
    ])
    func invalidDateTimesAreRejected(_ text: String) {
        #expect(throws: FHIRPrimitiveError.self) { try DateTime(text) }
    }

    @Test func errorsNameTheProblemNotTheText() {
        let cases: [(String, String)] = [
            ("2023-02-29", "day does not exist in that month"),
            ("2024-13-01", "month is out of range (01-12)"),
            ("2024-01-01T10:00:00", "a time requires a time zone"),
            ("2024-01-01T10:00:00+14:01", "time zone offset is out of range (at most 14:00)"),
            ("2024-01T10:00:00Z", "a time requires a full date"),
            ("2024-01-01T24:00:00Z", "hour is out of range (00-23)"),
        ]
        for (text, reason) in cases {
            do throws(FHIRPrimitiveError) {
                _ = try DateTime(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error == FHIRPrimitiveError(type: "dateTime", reason: reason))
                #expect(!error.description.contains(text))
            }
        }
    }

    @Test func dateTimeComponentRules() throws {
        let date = FHIRDate("2024-05-06")
        let time = FHIRTime("07:08:09")
        #expect(try DateTime(date: date, time: time, zone: .utc).description == "2024-05-06T07:08:09Z")
        #expect(DateTime(date: FHIRDate("2024")).description == "2024")
        #expect(throws: FHIRPrimitiveError.self) { try DateTime(date: date, time: time, zone: nil) }
        #expect(throws: FHIRPrimitiveError.self) { try DateTime(date: date, time: nil, zone: .utc) }
        #expect(throws: FHIRPrimitiveError.self) { try DateTime(date: FHIRDate("2024-05"), time: time, zone: .utc) }
        #expect(throws: FHIRPrimitiveError.self) {
            try DateTime(date: date, time: time, zone: .offset(sign: .plus, hours: 15, minutes: 0))
        }
        // FHIRModels' initializer takes a Foundation zone and does not throw; isValid checks.
        let minusSix = try #require(TimeZone(secondsFromGMT: -6 * 3600))
        let built = DateTime(date: date, time: time, timezone: minusSix)
        #expect(built.description == "2024-05-06T07:08:09-06:00" && built.isValid)
        #expect(built.timeZone == minusSix && built.originalTimeZoneString == "-06:00")
        #expect(!DateTime(date: date, time: time).isValid)
    }

    // MARK: Instant

    @Test func instants() throws {
        for text in ["2024-02-29T13:45:00Z", "2024-02-29T13:45:00.123+05:30", "2016-12-31T23:59:60.5-00:00"] {
            let instant = try Instant(text)
            #expect(instant.description == text)
            #expect(try Instant(fhirJSON: .string(text)).fhirJSON == .string(text))
            #expect(instant.dateTime.description == text)
        }
        for text in ["2024", "2024-02", "2024-02-29", "2024-02-29T13:45:00", "2024-02-29T13:45Z", "2024-02-30T13:45:00Z", "2024-02-29T13:45:00+14:30"] {
            #expect(throws: FHIRPrimitiveError.self) { try Instant(text) }
        }
        #expect(throws: FHIRPrimitiveError.self) {
            try Instant(date: FHIRDate("2024"), time: FHIRTime("00:00:00"), zone: .utc)
        }
    }

    // MARK: Foundation dates

    @Test func asDateGivesStartOfPeriod() throws {
        #expect(FHIRDate("1970").asDate() == Date(timeIntervalSince1970: 0))
        #expect(FHIRDate("2000-03").asDate() == Date(timeIntervalSince1970: 951_868_800))
        #expect(DateTime("2000-03-01").asDate() == Date(timeIntervalSince1970: 951_868_800))
        #expect(DateTime("2000-03-01T01:00:00+01:00").asDate() == Date(timeIntervalSince1970: 951_868_800))
        #expect(DateTime("2000-02-29T19:00:00-05:00").asDate() == Date(timeIntervalSince1970: 951_868_800))
        #expect(Instant("2000-03-01T00:00:00.250Z").asDate() == Date(timeIntervalSince1970: 951_868_800.25))
        #expect(Instant("0001-01-01T00:00:00Z").asDate() == Date(timeIntervalSince1970: -62_135_596_800))
        // A leap second is the first second of the next minute.
        #expect(Instant("2016-12-31T23:59:60Z").asDate() == Date(timeIntervalSince1970: 1_483_228_800))
    }

    @Test func fromFoundationDates() throws {
        let date = Date(timeIntervalSince1970: 951_868_800.25)
        #expect(DateTime(date).description == "2000-03-01T00:00:00.250Z")
        #expect(Instant(date).description == "2000-03-01T00:00:00.250Z")
        #expect(FHIRDate(date).description == "2000-03-01")
        let newYork = try #require(TimeZone(secondsFromGMT: -5 * 3600))
        #expect(DateTime(date, timeZone: newYork).description == "2000-02-29T19:00:00.250-05:00")
        #expect(FHIRDate(date, timeZone: newYork).description == "2000-02-29")
        #expect(DateTime(Date(timeIntervalSince1970: 0)).description == "1970-01-01T00:00:00Z")
        let india = try #require(TimeZone(secondsFromGMT: 19_800))
        #expect(Instant(Date(timeIntervalSince1970: 0), timeZone: india).description == "1970-01-01T05:30:00+05:30")
        // Clamped instead of trapping.
        #expect(DateTime(Date(timeIntervalSince1970: 1e300)).description == "9999-12-31T23:59:59.999Z")
        #expect(DateTime(Date(timeIntervalSince1970: -1e300)).description == "0001-01-01T00:00:00Z")
        #expect(DateTime(Date(timeIntervalSince1970: .nan)).description == "1970-01-01T00:00:00Z")
        #expect(DateTime(Date(timeIntervalSince1970: -0.001)).description == "1969-12-31T23:59:59.999Z")
    }

    @Test func randomFoundationDatesRoundTrip() throws {
        var rng = SplitMix64(seed: 0xDA7E)
        for _ in 0..<3_000 {
            let milliseconds = rng.int(-62_135_596_800_000...253_402_300_799_999)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let offset = rng.int(-56...56) * 15 * 60
            let zone = try #require(TimeZone(secondsFromGMT: offset))
            let value = Instant(date, timeZone: zone)
            let reparsed = try Instant(value.description)
            #expect(reparsed == value)
            let back = try #require(reparsed.asDate())
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005)
            #expect(value.zone.secondsFromGMT == offset && value.timeZone.secondsFromGMT() == offset)
        }
    }

    // MARK: Random lexical forms

    @Test func randomDateTimesRoundTripAtEveryPrecision() throws {
        var rng = SplitMix64(seed: 0x71AE)
        for _ in 0..<10_000 {
            let year = rng.int(1...9999)
            let month = rng.int(1...12)
            let day = rng.int(1...CivilCalendar.daysInMonth(month, year: year))
            var text = CivilCalendar.padded(year, width: 4)
            let precision = rng.int(0...3)
            if precision >= 1 { text += "-" + CivilCalendar.padded(month, width: 2) }
            if precision >= 2 { text += "-" + CivilCalendar.padded(day, width: 2) }
            if precision == 3 {
                text += "T" + CivilCalendar.padded(rng.int(0...23), width: 2) + ":" + CivilCalendar.padded(rng.int(0...59), width: 2)
                    + ":" + CivilCalendar.padded(rng.int(0...60), width: 2)
                if rng.chance(0.5) { text += "." + rng.digits(rng.int(1...12)) }
                text += randomZone(&rng)
            }
            let value = try DateTime(text)
            #expect(value.description == text)
            if precision == 3 {
                #expect(try Instant(text).description == text)
                #expect(value.asDate() != nil)
            } else {
                #expect(throws: FHIRPrimitiveError.self) { try Instant(text) }
                #expect(try FHIRDate(text).description == text)
            }
        }
    }

    @Test func randomCorruptionsNeverCrash() {
        var rng = SplitMix64(seed: 0xBAD)
        let alphabet = Array("0123456789-:T.Z+ ".utf8)
        for _ in 0..<20_000 {
            var bytes = Array("2024-02-29T13:45:00.123+05:30".utf8)
            for _ in 0..<rng.int(1...3) {
                let position = rng.int(0...(bytes.count - 1))
                switch rng.int(0...2) {
                case 0: bytes[position] = alphabet[rng.int(0...(alphabet.count - 1))]
                case 1: bytes.removeSubrange(position...)
                default: bytes.insert(alphabet[rng.int(0...(alphabet.count - 1))], at: position)
                }
                if bytes.isEmpty { break }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let value = try? DateTime(text) {
                #expect(value.description == text)
            }
            if let value = try? Instant(text) {
                #expect(value.description == text)
            }
        }
    }

    private func randomZone(_ rng: inout SplitMix64) -> String {
        switch rng.int(0...3) {
        case 0: return "Z"
        case 1: return rng.chance(0.5) ? "+00:00" : "-00:00"
        case 2: return (rng.chance(0.5) ? "+" : "-") + "14:00"
        default:
            return (rng.chance(0.5) ? "+" : "-") + CivilCalendar.padded(rng.int(0...13), width: 2) + ":"
                + CivilCalendar.padded(rng.int(0...59), width: 2)
        }
    }
}

@Suite("Temporal values read in place from a tape")
struct TemporalTapeDecodingTests {
    static let texts = [
        "2013-08-10T04:44:29.043+00:00", "2013-08-10T04:44:29-04:00", "2013-08-10", "2013-08", "2013",
        "2013-08-10T04:44:29Z", "04:44:29", "04:44:29.5", "2013-13-01", "2013-08-10T25:00:00Z", "2013-08-10T04:44",
        "", "x", "2013-08-10T04:44:29.043+14:01", "2013-08-10 04:44:29Z", "2013-08-10T04:44:29.043+00:00 ",
    ]

    /// Each text as a plain JSON string, with its first character escaped, and as a number.
    static func documents(_ text: String) -> [String] {
        let escaped = text.isEmpty ? "" : String(format: "\\u%04X", text.unicodeScalars.first!.value) + text.dropFirst()
        return ["[\"\(text)\"]", "[\"\(escaped)\"]", "[20130810]"]
    }

    static func outcome<T: FHIRPrimitiveValue>(_ body: () throws(FHIRPrimitiveError) -> T) -> Result<T, FHIRPrimitiveError> {
        do throws(FHIRPrimitiveError) { return .success(try body()) } catch { return .failure(error) }
    }

    @Test("dateTime, instant, date and time give the same value or error as decoding the string", arguments: texts)
    func sameAsString(text: String) throws {
        for document in Self.documents(text) {
            let tape = try JSONTape(Array(document.utf8))
            let value = tape.scalar(at: 1)
            #expect(Self.outcome { () throws(FHIRPrimitiveError) in try DateTime(fhirJSON: tape, node: 1) }
                == Self.outcome { () throws(FHIRPrimitiveError) in try DateTime(fhirJSON: value) })
            #expect(Self.outcome { () throws(FHIRPrimitiveError) in try Instant(fhirJSON: tape, node: 1) }
                == Self.outcome { () throws(FHIRPrimitiveError) in try Instant(fhirJSON: value) })
            #expect(Self.outcome { () throws(FHIRPrimitiveError) in try FHIRDate(fhirJSON: tape, node: 1) }
                == Self.outcome { () throws(FHIRPrimitiveError) in try FHIRDate(fhirJSON: value) })
            #expect(Self.outcome { () throws(FHIRPrimitiveError) in try FHIRTime(fhirJSON: tape, node: 1) }
                == Self.outcome { () throws(FHIRPrimitiveError) in try FHIRTime(fhirJSON: value) })
        }
    }
}
