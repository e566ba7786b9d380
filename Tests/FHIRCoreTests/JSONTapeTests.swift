import FHIRCore
import Testing
import TestSupport

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

    @Test("each object records the name filter and `_` flag that a pass over its names computes, escapes resolved")
    func recordedMemberFilters() throws {
        var random = RandomJSON(seed: 0x51F7)
        for _ in 0..<500 {
            let tape = try JSONTape(JSONWriter.serialize(random.document()))
            for (index, node) in tape.nodes.enumerated() where node.kind == .object {
                let summary = tape.memberSummary(object: index, count: Int(node.length))
                #expect(node.memberFilter == summary.filter)
                #expect(node.hasUnderscoreNames == summary.hasUnderscoreNames)
                var second: UInt64 = 0
                var keyNode = index + 1
                for _ in 0..<Int(node.length) {
                    second |= Array(tape.string(at: keyNode).utf8).withUnsafeBufferPointer { FHIRObjectReader.secondFilterBit($0) }
                    keyNode = Int(tape.nodes[keyNode + 1].end)
                }
                #expect(node.secondMemberFilter == second)
            }
        }
        let escaped = try JSONTape(Array(#"{"\u005fa":1,"b":2}"#.utf8))
        #expect(escaped.nodes[0].hasUnderscoreNames)
    }

    @Test("each member name without escapes holds its fingerprint: its first and last eight bytes")
    func recordedKeyFingerprints() throws {
        var random = RandomJSON(seed: 0x3F1B)
        for _ in 0..<300 {
            let tape = try JSONTape(JSONWriter.serialize(random.document()))
            for (index, node) in tape.nodes.enumerated() where node.kind == .object {
                var keyNode = index + 1
                for _ in 0..<Int(node.length) {
                    if tape.nodes[keyNode].kind == .string {
                        let name = Array(tape.string(at: keyNode).utf8)
                        #expect(tape.nodes[keyNode].keyFingerprint == name.withUnsafeBufferPointer { JSONKeyFingerprint($0) })
                    }
                    keyNode = Int(tape.nodes[keyNode + 1].end)
                }
            }
        }
        // The words are the name's bytes read little-endian, zero-padded below eight bytes.
        let short = try JSONTape(Array(#"{"ab":1,"abcdefghij":2,"":3}"#.utf8))
        #expect(short.nodes[1].keyFingerprint == JSONKeyFingerprint(first: 0x6261, last: 0))
        #expect(short.nodes[3].keyFingerprint == JSONKeyFingerprint(first: 0x6867_6665_6463_6261, last: 0x6A69_6867_6665_6463))
        #expect(short.nodes[5].keyFingerprint == JSONKeyFingerprint(first: 0, last: 0))
    }

    @Test("fingerprints tell apart every two names of at most 16 bytes, and agree for equal ones")
    func fingerprintsOfShortNames() {
        var random = SplitMix64(seed: 0xF1A6)
        for _ in 0..<2_000 {
            let length = random.below(17)
            let a = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.below(256)) }
            var b = a
            if length > 0 { b[random.below(length)] &+= UInt8(truncatingIfNeeded: 1 + random.below(255)) }
            let fa = a.withUnsafeBufferPointer { JSONKeyFingerprint($0) }
            let fb = b.withUnsafeBufferPointer { JSONKeyFingerprint($0) }
            #expect(fa == a.withUnsafeBufferPointer { JSONKeyFingerprint($0) })
            #expect((fa == fb) == (a == b), "\(a) against \(b)")
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

@Suite("JSONTape word-at-a-time scanning")
struct JSONTapeBlockScanTests {
    /// Every special byte at every offset of strings long enough to take the eight-byte path, and
    /// runs of spaces of every length around it: the tape must agree with the byte-by-byte parser.
    @Test("strings and whitespace agree with the parser whatever falls in an eight-byte block")
    func blockBoundaries() throws {
        let specials: [String] = [#"\""#, #"\\"#, #"\n"#, #"\u0041"#, "é", "€", "😀", "~", "\u{7F}"]
        for length in 0..<20 {
            for offset in 0...length {
                for special in specials {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: offset))
                    let indent = String(repeating: " ", count: (length + offset) % 19)
                    let document = "{\n\(indent)\"k\(text)\":\n\(indent)\"\(text)\"\(indent)}\(indent)"
                    let bytes = Array(document.utf8)
                    let tape = try JSONTape(bytes)
                    #expect(tape.value(at: 0) == (try JSONParser.parse(bytes)))
                }
            }
        }
    }

    @Test("indentation of every length up to 70 spaces agrees with the parser, to the document's end")
    func longIndentation() throws {
        for width in 0...70 {
            let indent = String(repeating: " ", count: width)
            for document in [
                "{\n\(indent)\"a\": [\n\(indent)1,\n\(indent)\"x\"\n\(indent)]\n\(indent)}",
                "[\(indent)true\(indent)]\(indent)",
                "\(indent){\(indent)}",
            ] {
                let bytes = Array(document.utf8)
                #expect(try JSONTape(bytes).value(at: 0) == (try JSONParser.parse(bytes)), "width \(width)")
            }
            #expect(throws: JSONParseError.self) { try JSONTape(Array("[\(indent)1\(indent)x]".utf8)) }
        }
    }

    @Test("a control character or a missing quote is still an error after a long clean run")
    func errorsAfterCleanRun() {
        for length in 0..<20 {
            let clean = String(repeating: "b", count: length)
            #expect(throws: JSONParseError.self) { try JSONTape(Array("[\"\(clean)\u{01}\"]".utf8)) }
            #expect(throws: JSONParseError.self) { try JSONTape(Array("[\"\(clean)".utf8)) }
            #expect(throws: JSONParseError.self) { try JSONTape(Array("[\"\(clean)\"".utf8) + [0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20]) }
            #expect(throws: JSONParseError.self) { try JSONTape(Array("[\"\(clean)".utf8) + [0xC3, 0x28, 0x22, 0x5D]) }
        }
    }
}
