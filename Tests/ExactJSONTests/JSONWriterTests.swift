import Testing
@testable import ExactJSON
import TestSupport

@Suite("JSONWriter")
struct JSONWriterTests {
    static let sample = JSONValue.object(JSONObject(members: [
        JSONMember(key: "resourceType", value: .string("Observation")),
        JSONMember(key: "valueQuantity", value: .object(JSONObject(members: [
            JSONMember(key: "value", value: .number("19.00")),
            JSONMember(key: "unit", value: .string("mg")),
        ]))),
        JSONMember(key: "code", value: .array([.string("a"), .null, .bool(true), .array([]), .object(JSONObject())])),
        JSONMember(key: "empty", value: .array([])),
    ]))

    @Test func compactHasNoWhitespace() {
        #expect(JSONWriter.string(Self.sample)
            == #"{"resourceType":"Observation","valueQuantity":{"value":19.00,"unit":"mg"},"code":["a",null,true,[],{}],"empty":[]}"#)
        #expect(Self.sample.description == JSONWriter.string(Self.sample, style: .compact))
    }

    @Test func prettyUsesTwoSpaceIndent() {
        let expected = """
        {
          "resourceType": "Observation",
          "valueQuantity": {
            "value": 19.00,
            "unit": "mg"
          },
          "code": [
            "a",
            null,
            true,
            [],
            {}
          ],
          "empty": []
        }
        """
        #expect(JSONWriter.string(Self.sample, style: .pretty) == expected)
        #expect(JSONWriter.string(.array([]), style: .pretty) == "[]")
        #expect(JSONWriter.string(.object(JSONObject()), style: .pretty) == "{}")
        #expect(JSONWriter.string(.number("1"), style: .pretty) == "1")
    }

    @Test func escapesMinimally() {
        let text = "\u{0}\u{1F}\"\\/\n\r\t\u{8}\u{C}\u{7F}é€😀<>&\u{2028}"
        #expect(JSONWriter.string(.string(text)) == #""\u0000\u001f\"\\/\n\r\t\b\f"# + "\u{7F}é€😀<>&\u{2028}\"")
        #expect(JSONWriter.string(.string("")) == #""""#)
        #expect(JSONWriter.string(.string("\u{1}\u{1a}")) == #""\u0001\u001a""#)
    }

    @Test func escapesKeysToo() {
        let value = JSONValue.object(JSONObject(members: [JSONMember(key: "a\"b\n", value: .null)]))
        #expect(JSONWriter.string(value) == #"{"a\"b\n":null}"#)
    }

    @Test func streamingAPIPlacesSeparators() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("resourceType")
        writer.string("Patient")
        writer.key("name")
        writer.beginArray()
        writer.beginObject()
        writer.key("given")
        writer.beginArray()
        writer.string("Ann")
        writer.string("Lee")
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.key("active")
        writer.bool(false)
        writer.key("multipleBirthInteger")
        writer.number("2")
        writer.key("deceased")
        writer.null()
        writer.key("extra")
        writer.value(.array([.number("1"), .string("x")]))
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self)
            == #"{"resourceType":"Patient","name":[{"given":["Ann","Lee"]}],"active":false,"multipleBirthInteger":2,"deceased":null,"extra":[1,"x"]}"#)
    }

    @Test func streamingPrettyMatchesTreePretty() {
        var writer = JSONWriter(style: .pretty)
        writer.beginArray()
        writer.number("1")
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.endArray()
        writer.key("b")
        writer.value(.object(JSONObject(members: [JSONMember(key: "c", value: .bool(true))])))
        writer.endObject()
        writer.endArray()
        let tree = JSONValue.array([
            .number("1"),
            .object(JSONObject(members: [
                JSONMember(key: "a", value: .array([])),
                JSONMember(key: "b", value: .object(JSONObject(members: [JSONMember(key: "c", value: .bool(true))]))),
            ])),
        ])
        #expect(writer.bytes == JSONWriter.serialize(tree, style: .pretty))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\n  1,\n  {\n    \"a\": [],\n    \"b\": {\n      \"c\": true\n    }\n  }\n]")
    }

    @Test func misorderedCallsDoNotTrap() {
        var writer = JSONWriter()
        writer.endObject()
        writer.endArray()
        writer.key("a")
        writer.key("b")
        writer.string("x")
        #expect(!writer.bytes.isEmpty)
    }

    @Test func randomTreesWriteIdenticallyAfterReparse() throws {
        var generator = RandomJSON(seed: 0xDEC0DE)
        for _ in 0..<1_000 {
            let value = generator.document()
            let compact = JSONWriter.serialize(value)
            let pretty = JSONWriter.serialize(value, style: .pretty)
            #expect(JSONWriter.serialize(try JSONParser.parse(pretty)) == compact)
            #expect(JSONWriter.serialize(try JSONParser.parse(compact), style: .pretty) == pretty)
            #expect(!compact.contains(0x0A))
            if !value.containsSpaceInStrings { #expect(!compact.contains(0x20)) }
        }
    }
}

extension JSONValue {
    /// Whether any string (or key) in the tree contains a space, which compact output keeps verbatim.
    var containsSpaceInStrings: Bool {
        switch self {
        case .string(let text): text.utf8.contains(0x20)
        case .array(let elements): elements.contains { $0.containsSpaceInStrings }
        case .object(let object):
            object.members.contains { $0.key.utf8.contains(0x20) || $0.value.containsSpaceInStrings }
        default: false
        }
    }
}
