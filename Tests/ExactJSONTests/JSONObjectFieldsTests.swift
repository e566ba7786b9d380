@testable import ExactJSON
import Testing

@Suite("Typed reads of a JSON object's members")
struct JSONObjectFieldsTests {
    @Test("Present, absent, null and wrong kinds, each failure naming the member and never the value")
    func reads() throws {
        let value = try JSONParser.parse(Array(#"{"s":"x","n":3,"f":3.5,"b":true,"a":["p","q"],"m":["p",2],"z":null}"#.utf8), maximumDepth: 4)
        let fields = try #require(JSONObjectFields(value))
        #expect(try fields.string("s") == "x" && fields.optionalString("z") == nil && fields.optionalString("absent") == nil)
        #expect(try fields.integer("n") == 3 && fields.optionalBool("b") == true && fields.stringArray("a") == ["p", "q"])
        #expect(throws: JSONObjectFields.Failure.missing(member: "absent")) { try fields.string("absent") }
        #expect(throws: JSONObjectFields.Failure.wrongKind(member: "n", expected: "a string", found: "number")) { try fields.string("n") }
        #expect(throws: JSONObjectFields.Failure.wrongKind(member: "f", expected: "an integer", found: nil)) { try fields.integer("f") }
        #expect(throws: JSONObjectFields.Failure.wrongKind(member: "m[1]", expected: "a string", found: "number")) { try fields.stringArray("m") }
        #expect(throws: JSONObjectFields.Failure.wrongKind(member: "s", expected: "a boolean", found: "string")) { try fields.optionalBool("s") }
        #expect(JSONObjectFields(.array([])) == nil)
        #expect(fields.has("z") && !fields.has("absent"))
    }
}
