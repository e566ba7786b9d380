import ExactJSON
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
                    second |= Array(tape.string(at: keyNode).utf8).withUnsafeBufferPointer { JSONTape.secondNameFilterBit($0) }
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
