@testable import ModelsR4
import Testing

/// The byte checks of the string-like primitive types say exactly what the definitions' regexes say.
@Suite("Primitive patterns")
struct PrimitivePatternTests {
    static let types = ["string", "markdown", "code", "id", "uri", "url", "canonical", "oid", "uuid"]

    /// Pieces that hit each regex's edges: every Java space, digits, hex, the URN prefixes, non-ASCII.
    static let pieces = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{A0}", "\u{2003}", "a", "Z", "f", "g", "0", "1", "2", "3", "9",
                         "-", ".", ":", "/", "é", "😀", "urn:oid:", "urn:uuid:", "12345678", "abcd", "ABCD", "0123456789ab", "..", "x y",
                         String(repeating: "a", count: 60)]

    @Test("random strings: the byte checks and the regexes agree for every string-like type", arguments: types)
    func agree(_ type: String) {
        var generator = DecoderFuzzTests.SeededGenerator(state: UInt64(type.hashValue & 0xFFFF) &+ 17)
        var samples = ["", "urn:oid:1.2.840", "urn:oid:3.1", "urn:oid:1.02", "urn:oid:1.", "urn:oid:1",
                       "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e", "urn:uuid:0F8FAD5B-d9cb-469f-a165-70867728950e",
                       "a b", "a  b", " a", "a ", "a\u{0B}b", String(repeating: "a", count: 64), String(repeating: "a", count: 65)]
        for _ in 0..<4_000 {
            let count = Int(generator.next() % 6)
            samples.append((0..<count).map { _ in Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }.joined())
        }
        for text in samples {
            guard let regex = PrimitivePattern.regexMatches(text, type: type) else {
                Issue.record("\(type) has no regex")
                return
            }
            #expect(PrimitivePattern.matches(text, type: type, regexes: ElementTable.r4.regexes) == regex, "\(type): \(text.debugDescription)")
        }
    }
}

// The names these tests hold the primitive checks to: the R4 validator's table (ModelsR4's
// `FHIRValidator.elementTable`, whose checks are FHIRCore's `FHIRElementTable`).
typealias ElementTable = FHIRElementTable

extension FHIRElementTable {
    /// The R4 table.
    static var r4: FHIRElementTable { FHIRValidator.elementTable }
}

enum PrimitivePattern {
    /// Whether `text` is a valid `type` by the validator's checks (the R4 table's regexes).
    static func matches(_ text: String, type: String, regexes: [String: String]) -> Bool {
        FHIRValidator.elementTable.primitiveMatches(text, type: type)
    }

    /// Whether `text` matches `type`'s R4 regex; nil when the type has none.
    static func regexMatches(_ text: String, type: String) -> Bool? {
        FHIRValidator.elementTable.regexMatches(text, type: type)
    }
}
