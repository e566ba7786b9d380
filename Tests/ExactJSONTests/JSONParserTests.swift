import Foundation
import Testing
@testable import ExactJSON
import TestSupport

/// The parse error for `text`, or `nil` if it parses.
func parseError(_ text: String, maximumDepth: Int = 512) -> JSONParseError? {
    do throws(JSONParseError) {
        _ = try JSONParser.parse(text, maximumDepth: maximumDepth)
        return nil
    } catch {
        return error
    }
}

/// The parse error for `bytes`, or `nil` if they parse.
func parseError(bytes: [UInt8]) -> JSONParseError? {
    do throws(JSONParseError) {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("JSONParser")
struct JSONParserTests {
    // MARK: Values

    @Test func parsesScalarsAtTopLevel() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse(" false ") == .bool(false))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("-12.50e+3") == .number("-12.50e+3"))
        #expect(try JSONParser.parse("0") == .number("0"))
    }

    @Test func keepsNumberTextExactly() throws {
        for text in ["19.00", "-0", "-0.000", "1E+2", "1e-7", "0.1", "123456789012345678901234567890", "5e0001"] {
            #expect(try JSONParser.parse("[\(text)]") == .array([.number(text)]))
        }
    }

    @Test func keepsMemberOrder() throws {
        let value = try JSONParser.parse(#"{"b":1,"a":{"z":[],"y":{}},"c":null}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["a"]?.objectValue?.keys == ["z", "y"])
        #expect(object["c"] == .null)
    }

    @Test func decodesEscapes() throws {
        let value = try JSONParser.parse(#""a\"b\\c\/d\be\ff\ng\rh\ti\u0041\u00e9\u20AC\ud83d\ude00""#)
        #expect(value == .string("a\"b\\c/d\u{8}e\u{C}f\ng\rh\ti" + "Aé€😀"))
    }

    @Test func decodesRawUTF8() throws {
        let text = "\"é€😀\u{10FFFF}\""
        #expect(try JSONParser.parse(text) == .string("é€😀\u{10FFFF}"))
        #expect(try JSONParser.parse(Array(text.utf8)) == .string("é€😀\u{10FFFF}"))
        #expect(try JSONParser.parse(Data(text.utf8)) == .string("é€😀\u{10FFFF}"))
    }

    @Test func skipsByteOrderMarkAtStart() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number("1")]))
        // Only at the very start.
        #expect(parseError(bytes: Array(" ".utf8) + [0xEF, 0xBB, 0xBF] + Array("1".utf8)) != nil)
    }

    @Test func parsesEmptyContainersAndWhitespace() throws {
        #expect(try JSONParser.parse(" \t\r\n[ \n]\r\n") == .array([]))
        #expect(try JSONParser.parse("{\t}") == .object(JSONObject()))
        #expect(try JSONParser.parse("[[],{},[{}]]") == .array([.array([]), .object(JSONObject()), .array([.object(JSONObject())])]))
    }

    @Test func parsesLargeObjectsAndFindsDuplicatesInThem() throws {
        let keys = (0..<40).map { "key\($0)" }
        let body = keys.map { "\"\($0)\":1" }.joined(separator: ",")
        let object = try #require(try JSONParser.parse("{\(body)}").objectValue)
        #expect(object.keys == keys)
        for duplicate in ["key0", "key15", "key16", "key39"] {
            let error = parseError("{\(body),\"\(duplicate)\":2}")
            #expect(error?.reason == .duplicateKey(duplicate))
        }
    }

    @Test("a repeated key is found at any position, in objects of any size, however either copy is spelled")
    func duplicatesAtEveryPosition() throws {
        for size in [1, 2, 5, 15, 16, 17, 40] {
            let keys = (0..<size).map { "k\($0)" }
            for position in 0..<size {
                let repeated = keys[position]
                // The repeat spelled plainly, or with its first letter escaped, after or before the rest.
                let escaped = "\\u006B" + repeated.dropFirst()
                for (first, second) in [(repeated, repeated), (escaped, repeated), (repeated, escaped)] {
                    var members = keys.map { "\"\($0)\":0" }
                    members[position] = "\"\(first)\":0"
                    let text = "{" + (members + ["\"\(second)\":1"]).joined(separator: ",") + "}"
                    #expect(parseError(text)?.reason == .duplicateKey(repeated))
                    #expect(throws: JSONParseError.self) { try JSONTape(Array(text.utf8)) }
                }
            }
            let distinct = "{" + keys.map { "\"\($0)\":0" }.joined(separator: ",") + "}"
            #expect(parseError(distinct) == nil)
        }
    }

    // MARK: Rejections

    @Test(arguments: [
        "", " ", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "{'a':1}", "'a'", "[,1]", "[1,,2]",
        "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "1.e5", "0x10", "NaN", "Infinity", "-Infinity",
        "tru", "nulll", "True", "// c\n1", "/* c */ 1", "1 // c", "[1]]", "{}}", "[", "{", "{\"a\"", "{\"a\":",
        "\"abc", "\"\\\"", "\u{0B}1", "\u{0C}1", "1\u{A0}", "[\"a\"\u{2028}]", "{\"a\":1 \"b\":2}", "{,}",
    ])
    func rejectsMalformedInput(_ text: String) {
        #expect(parseError(text) != nil)
    }

    @Test func rejectsControlCharactersInStrings() {
        for byte in UInt8(0)..<0x20 {
            #expect(parseError(bytes: [0x22, byte, 0x22])?.reason == .controlCharacterInString)
        }
        #expect(parseError(bytes: [0x22, 0x7F, 0x22]) == nil)
    }

    @Test func rejectsInvalidUTF8() {
        let invalid: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
            [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
            [0xC3, 0x28], [0xE2, 0x28, 0xA1], [0xF0, 0x9F, 0x98, 0x28],
        ]
        for sequence in invalid {
            #expect(parseError(bytes: [0x22] + sequence + [0x22])?.reason == .invalidUnicode)
        }
        // Truncated sequences at the end of input.
        #expect(parseError(bytes: [0x22, 0xE2, 0x82])?.reason == .unexpectedEnd)
        // Non-ASCII outside strings.
        #expect(parseError(bytes: [0xC3, 0xA9])?.reason == .unexpectedByte(0xC3))
    }

    @Test func rejectsLoneSurrogatesAndBadEscapes() {
        #expect(parseError(#""\ud800""#)?.reason == .invalidUnicode)
        #expect(parseError(#""\udc00""#)?.reason == .invalidUnicode)
        #expect(parseError(#""\ud800\u0041""#)?.reason == .invalidUnicode)
        #expect(parseError(#""\ud800\n""#)?.reason == .invalidUnicode)
        #expect(parseError(#""\ud800x""#)?.reason == .invalidUnicode)
        #expect(parseError(#""\ud83d\ude00""#) == nil)
        #expect(parseError(#""\x""#)?.reason == .invalidEscape)
        #expect(parseError(#""\u12G4""#)?.reason == .invalidEscape)
        #expect(parseError(#""\U0041""#)?.reason == .invalidEscape)
        #expect(parseError(#""\'""#)?.reason == .invalidEscape)
        #expect(parseError(#""\u12"#)?.reason == .unexpectedEnd)
    }

    @Test func rejectsDuplicateKeys() {
        #expect(parseError(#"{"a":1,"a":2}"#)?.reason == .duplicateKey("a"))
        #expect(parseError(#"{"a":1,"b":{"a":2}}"#) == nil)
        #expect(parseError(#"{"a":1,"\u0061":2}"#)?.reason == .duplicateKey("a"))
    }

    // MARK: Positions

    @Test func reportsExactPositions() throws {
        var error = try #require(parseError(#"{"a":1,}"#))
        #expect(error.reason == .unexpectedByte(UInt8(ascii: "}")))
        #expect((error.offset, error.line, error.column) == (7, 1, 8))

        error = try #require(parseError("[1,\n  2,\n  x]"))
        #expect(error.reason == .unexpectedByte(UInt8(ascii: "x")))
        #expect((error.offset, error.line, error.column) == (11, 3, 3))

        error = try #require(parseError("{\r\n  \"a\": 01\r\n}"))
        #expect(error.reason == .invalidNumber)
        #expect((error.line, error.column) == (2, 9))

        error = try #require(parseError("[\"é€\u{1}\"]"))
        #expect(error.reason == .controlCharacterInString)
        #expect((error.offset, error.line, error.column) == (7, 1, 5))

        error = try #require(parseError("[1] 2"))
        #expect(error.reason == .trailingContent)
        #expect((error.offset, error.column) == (4, 5))

        error = try #require(parseError("{\"a\":1,\n\"a\":2}"))
        #expect(error.reason == .duplicateKey("a"))
        #expect((error.offset, error.line, error.column) == (8, 2, 1))

        error = try #require(parseError(""))
        #expect(error.reason == .unexpectedEnd)
        #expect((error.offset, error.line, error.column) == (0, 1, 1))

        error = try #require(parseError("[1,\r2"))
        #expect(error.reason == .unexpectedEnd)
        #expect((error.offset, error.line, error.column) == (5, 2, 2))

        error = try #require(parseError(bytes: [0xEF, 0xBB, 0xBF] + Array("[tru]".utf8)))
        #expect(error.reason == .unexpectedByte(UInt8(ascii: "]")))
        #expect((error.offset, error.line, error.column) == (7, 1, 5))
    }

    @Test func descriptionNamesPositionButNotStringContent() throws {
        let error = try #require(parseError("{\n  \"name\": \"secret-patient-name\u{1}\"\n}"))
        #expect(error.description == "JSON error at line 2, column 31: unescaped control character in string")
        #expect(!error.description.contains("secret"))
        #expect(parseError("[1,]")?.description == "JSON error at line 1, column 4: unexpected character ']'")
        #expect(parseError("[\u{7}]")?.description == "JSON error at line 1, column 2: unexpected byte 0x07")
        #expect(parseError(#"{"id":1,"id":2}"#)?.description == "JSON error at line 1, column 9: duplicate key \"id\"")
    }

    // MARK: Depth

    @Test func enforcesMaximumDepth() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(parseError(ok) == nil)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(parseError(tooDeep)?.reason == .tooDeep(512))
        #expect(parseError(#"{"a":{"b":[1]}}"#, maximumDepth: 2)?.reason == .tooDeep(2))
        #expect(parseError(#"{"a":{"b":1}}"#, maximumDepth: 2) == nil)
        #expect(parseError("[]", maximumDepth: 0)?.reason == .tooDeep(0))
        #expect(parseError("1", maximumDepth: 0) == nil)
    }

    @Test func hugeNestingThrowsInsteadOfOverflowingTheStack() {
        #expect(parseError(String(repeating: "[", count: 100_000))?.reason == .tooDeep(512))
        #expect(parseError(String(repeating: "{\"a\":", count: 100_000))?.reason == .tooDeep(512))
        #expect(parseError(String(repeating: "[{\"a\":", count: 50_000))?.reason == .tooDeep(512))
    }

    @Test func maximumDepthDocumentsNeedLittleStack() async {
        // Nesting is parsed with an explicit stack, so even a small thread stack suffices.
        let succeeded = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread {
                let text = String(repeating: "[{\"a\":", count: 256) + "1" + String(repeating: "}]", count: 256)
                let value = try? JSONParser.parse(text)
                let written = value.map { JSONWriter.serialize($0, style: .pretty) }
                continuation.resume(returning: value != nil && written.map { $0.count > text.utf8.count } == true)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(succeeded)
    }

    // MARK: Properties

    @Test func randomTreesRoundTripThroughBothStyles() throws {
        var generator = RandomJSON(seed: 0x5EED_0001)
        for _ in 0..<2_000 {
            let value = generator.document()
            for style in [JSONWriter.Style.compact, .pretty] {
                let bytes = JSONWriter.serialize(value, style: style)
                let parsed = try JSONParser.parse(bytes)
                #expect(parsed == value)
            }
        }
    }

    @Test func agreesWithJSONSerialization() throws {
        var generator = RandomJSON(seed: 0xF00D, foundationCompatible: true)
        for _ in 0..<1_000 {
            let value = generator.document()
            let bytes = JSONWriter.serialize(value, style: generator.rng.chance(0.5) ? .compact : .pretty)
            let ours = try JSONParser.parse(bytes)
            let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            let difference = Self.mismatch(ours, theirs)
            #expect(difference == nil)
        }
    }

    /// Where our tree and Foundation's first disagree (comparing numbers as `Double`), or `nil`.
    static func mismatch(_ ours: JSONValue, _ theirs: Any, path: String = "$") -> String? {
        switch ours {
        case .null:
            return theirs is NSNull ? nil : path
        case .bool(let bool):
            let theirBool = (theirs as? Bool) ?? (theirs as? NSNumber)?.boolValue
            return theirBool == bool ? nil : path
        case .number(let text):
            guard let expected = Double(text) else { return path }
            let actual: Double?
            if let number = theirs as? NSNumber {
                actual = number.doubleValue
            } else if let decimal = theirs as? Decimal {
                actual = NSDecimalNumber(decimal: decimal).doubleValue
            } else {
                actual = nil
            }
            guard let actual else { return path }
            return expected == actual || abs(expected - actual) <= abs(expected) * 1e-12 ? nil : path
        case .string(let string):
            guard let theirString = theirs as? String else { return path }
            return Array(theirString.unicodeScalars) == Array(string.unicodeScalars) ? nil : path + " (string)"
        case .array(let elements):
            guard let theirElements = theirs as? [Any], theirElements.count == elements.count else { return path }
            for (index, pair) in zip(elements, theirElements).enumerated() {
                if let found = mismatch(pair.0, pair.1, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let object):
            guard let dictionary = theirs as? [String: Any], dictionary.count == object.count else { return path + " (object)" }
            for member in object.members {
                guard let theirValue = dictionary[member.key] else { return path + " (missing key)" }
                if let found = mismatch(member.value, theirValue, path: "\(path).<key>") { return found }
            }
            return nil
        }
    }

    // MARK: Fuzzing

    /// Parses `bytes`; whatever parses must survive a write/parse round trip unchanged.
    static func fuzzOne(_ bytes: [UInt8]) {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONParser.parse(bytes)
        } catch {
            #expect(error.offset >= 0 && error.offset <= bytes.count)
            #expect(error.line >= 1 && error.column >= 1)
            return
        }
        let reparsed = try? JSONParser.parse(JSONWriter.serialize(value))
        #expect(reparsed == value)
    }

    @Test func fuzzRandomBytes() {
        var rng = SplitMix64(seed: 0xB17E5)
        let alphabet = Array("{}[],:\"\\ 0123456789-+.eEtruefalsn\n\t\r/u".utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xF0, 0x9F, 0xFF]
        for _ in 0..<20_000 {
            let length = rng.int(0...40)
            let bytes: [UInt8] = (0..<length).map { _ in
                rng.chance(0.85) ? alphabet[rng.int(0...(alphabet.count - 1))] : UInt8(truncatingIfNeeded: rng.next())
            }
            Self.fuzzOne(bytes)
        }
    }

    @Test func fuzzMutationsOfValidDocuments() {
        var generator = RandomJSON(seed: 0xA11CE)
        var rng = SplitMix64(seed: 0xC0FFEE)
        var base: [UInt8] = []
        for iteration in 0..<20_000 {
            if iteration % 20 == 0 {
                base = JSONWriter.serialize(generator.value(depth: 0), style: rng.chance(0.5) ? .compact : .pretty)
            }
            var bytes = base
            for _ in 0..<rng.int(1...3) {
                let position = bytes.isEmpty ? 0 : rng.int(0...(bytes.count - 1))
                switch rng.int(0...5) {
                case 0 where !bytes.isEmpty: bytes[position] ^= UInt8(1) << UInt8(rng.int(0...7))
                case 1 where !bytes.isEmpty: bytes.removeSubrange(position...)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: position)
                case 3 where !bytes.isEmpty: bytes.remove(at: position)
                case 4 where !bytes.isEmpty: bytes[position] = Array("{}[],:\"\\".utf8)[rng.int(0...7)]
                default:
                    let end = min(bytes.count, position + rng.int(0...8))
                    bytes.insert(contentsOf: bytes[position..<end], at: position)
                }
            }
            Self.fuzzOne(bytes)
        }
    }
}
