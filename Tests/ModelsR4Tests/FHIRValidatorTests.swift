import FHIRCore
import ModelsR4
import Testing

@Suite("FHIRValidator rules")
struct FHIRValidatorTests {
    private func errors(_ json: String) -> [String] {
        FHIRValidator().validate(Array(json.utf8)).filter { $0.severity == .error }.map { "\($0.path): \($0.message)" }
    }

    private func warnings(_ json: String) -> [String] {
        FHIRValidator().validate(Array(json.utf8)).filter { $0.severity == .warning }.map { "\($0.path): \($0.message)" }
    }

    private let valid = #"{"resourceType":"Observation","id":"a","status":"final","code":{"text":"x"},"valueQuantity":{"value":1.50}}"#

    @Test("a valid resource has no issues")
    func validResource() {
        #expect(FHIRValidator().validate(Array(valid.utf8)).isEmpty)
    }

    @Test("every problem is listed, each with its path")
    func listsEveryProblem() {
        let found = errors(#"""
            {"resourceType":"Observation","id":"has space","status":"done","code":{},"valueString":"","valueBoolean":true,"issued":"2020-02-30T10:00:00Z",\#
            "foo":1,"category":[]}
            """#)
        let expected = [
            "Observation.id: not a valid id",
            "Observation.status: code is not in the required value set http://hl7.org/fhir/ValueSet/observation-status",
            "Observation.code: empty objects are not allowed",
            "Observation.valueString: empty strings are not allowed",
            "Observation.value[x]: more than one type for a choice element: valueBoolean, valueString",
            "Observation.issued: not a valid instant",
            "Observation.foo: unknown element",
            "Observation.category: empty arrays are not allowed",
        ]
        for message in expected {
            #expect(found.contains(message), "missing: \(message) in \(found)")
        }
        #expect(found.count == expected.count, "\(found)")
    }

    @Test("cardinality: required elements, arrays and single values")
    func cardinality() {
        #expect(errors(#"{"resourceType":"Observation","code":{"text":"x"}}"#) == ["Observation.status: required element is missing (minimum 1)"])
        #expect(errors(#"{"resourceType":"Observation","status":"final","code":{"text":"x"},"identifier":{"value":"1"}}"#)
            == ["Observation.identifier: a repeating element must be an array, found object"])
        #expect(errors(#"{"resourceType":"Observation","status":"final","code":[{"text":"x"}]}"#)
            .contains("Observation.code: a single-valued element must not be an array"))
        #expect(errors(#"{"resourceType":"MedicationRequest","status":"active","intent":"order","subject":{"reference":"Patient/1"}}"#)
            == ["MedicationRequest.medication[x]: required element is missing (minimum 1)"])
    }

    @Test("primitive kinds and lexical forms")
    func primitives() {
        #expect(errors(#"{"resourceType":"Patient","active":"true"}"#) == ["Patient.active: a boolean must be a JSON boolean, found string"])
        #expect(errors(#"{"resourceType":"Patient","birthDate":"1974-13-01"}"#) == ["Patient.birthDate: not a valid date"])
        #expect(errors(#"{"resourceType":"Patient","multipleBirthInteger":1.5}"#) == ["Patient.multipleBirthInteger: not a valid integer"])
        #expect(errors(#"{"resourceType":"Patient","multipleBirthInteger":3000000000}"#).count == 1)
        #expect(errors(#"{"resourceType":"Patient","photo":[{"data":"not base64!"}]}"#) == ["Patient.photo[0].data: not a valid base64Binary"])
        #expect(errors(#"{"resourceType":"Patient","name":[{"text":"Ann\u000Bx"}]}"#) == ["Patient.name[0].text: not a valid string"])
        // Unicode spaces are fine in strings (FHIR's \s is the XML Schema one, not ICU's).
        #expect(errors(#"{"resourceType":"Patient","name":[{"text":"Ann\u00A0Lee"}]}"#).isEmpty)
    }

    @Test("_ companions: shape, alignment and their extensions")
    func companions() {
        #expect(errors(#"{"resourceType":"Patient","_active":{"extension":[{"url":"http://x","valueBoolean":true}]}}"#).isEmpty)
        #expect(errors(#"{"resourceType":"Patient","_active":[]}"#) == ["Patient._active: a _ companion must be an object, found array"])
        #expect(errors(#"{"resourceType":"Patient","name":[{"given":["a","b"],"_given":[null]}]}"#)
            == ["Patient.name[0]._given: 1 companion items for 2 values"])
        #expect(errors(#"{"resourceType":"Patient","_active":{"extension":[{"valueBoolean":true}]}}"#)
            == ["Patient._active.extension[0].url: required element is missing (minimum 1)"])
        #expect(errors(#"{"resourceType":"Patient","_name":{}}"#) == ["Patient._name: only primitive elements have a _ companion"])
    }

    @Test("contained resources are validated and #id references must resolve")
    func containedReferences() {
        let good = ##"""
            {"resourceType":"Observation","status":"final","code":{"text":"x"},"contained":[{"resourceType":"Patient","id":"p"}],\##
            "subject":{"reference":"#p"}}
            """##
        #expect(errors(good).isEmpty)
        let bad = ##"""
            {"resourceType":"Observation","status":"final","code":{"text":"x"},"contained":[{"resourceType":"Patient","id":"p","active":1}],\##
            "subject":{"reference":"#q"}}
            """##
        #expect(errors(bad) == [
            "Observation.contained[0].active: a boolean must be a JSON boolean, found number",
            "Observation.subject: reference #q names no contained resource",
        ])
    }

    @Test("Bundle references: resource:N, urn:uuid and relative ones")
    func bundleReferences() {
        let bundle = #"""
            {"resourceType":"Bundle","type":"collection","entry":[
             {"fullUrl":"resource:0","resource":{"resourceType":"Patient","id":"p"}},
             {"fullUrl":"urn:uuid:6f3b5b6c-2a1e-4c3b-9a57-1c2d3e4f5a6b","resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},
               "subject":{"reference":"resource:0"},"performer":[{"reference":"resource:7"},{"reference":"urn:uuid:00000000-0000-0000-0000-000000000000"},
               {"reference":"Patient/p"},{"reference":"Practitioner/nowhere"}]}}]}
            """#
        #expect(errors(bundle) == [
            "Bundle.entry[1].resource.performer[0]: reference resource:7 names no entry of this Bundle",
            "Bundle.entry[1].resource.performer[1]: reference urn:uuid:00000000-0000-0000-0000-000000000000 names no entry fullUrl",
        ])
        #expect(warnings(bundle) == ["Bundle.entry[1].resource.performer[3]: relative reference Practitioner/nowhere is not in this Bundle"])
    }

    @Test("Bundle references inside contained resources of entries are checked too; a nested Bundle keeps its own")
    func nestedBundleReferences() {
        let bundle = #"""
            {"resourceType":"Bundle","type":"collection","entry":[
             {"fullUrl":"resource:0","resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},
               "contained":[{"resourceType":"Observation","id":"c","status":"final","code":{"text":"y"},"subject":{"reference":"resource:9"}}]}},
             {"fullUrl":"resource:1","resource":{"resourceType":"Bundle","type":"collection","entry":[
               {"fullUrl":"resource:0","resource":{"resourceType":"Observation","status":"final","code":{"text":"z"},"subject":{"reference":"resource:0"}}}]}}]}
            """#
        #expect(errors(bundle) == [
            "Bundle.entry[0].resource.contained[0].subject: reference resource:9 names no entry of this Bundle",
        ])
    }

    @Test("not JSON, not an object, unknown resource types")
    func documentLevel() {
        #expect(errors("{").count == 1)
        #expect(errors("[]") == ["(document): a resource must be a JSON object, found array"])
        #expect(errors(#"{"resourceType":"Spaceship"}"#) == [#"Spaceship: unknown resourceType "Spaceship""#])
        #expect(errors(#"{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Observation.component"}}]}"#).count == 1)
    }
}
