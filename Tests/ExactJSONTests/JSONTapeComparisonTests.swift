import ExactJSON
import Testing
import TestSupport

/// The tape's member lookups and string comparisons, which compare bytes in place, held to
/// comparing the decoded `String`s, with names written plainly or with `\u` escapes.
@Suite("JSONTape member lookups and string comparisons (property)")
struct JSONTapeComparisonTests {
    /// Names that differ in length, in their first, middle or last byte, around the 8-byte word
    /// the comparison reads at a time, and outside ASCII.
    static let pool = ["a", "b", "ab", "ba", "abcdefg", "abcdefgh", "abcdefgi", "abcdefghi", "xbcdefghi", "abcdefghijklmnop",
                       "abcdefghijklmnoq", "resourceType", "resourceTypf", "verifiableCredential", "verifiableCredentiaL", "é", "e", ""]
    static let lookups: [StaticString] = ["a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "resourceType",
                                          "verifiableCredential", "é", "", "absent"]

    /// `text` as a JSON string's content, each character written plainly or as a `\u` escape.
    static func written(_ text: String, rng: inout SplitMix64) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if rng.chance(0.4) {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    @Test("memberValue, stringEquals, stringsEqual and stringHasPrefix agree with Strings")
    func agreeWithStrings() throws {
        var rng = SplitMix64(seed: 0x5EED_0013)
        for _ in 0..<400 {
            var keys: [String] = []
            for _ in 0..<rng.int(0...8) {
                let key = Self.pool[rng.below(Self.pool.count)]
                if !keys.contains(key) { keys.append(key) }
            }
            let members = keys.enumerated().map { "\"\(Self.written($1, rng: &rng))\":\($0)" }
            let tape = try JSONTape(Array(("{" + members.joined(separator: ",") + "}").utf8))
            var keyNodes: [Int] = []
            tape.forEachMember(of: 0) { key, _ in keyNodes.append(key) }
            #expect(keyNodes.count == keys.count)

            for name in Self.lookups {
                let expected = keys.firstIndex(of: name.description)
                let value = tape.memberValue(of: 0, named: name)
                #expect(value.map { tape.numberText(at: $0) } == expected.map { String($0) }, "\(name) in \(keys)")
                if let key = keyNodes.first { #expect(tape.memberValue(of: key, named: name) == nil) }   // not an object
            }
            for (position, node) in keyNodes.enumerated() {
                for candidate in Self.pool {
                    let equal = Array(candidate.utf8).withUnsafeBufferPointer { tape.stringEquals(node, $0) }
                    #expect(equal == (candidate == keys[position]), "\(keys[position]) against \(candidate)")
                }
                for (other, otherNode) in keyNodes.enumerated() {
                    #expect(tape.stringsEqual(node, otherNode) == (position == other))
                }
                for prefix in Self.lookups {
                    #expect(tape.stringHasPrefix(node, prefix) == Array(keys[position].utf8).starts(with: Array(prefix.description.utf8)))
                }
            }
        }
    }
}
