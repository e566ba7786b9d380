import FHIRCore
import Testing

@Suite("JSONTape")
struct JSONTapeTests {
    @Test("nodes are in document order; containers count their members and point past their subtree")
    func layout() throws {
        let tape = try JSONTape(Array(#"{"a":[1,{"b":null}],"c":"x"}"#.utf8))
        let kinds = tape.nodes.map(\.kind)
        #expect(kinds == [.object, .string, .array, .number, .object, .string, .null, .string, .string])
        #expect(tape.nodes[0].length == 2)          // two members
        #expect(tape.nodes[0].end == 9)             // the whole document
        #expect(tape.nodes[2].length == 2)          // two elements
        #expect(tape.nodes[2].end == 7)             // "c" follows the array's subtree
        #expect(tape.numberText(at: 3) == "1")
        #expect(tape.string(at: 8) == "x")
    }

    @Test("member names compare as bytes, escapes resolved, `_` companions matched without their underscore")
    func keys() throws {
        let tape = try JSONTape(Array(#"{"status":1,"st\u0061tus2":2,"_given":3}"#.utf8))
        #expect(tape.keyEquals(1, "status"))
        #expect(!tape.keyEquals(1, "statu"))
        #expect(!tape.keyEquals(1, "statuses"))
        #expect(tape.keyEquals(3, "status2"))
        #expect(tape.keyEquals(5, "given", skippingFirstByte: true))
        #expect(!tape.keyEquals(5, "given"))
    }

    @Test("a tape converts to the same tree as the parser gives, for random documents")
    func treesAgree() throws {
        var random = RandomJSON(seed: 0x7A9E)
        for _ in 0..<500 {
            let document = random.document()
            let bytes = JSONWriter.serialize(document)
            let tape = try JSONTape(bytes)
            #expect(tape.value(at: 0) == document)
            #expect(tape.nodes.first.map { Int($0.end) } == tape.nodes.count)
        }
    }

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
