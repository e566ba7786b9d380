@testable import AppleHealthExport
import Foundation
import Testing
import TestSupport

/// GPX track-point times are read by hand in the form Apple's routes write, and by Foundation's
/// formatters otherwise: the two must agree on every text, valid or not.
@Suite("GPX track-point times")
struct GPXTimeTests {
    /// What the reader gave before the hand-written path: Foundation's formatters only.
    static func formatterDate(_ text: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    static func text(seconds: Int, offsetMinutes: Int?) -> String {
        let local = seconds + (offsetMinutes ?? 0) * 60
        var (days, secondOfDay) = local.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 { days -= 1; secondOfDay += 86_400 }
        let civil = CivilCalendarProbe.civil(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(repeating: "0", count: max(0, 4 - String(civil.year).count)) + String(civil.year)
        var text = "\(year)-\(two(civil.month))-\(two(civil.day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if let offsetMinutes {
            text += (offsetMinutes < 0 ? "-" : "+") + two(abs(offsetMinutes) / 60) + ":" + two(abs(offsetMinutes) % 60)
        } else {
            text += "Z"
        }
        return text
    }

    @Test("Apple's form, in UTC and with offsets, gives the instant Foundation's formatter gives", arguments: [UInt64(1), 2])
    func plainForm(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<1_000 {
            let seconds = random.int(-2_208_988_800...4_102_444_800) // 1900 to 2100
            let offset: Int? = random.below(3) == 0 ? nil : random.int(-14 * 4...14 * 4) * 15
            let text = Self.text(seconds: seconds, offsetMinutes: offset)
            let expected = try #require(Self.formatterDate(text), "Foundation reads \(text)")
            #expect(GPXRouteReader.plainSeconds(text) == seconds, "\(text)")
            #expect(GPXRouteReader.date(text) == expected, "\(text)")
        }
    }

    @Test("Damaged and other forms read as Foundation reads them", arguments: [UInt64(3), 4])
    func damagedText(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("0123456789-+:TZtz .,".utf8)
        var fastPaths = 0
        for _ in 0..<600 {
            let seconds = random.int(0...4_102_444_800)
            var bytes = Array(Self.text(seconds: seconds, offsetMinutes: random.below(2) == 0 ? nil : 120).utf8)
            for _ in 0..<random.int(1...3) {
                switch random.below(3) {
                case 0: bytes[random.below(bytes.count)] = alphabet[random.below(alphabet.count)]
                case 1: bytes.insert(alphabet[random.below(alphabet.count)], at: random.below(bytes.count))
                default: if bytes.count > 1 { bytes.remove(at: random.below(bytes.count)) }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if GPXRouteReader.plainSeconds(text) != nil { fastPaths += 1 }
            #expect(GPXRouteReader.date(text) == Self.formatterDate(text), "\(text)")
        }
        #expect(fastPaths > 0)
        for text in ["2020-10-04T07:31:00.250Z", "2020-02-30T07:31:00Z", "1500-10-04T07:31:00Z", "2020-10-04T24:00:00Z", "2020-10-04T07:31:00+02"] {
            #expect(GPXRouteReader.plainSeconds(text) == nil, "\(text)")
            #expect(GPXRouteReader.date(text) == Self.formatterDate(text), "\(text)")
        }
    }
}

/// Howard Hinnant's `civil_from_days`, written again here so the test does not check the reader
/// with its own calendar code.
enum CivilCalendarProbe {
    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

@Suite("GPX element text trimmed")
struct GPXTextTrimTests {
    @Test("Trimming gives what Foundation's trimmingCharacters gives, Unicode white space included", arguments: [UInt64(5), 6])
    func sameAsFoundation(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = [" ", "\n", "\t", "\r", "\u{00A0}", "\u{2028}", "\u{0085}", "\u{3000}", "a", "7", "-", ":", "Z", "é", "\u{1F600}", "."]
        for _ in 0..<2_000 {
            let text = (0..<random.int(0...8)).map { _ in pieces[random.below(pieces.count)] }.joined()
            #expect(GPXRouteReader.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
        }
    }
}
