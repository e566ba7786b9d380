import FHIRCore
import Testing
import TestSupport

@Suite("FHIRObjectReader over a JSONTape")
struct FHIRObjectReaderTapeTests {
    @Test("the reader takes members once, by name, and reports the rest")
    func reader() throws {
        let tape = try JSONTape(Array(#"{"resourceType":"Patient","active":true,"_active":{"id":"a"},"extra":[1]}"#.utf8))
        var reader = FHIRObjectReader(tape: tape, node: 0)
        #expect(try reader.peekResourceType() == "Patient")
        try reader.resourceType("Patient")
        let (value, companion) = reader.take("active", "_active")
        #expect(value.map { tape.scalar(at: $0) } == .bool(true))
        #expect(companion.map { tape.kindName(at: $0) } == "object")
        #expect(reader.take("absent") == nil)
        #expect(reader.untakenMembers().map(\.key) == ["extra"])
        #expect(throws: FHIRDecodingError(path: [.key("extra")], reason: .unknownMember)) { try reader.finish() }
        var lenient = FHIRObjectReader(tape: tape, node: 0, options: .lenient)
        _ = lenient.take("active")
        try lenient.finish()
    }

    @Test("an object of more than 64 members: every member past the 64th is marked and reported too")
    func readerBeyond64Members() throws {
        let names = (0..<70).map { "m\($0)" }
        let json = "{" + names.map { "\"\($0)\":1" }.joined(separator: ",") + ",\"inner\":{\"a\":1}}"
        let tape = try JSONTape(Array(json.utf8))
        var reader = FHIRObjectReader(tape: tape, node: 0)
        for name in names where name != "m3" && name != "m66" { #expect(reader.take(name) != nil) }
        #expect(reader.take("m66") != nil)
        #expect(reader.take("m66") != nil)  // taking twice is allowed; it stays taken
        #expect(reader.untakenMembers().map(\.key) == ["m3", "inner"])
        // A reader for a nested object keeps its own marks; the outer one's are untouched.
        let taken = reader.take("inner")
        let innerValue = try #require(taken)
        var inner = try reader.nested(innerValue)
        #expect(inner.take("a") != nil)
        try inner.finish()
        #expect(throws: FHIRDecodingError(path: [.key("m3")], reason: .unknownMember)) { try reader.finish() }
        #expect(reader.take("m3") != nil)
        try reader.finish()
        // A new reader over the same object starts with no member taken.
        let fresh = FHIRObjectReader(tape: tape, node: 0)
        #expect(fresh.untakenMembers().count == 71)
    }
}

@Suite("JSONTape member names with escapes")
struct JSONTapeEscapedNameTests {
    @Test("escaped names match, filter and count as duplicates by their decoded bytes")
    func escapedNames() throws {
        let tape = try JSONTape(Array(#"{"st\u0061tus":"final","\u005fvalueString":{"id":"x"}}"#.utf8))
        var reader = FHIRObjectReader(tape: tape, node: 0)
        #expect(reader.take("status").map { tape.string(at: $0) } == "final")
        #expect(try reader.choiceKey("value", variants: ["valueString", "valueBoolean"]) == "valueString")
        #expect(throws: JSONParseError.self) { try JSONTape(Array(#"{"a":1,"\u0061":2}"#.utf8)) }
    }

    @Test("names compare as bytes, not by Unicode equivalence, in small and large objects")
    func bytesNotEquivalence() throws {
        // "é" precomposed and decomposed are different member names in JSON.
        let small = #"{"\#u{E9}":1,"e\#u{301}":2}"#
        #expect((try? JSONTape(Array(small.utf8))) != nil)
        let filler = (0..<20).map { #""k\#($0)":0"# }.joined(separator: ",")
        let large = #"{\#(filler),"\#u{E9}":1,"e\u0301":2}"#
        #expect((try? JSONTape(Array(large.utf8))) != nil)
        // The Kelvin sign is not the letter K.
        let tape = try JSONTape(Array(#"{"\u212Aey":1}"#.utf8))
        var reader = FHIRObjectReader(tape: tape, node: 0)
        #expect(reader.take("Key") == nil)
        #expect(reader.take("\u{212A}ey") != nil)
    }
}

@Suite("FHIRObjectReader member lookup")
struct FHIRObjectReaderLookupTests {
    @Test("members are found in any order: the cursor wraps around, and a member can be taken again")
    func anyOrder() throws {
        let names = (0..<12).map { "m\($0)" }
        for seed in UInt64(1)...40 {
            var random = SplitMix64(seed: seed)
            let documentOrder = names.shuffled(using: &random)
            let text = "{" + documentOrder.map { #""\#($0)":"\#($0)v""# }.joined(separator: ",") + "}"
            let tape = try JSONTape(Array(text.utf8))
            var reader = FHIRObjectReader(tape: tape, node: 0)
            let takeOrder = names.shuffled(using: &random)
            for name in takeOrder {
                let value = reader.take(name)
                #expect(value.map { tape.string(at: $0) } == name + "v")
            }
            #expect(reader.take("m3").map { tape.string(at: $0) } == "m3v")
            #expect(reader.take("m12") == nil)
            #expect(reader.take("m") == nil)
            try reader.finish()
        }
    }

    @Test("static and dynamic names find the same members, escaped names included")
    func staticNames() throws {
        let tape = try JSONTape(Array(#"{"status":"final","\u0063ode":{"text":"x"},"_status":{"id":"s"}}"#.utf8))
        var reader = FHIRObjectReader(tape: tape, node: 0)
        let (value, companion) = reader.take("status" as StaticString, "_status" as StaticString)
        #expect(value.map { tape.string(at: $0) } == "final")
        #expect(companion.map { tape.kindName(at: $0) } == "object")
        #expect(reader.take("code" as StaticString).map { tape.kindName(at: $0) } == "object")
        #expect(reader.take("cod" as StaticString) == nil)
        try reader.finish()
    }

    /// Names are compared a word at a time: every length from empty to past two words, with one
    /// byte changed at every position, must still be told apart from the name itself.
    @Test("names of every length are found, and a name differing in any one byte is not")
    func namesOfEveryLength() throws {
        var random = SplitMix64(seed: 0x4E4D)
        for length in 0...26 {
            let name = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(97 + random.below(26)))) })
            for position in 0..<max(length, 1) {
                var changed = Array(name.utf8)
                if length > 0 { changed[position] = changed[position] == UInt8(ascii: "z") ? UInt8(ascii: "y") : changed[position] + 1 }
                let other = String(decoding: changed, as: UTF8.self)
                // The changed name is in the document and the original is not (when they differ).
                let text = #"{"0":0,"\#(other)":1,"\#(other)x":2}"#
                let tape = try JSONTape(Array(text.utf8))
                var reader = FHIRObjectReader(tape: tape, node: 0)
                if other != name { #expect(reader.take(name) == nil, "length \(length), position \(position)") }
                #expect(reader.take(other).map { tape.numberText(at: $0) } == "1", "length \(length), position \(position)")
                #expect(reader.take(other + "x").map { tape.numberText(at: $0) } == "2")
            }
        }
    }

    @Test("a reader from nested(_:) holds the document: it reads after its parent and the tape are gone")
    func nestedReaderHoldsDocument() throws {
        var child: FHIRObjectReader
        do {
            let tape = try JSONTape(Array(#"{"a":{"b":"a string well past fifteen bytes"}}"#.utf8))
            var parent = FHIRObjectReader(tape: tape, node: 0)
            let member = parent.take("a")
            child = try parent.nested(try #require(member))
        }
        let member = child.take("b")
        #expect(member.map { child.tape.string(at: $0) } == "a string well past fifteen bytes")
        try child.finish()
    }

    @Test("resourceType is compared as bytes and reported when it differs")
    func resourceType() throws {
        let tape = try JSONTape(Array(#"{"resourceType":"Patien\u0074"}"#.utf8))
        var reader = FHIRObjectReader(tape: tape, node: 0)
        try reader.resourceType("Patient")
        var other = FHIRObjectReader(tape: tape, node: 0)
        #expect(throws: FHIRDecodingError(reason: .resourceTypeMismatch(expected: "Observation", found: "Patient"))) {
            try other.resourceType("Observation")
        }
    }
}
