import FHIRCore
import ModelsR4
import Testing

/// Generated decoders read nested data types and backbone elements straight into their place in
/// the enclosing value (`FHIRObjectReader.element(_:into:)` and its siblings): the same values and
/// the same error paths as decoding each one apart.
@Suite("Decoding nested elements in place")
struct InPlaceDecodingTests {
    private func reader(_ json: String) throws -> FHIRObjectReader {
        FHIRObjectReader(tape: try JSONTape(Array(json.utf8)), node: 0)
    }

    @Test("a placeholder is the value with required elements set and nothing else")
    func placeholders() {
        #expect(Coding.decodingPlaceholder == Coding())
        #expect(Observation.decodingPlaceholder == Observation(code: CodeableConcept(), status: FHIRPrimitive()))
        #expect(Bundle.Entry.Request.decodingPlaceholder == Bundle.Entry.Request(method: FHIRPrimitive(), url: FHIRPrimitive()))
    }

    @Test("an element and an array decode in place to what decoding each apart gives")
    func sameValues() throws {
        let json = #"""
            {"code":{"coding":[{"system":"http://loinc.org","code":"15074-8"},{"code":"x","display":"y"}],"text":"Glucose"},"extra":[{"text":"a"},\#
            {"text":"b"}]}
            """#
        var r = try reader(json)
        var code: CodeableConcept?
        var extra: [CodeableConcept]?
        var absent: CodeableConcept? = CodeableConcept(text: "stale")
        var absentList: [Coding]? = [Coding()]
        try r.element("code", into: &code)
        try r.elements("extra", into: &extra)
        try r.element("absent", into: &absent)
        try r.elements("absentList", into: &absentList)
        try r.finish()
        #expect(code == (try CodeableConcept(fhirJSON: #"""
            {"coding":[{"system":"http://loinc.org","code":"15074-8"},{"code":"x","display":"y"}],"text":"Glucose"}
            """#)))
        #expect(extra?.map(\.text?.value?.string) == ["a", "b"])
        #expect(absent == nil)       // an absent member leaves nil behind, as decoding apart does
        #expect(absentList == nil)
    }

    @Test("a required element decodes into its placeholder, and its absence is reported")
    func required() throws {
        var r = try reader(#"{"code":{"text":"x"}}"#)
        var code = CodeableConcept()
        try r.requiredElement("code", into: &code)
        #expect(code.text?.value?.string == "x")
        var missing: [Coding] = []
        #expect(throws: FHIRDecodingError(path: [.key("coding")], reason: .missingRequiredElement)) {
            try r.requiredElements("coding", into: &missing)
        }
    }

    @Test("errors inside an element decoded in place carry the member's path and index")
    func errorPaths() throws {
        var r = try reader(#"{"code":null,"list":[{"text":"a"},5],"deep":[{"coding":[{"code":1}]}]}"#)
        var code: CodeableConcept?
        #expect(throws: FHIRDecodingError(path: [.key("code")], reason: .nullNotAllowed)) { try r.element("code", into: &code) }
        var list: [CodeableConcept]?
        #expect(throws: FHIRDecodingError(path: [.key("list"), .index(1)], reason: .wrongJSONType(expected: "object", found: "number"))) {
            try r.elements("list", into: &list)
        }
        var deep: [CodeableConcept]?
        do {
            try r.elements("deep", into: &deep)
            Issue.record("a number where a code is expected must fail")
        } catch {
            #expect(error.pathDescription == "deep[0].coding[0].code")
        }
    }

    @Test("an unknown member inside a nested element is still an error when strict")
    func unknownNestedMember() throws {
        var r = try reader(#"{"code":{"text":"x","colour":"blue"}}"#)
        var code: CodeableConcept?
        #expect(throws: FHIRDecodingError(path: [.key("code"), .key("colour")], reason: .unknownMember)) {
            try r.element("code", into: &code)
        }
    }
}
