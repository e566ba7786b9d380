import ExactJSON
import Foundation
import SmartHealthCards
import Testing

/// Shapes an attacker sends to make a parser quadratic: objects with tens of thousands of members,
/// names written with escapes, a duplicate only at the very end.
@Suite("Adversarial JSON shapes in card payloads")
struct AdversarialJSONTests {
    /// `{"k0":0,"k1":1,…}` with `count` members, every name escaped when `escaped`, and the first
    /// name repeated at the end when `duplicateAtEnd`.
    static func object(count: Int, escaped: Bool, duplicateAtEnd: Bool) -> [UInt8] {
        var text = "{"
        for index in 0..<count {
            if index > 0 { text += "," }
            text += escaped ? "\"\\u006b\(index)\":\(index)" : "\"k\(index)\":\(index)"
        }
        if duplicateAtEnd { text += escaped ? ",\"k0\":0" : ",\"\\u006b0\":0" }
        return Array((text + "}").utf8)
    }

    @Test("50,000 members, escaped or not: parsed, and a duplicate spelled differently at the end is found")
    func manyMembers() throws {
        for escaped in [false, true] {
            let value = try SHCLimits.default.parseJSON(Self.object(count: 50_000, escaped: escaped, duplicateAtEnd: false))
            #expect(value["k49999"] == .number("49999"))
            #expect(throws: JSONParseError.self) { try SHCLimits.default.parseJSON(Self.object(count: 50_000, escaped: escaped, duplicateAtEnd: true)) }
        }
    }

    private func memberCount(_ value: JSONValue) -> Int? {
        if case .object(let members) = value { return members.count }
        return nil
    }

    @Test("names are compared by code points: canonically equivalent names are two members, in small and large objects")
    func codePoints() throws {
        // "é" precomposed (U+00E9) and decomposed (e + U+0301) are different names to JSON.
        let small = Array(#"{"\u00e9":1,"e\u0301":2}"#.utf8)
        #expect(memberCount(try SHCLimits.default.parseJSON(small)) == 2)
        var large = Self.object(count: 40, escaped: true, duplicateAtEnd: false)
        large.removeLast()
        large += Array(#","\u00e9":1,"e\u0301":2}"#.utf8)
        #expect(memberCount(try SHCLimits.default.parseJSON(large)) == 42)
        #expect(throws: JSONParseError.self) { try SHCLimits.default.parseJSON(Array(#"{"\u00e9":1,"é":2}"#.utf8)) }
    }
}
