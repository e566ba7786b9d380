import ExactJSON
import Testing

@Suite("JSONTape navigation, whitespace and byte-order mark")
struct JSONTapeNavigationTests {
    static let document = Array(#"{"iss":"https://x","n\u0061me":"a\"b","list":[1,"resource:12",{}],"empty":"","obj":{"k":true}}"#.utf8)

    @Test("members and elements are visited in order; lookups by StaticString resolve escapes")
    func walking() throws {
        let tape = try JSONTape(Self.document)
        var names: [String] = []
        tape.forEachMember(of: 0) { key, _ in names.append(tape.string(at: key)) }
        #expect(names == ["iss", "name", "list", "empty", "obj"])
        #expect(tape.count(0) == 5)
        let name = try #require(tape.memberValue(of: 0, named: "name"))
        #expect(tape.kind(name) == .escapedString)
        #expect(tape.stringEquals(name, "a\"b"))
        #expect(tape.stringValue(at: name) == "a\"b")
        #expect(tape.memberValue(of: 0, named: "nam") == nil)
        let list = try #require(tape.memberValue(of: 0, named: "list"))
        #expect(tape.memberValue(of: list, named: "iss") == nil)   // not an object
        var kinds: [JSONTape.Kind] = []
        var positions: [Int] = []
        tape.forEachElement(of: list) { position, element in
            positions.append(position)
            kinds.append(tape.kind(element))
        }
        #expect(positions == [0, 1, 2])
        #expect(kinds == [.number, .string, .object])
        tape.forEachElement(of: 0) { _, _ in Issue.record("an object has no elements") }
        tape.forEachMember(of: list) { _, _ in Issue.record("an array has no members") }
        #expect(tape.count(list + 1) == 0)   // a number
        #expect(tape.stringValue(at: list + 1) == nil)
        #expect(tape.stringValue(at: nil) == nil)
    }

    @Test("string comparisons: equality, prefixes, two nodes, bytes without a String")
    func strings() throws {
        let tape = try JSONTape(Self.document)
        let iss = try #require(tape.memberValue(of: 0, named: "iss"))
        #expect(tape.isString(iss))
        #expect(tape.stringHasPrefix(iss, "https://"))
        #expect(!tape.stringHasPrefix(iss, "https://xy"))
        #expect(tape.stringHasPrefix(iss, ""))
        let list = try #require(tape.memberValue(of: 0, named: "list"))
        #expect(!tape.stringEquals(list + 1, "1"))           // a number is not a string
        #expect(tape.stringHasPrefix(list + 2, "resource:"))
        #expect(tape.withUTF8(ofString: list + 2) { Array($0) } == Array("resource:12".utf8))
        let empty = try #require(tape.memberValue(of: 0, named: "empty"))
        let isEmpty = tape.withUTF8(ofString: empty) { $0.isEmpty }
        #expect(isEmpty)
        let other = try JSONTape(Array(#"["a\"b","a\u0022b","ab","a\"b"]"#.utf8))
        #expect(other.stringsEqual(1, 2))     // escaped both ways
        #expect(other.stringsEqual(1, 4))
        #expect(!other.stringsEqual(1, 3))
        #expect(!other.stringsEqual(0, 1))    // the array itself
    }

    @Test("whitespace outside strings is recorded; inside strings it is content")
    func whitespace() throws {
        #expect(try !JSONTape(Array(#"{"a":[1,"b c"]}"#.utf8)).hasWhitespace)
        #expect(try JSONTape(Array(#"{"a": 1}"#.utf8)).hasWhitespace)
        #expect(try JSONTape(Array("[1]\n".utf8)).hasWhitespace)
        #expect(try JSONTape(Array(" 1".utf8)).hasWhitespace)
        #expect(try !JSONTape([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)).hasWhitespace)
        #expect(!JSONTape.emptyObject.hasWhitespace)
    }

    @Test("a byte-order mark is skipped by default and rejected on request")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)
        #expect(try JSONParser.parse(bytes) == .array([.number("1")]))
        #expect(throws: JSONParseError(offset: 0, line: 1, column: 1, reason: .unexpectedByte(0xEF))) {
            try JSONTape(bytes, allowsByteOrderMark: false)
        }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes, allowsByteOrderMark: false) }
        #expect(try JSONParser.parse(Array("[1]".utf8), allowsByteOrderMark: false) == .array([.number("1")]))
    }

    @Test("a redacted error keeps where and why but not the duplicate name")
    func redactedError() throws {
        let error = try #require(throws: JSONParseError.self) { try JSONParser.parse(#"{"secret":1,"secret":2}"#) }
        #expect(error.description.contains("secret"))
        let redacted = error.redacted
        #expect(redacted.reason == .duplicateKey(""))
        #expect(redacted.offset == error.offset && redacted.line == error.line && redacted.column == error.column)
        #expect(!redacted.description.contains("secret"))
        #expect(redacted.description.hasSuffix("duplicate key"))
        let other = try #require(throws: JSONParseError.self) { try JSONParser.parse("[1,]") }
        #expect(other.redacted == other)
    }
}

@Suite("JSONValue conveniences and canonical form")
struct JSONValueCanonicalTests {
    @Test("lookups chain through objects; other kinds give nil")
    func lookups() throws {
        let value = try JSONParser.parse(#"{"a":{"b":[true,1.5]},"s":"x"}"#)
        #expect(value["a"]?["b"]?.arrayValue?.first?.boolValue == true)
        #expect(value["a"]?["b"]?.arrayValue?.last?.doubleValue == 1.5)
        #expect(value["s"]?["b"] == nil)
        #expect(value["missing"] == nil)
        #expect(value["s"]?.boolValue == nil && value["s"]?.doubleValue == nil)
    }

    @Test("numbers from integers and doubles are written as JSON.stringify writes them")
    func numbers() {
        #expect(JSONValue.number(integer: -42) == .number("-42"))
        #expect(JSONValue.number(double: 1_687_450_764) == .number("1687450764"))
        #expect(JSONValue.number(double: 1_687_450_764.656) == .number("1687450764.656"))
        #expect(JSONValue.number(double: -0.5) == .number("-0.5"))
        #expect(JSONValue.number(double: .infinity) == .null)
        #expect(JSONValue.number(double: .nan) == .null)
        #expect(JSONValue.object(members: [JSONMember("a", .null)]) == .object(JSONObject(members: [JSONMember(key: "a", value: .null)])))
    }

    @Test("RFC 8785: members sorted by UTF-16 code units, no whitespace, ECMAScript numbers and escapes")
    func canonical() throws {
        let value = try JSONParser.parse(#"{"b":[1.0,-0,1e21,1e-7,0.000001,123.456e2,5e-324],"a":"\u00e9\n\u0001","\u20ac":1,"\ud83d\ude00":2,"A":null}"#)
        // U+20AC sorts before U+1F600, whose UTF-16 form is the surrogate pair D83D DE00.
        let expected = "{\"A\":null,\"a\":\"é\\n\\u0001\",\"b\":[1,0,1e+21,1e-7,0.000001,12345.6,5e-324],\"€\":1,\"😀\":2}"
        #expect(String(decoding: value.canonicalized(), as: UTF8.self) == expected)
        // Member order and number spelling do not matter.
        let reordered = try JSONParser.parse(#"{"A":null,"\u20ac":1.0,"\ud83d\ude00":2e0,"a":"\u00e9\n\u0001","b":[1,0,1E21,0.0000001,1e-6,12345.6,5e-324]}"#)
        #expect(reordered.canonicalized() == value.canonicalized())
        // RFC 7638's thumbprint input: lexicographic members, no whitespace.
        let jwk = try JSONParser.parse(#"{"y":"Y","x":"X","kty":"EC","crv":"P-256"}"#)
        #expect(String(decoding: jwk.canonicalized(), as: UTF8.self) == #"{"crv":"P-256","kty":"EC","x":"X","y":"Y"}"#)
    }

    @Test("ECMAScript number strings")
    func ecmaScriptNumbers() {
        #expect(JSONValue.ecmaScriptNumber("1687450764.656") == "1687450764.656")
        #expect(JSONValue.ecmaScriptNumber("-2.5E3") == "-2500")
        #expect(JSONValue.ecmaScriptNumber("100000000000000000000") == "100000000000000000000")
        #expect(JSONValue.ecmaScriptNumber("1e21") == "1e+21")
        #expect(JSONValue.ecmaScriptNumber("-0") == "0")
        #expect(JSONValue.ecmaScriptNumber("0.0000001") == "1e-7")
    }
}
