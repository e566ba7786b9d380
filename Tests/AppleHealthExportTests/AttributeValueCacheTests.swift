@testable import AppleHealthExport
import Foundation
import Testing
import TestSupport

/// The importer's caches by attribute bytes (``AttributeValueCache``) and the date read from bytes: a hit gives what
/// the slower path makes from the same bytes, whatever the order, eviction, absence or canonically equal spellings.
@Suite("Attribute value cache")
struct AttributeValueCacheTests {
    /// Texts that look alike: prefixes, an empty one, and é precomposed and decomposed (equal as Strings, not as bytes).
    static let texts = ["Jane’s Apple Watch", "Jane’s iPhone", "Jane", "", "Zo\u{E9}", "Zoe\u{301}", "Health Mate", "6.3.0", "16.2",
                        "<<HKDevice: 0x1>, name:Apple Watch, hardware:Watch6,2>", "<<HKDevice: 0x2>, name:Apple Watch, hardware:Watch6,2>"]

    /// What the slower path would make: the attributes' exact bytes (nil when absent).
    static func made(_ element: ExportElement, _ attributes: [String]) -> [[UInt8]?] {
        attributes.map { name in element[name].map { Array($0.utf8) } }
    }

    @Test("A lookup gives what the element's own bytes make, on 20,000 random elements", arguments: [1, 3, 16])
    func randomLookups(capacity: Int) {
        var random = SplitMix64(seed: 36_0035 + UInt64(capacity))
        let keys = ["sourceName", "sourceVersion", "device"]
        var cache = AttributeValueCache<[[UInt8]?]>(keys, capacity: capacity)
        var makes = 0
        var previous: [[UInt8]?]?
        for _ in 0..<20_000 {
            var attributes: [String: String] = ["type": "HKQuantityTypeIdentifierHeartRate", "value": String(random.int(0...200))]
            for key in keys where random.int(0...4) > 0 {
                attributes[key] = Self.texts[random.int(0...(Self.texts.count - 1))]
            }
            let element = ExportElement(name: "Record", attributes: attributes, line: 1)
            let expected = Self.made(element, keys)
            var made = false
            let value = cache.value(in: element) {
                made = true
                return Self.made(element, keys)
            }
            #expect(value == expected)
            // The same bytes as the lookup before are never made again.
            if previous == expected { #expect(!made) }
            if made { makes += 1 }
            previous = expected
        }
        // Runs of the same key are found again.
        #expect(makes < 20_000)
    }

    @Test("Canonically equal but different bytes are different keys; an absent attribute is not an empty one")
    func spellings() {
        var cache = AttributeValueCache<String>(["sourceName"])
        let precomposed = ExportElement(name: "Record", attributes: ["sourceName": "Zo\u{E9}"], line: 1)
        let decomposed = ExportElement(name: "Record", attributes: ["sourceName": "Zoe\u{301}"], line: 2)
        let empty = ExportElement(name: "Record", attributes: ["sourceName": ""], line: 3)
        let absent = ExportElement(name: "Record", attributes: ["type": "T"], line: 4)
        #expect(cache.value(in: precomposed) { "first" } == "first")
        #expect(cache.value(in: decomposed) { "second" } == "second")
        #expect(cache.value(in: empty) { "empty" } == "empty")
        #expect(cache.value(in: absent) { "absent" } == "absent")
        #expect(cache.value(in: precomposed) { "again" } == "first")
        #expect(cache.value(in: decomposed) { "again" } == "second")
        #expect(cache.value(in: empty) { "again" } == "empty")
        #expect(cache.value(in: absent) { "again" } == "absent")
    }

    @Test("An error from the slower path is thrown and nothing is kept")
    func throwingMake() {
        struct Refused: Error {}
        var cache = AttributeValueCache<Int>(["type"])
        let element = ExportElement(name: "Record", attributes: ["type": "T"], line: 1)
        #expect(throws: Refused.self) { try cache.value(in: element) { throw Refused() } }
        #expect(cache.value(in: element) { 7 } == 7)
    }

    /// The export's date format read another way, as the oracle of ``ExportValues/date(bytes:)``: the fields checked by
    /// the format's rules, the instant from Foundation's Gregorian calendar (not `CivilCalendar`), for years after 1582.
    static func foundationDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 25 else { return nil }
        func field(_ range: Range<Int>) -> Int? {
            guard bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, " "), (13, ":"), (16, ":"), (19, " ")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }), let year = field(0..<4), let month = field(5..<7),
              let day = field(8..<10), let hour = field(11..<13), let minute = field(14..<16), let second = field(17..<19),
              let offsetHours = field(21..<23), let offsetMinutes = field(23..<25), bytes[20] == UInt8(ascii: "+") || bytes[20] == UInt8(ascii: "-")
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        guard (1...12).contains(month), let first = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
              let days = calendar.range(of: .day, in: .month, for: first), days.contains(day), hour < 24, minute < 60, second < 61,
              offsetHours < 24, offsetMinutes < 60,
              let midnight = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        let offset = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[20] == UInt8(ascii: "+") ? 1 : -1)
        return midnight.addingTimeInterval(TimeInterval(hour * 3600 + minute * 60 + second - offset))
    }

    @Test("A date read from bytes is the one Foundation's calendar gives, on 20,000 random and damaged texts")
    func dateFromBytes() {
        var random = SplitMix64(seed: 36_0036)
        let alphabet = Array("0123456789-: +x\u{E9}")
        for _ in 0..<20_000 {
            func digits(_ range: ClosedRange<Int>, _ width: Int) -> String {
                let text = String(random.int(range))
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            var text = digits(1400...2100, 4) + "-" + digits(0...13, 2) + "-" + digits(0...32, 2) + " " + digits(0...24, 2) + ":"
                + digits(0...60, 2) + ":" + digits(0...61, 2) + " " + (random.int(0...1) == 0 ? "+" : "-") + digits(0...24, 2) + digits(0...60, 2)
            if random.int(0...3) == 0 {
                var characters = Array(text)
                let index = random.int(0...(characters.count - 1))
                switch random.int(0...2) {
                case 0: characters[index] = alphabet[random.int(0...(alphabet.count - 1))]
                case 1: characters.remove(at: index)
                default: characters.insert(alphabet[random.int(0...(alphabet.count - 1))], at: index)
                }
                text = String(characters)
            }
            var copy = text
            let fromBytes = copy.withUTF8(ExportValues.date(bytes:))
            // Foundation's Gregorian calendar is Julian before October 1582; the export's dates are proleptic Gregorian.
            if text.prefix(4) >= "1583" { #expect(fromBytes == Self.foundationDate(text), "\(text)") }
            let element = ExportElement(name: "Record", attributes: ["startDate": text], line: 1)
            #expect(element.withValueBytes("startDate", ExportValues.date(bytes:)) == .some(ExportValues.date(text)))
        }
        #expect(ExportValues.date("2024-01-02 03:04:05 +0100") == Date(timeIntervalSince1970: 1_704_161_045))
    }
}
