import FHIRCore
import Foundation
import ModelsDSTU2
import Testing

/// The DSTU2 decoder and validator never crash: random mutations of real resources, wrong JSON
/// kinds everywhere and deep nesting either decode or throw a typed error.
@Suite("DSTU2 decoder fuzzing")
struct DecoderFuzzTests {
    /// SplitMix64: a small seeded generator, so every run tries the same inputs.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [String] = [
        DSTU2APITests.medicationStatement,
        #"{"resourceType":"Patient","id":"p","name":[{"family":["Chalmers"],"given":["A",null],"_given":[null,{"id":"x"}]}],"#
            + #""birthDate":"1970","deceasedBoolean":false}"#,
        #"""
        {"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",\#
        "resource":{"resourceType":"Immunization","status":"completed","date":"2021-01-01",\#
        "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},"patient":{"reference":"Patient/p"},\#
        "wasNotGiven":false,"reported":false,"lotNumber":"0000001"}}]}
        """#,
        #"{"resourceType":"Observation","status":"final","code":{"text":"Heart rate"},"valueQuantity":{"value":72,"unit":"/min"},"#
            + #""component":[{"code":{"text":"x"},"valueString":"y"}]}"#,
    ]

    @Test("byte mutations of real resources never crash the decoder or the validator")
    func byteMutations() {
        var generator = SeededGenerator(state: 0xD572)
        var decoded = 0, rejected = 0
        let alphabet = Array(#"{}[]",:0123456789.eE-+truefalsnul\ "_xyzAZ"#.utf8) + [0, 0xC3, 0xFF]
        for iteration in 0..<6_000 {
            var bytes = Array(Self.seeds[iteration % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = alphabet.randomElement(using: &generator) ?? 0
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(alphabet.randomElement(using: &generator) ?? 0, at: position)
                default: bytes = Array(bytes[..<position])
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            do {
                _ = try ResourceProxy(fhirJSON: bytes)
                decoded += 1
            } catch {
                // A typed error whose description says what and where, never the data.
                #expect(!error.description.isEmpty)
                rejected += 1
            }
            _ = FHIRValidator().validate(bytes)
        }
        #expect(decoded > 0)
        #expect(rejected > 0)
    }

    @Test("every member replaced by every JSON kind is decoded or rejected with a typed error")
    func wrongKinds() throws {
        let replacements: [JSONValue] = [.null, .bool(true), .number("1"), .number("-0.0"), .string(""), .array([]), .object(JSONObject()),
                                         .array([.null]), .object(JSONObject(members: [JSONMember(key: "resourceType", value: .string("Patient"))]))]
        for seed in Self.seeds {
            guard case .object(let object) = try JSONParser.parse(seed) else { continue }
            for index in object.members.indices {
                for replacement in replacements {
                    var mutated = object
                    mutated.members[index].value = replacement
                    do {
                        _ = try ResourceProxy(fhirJSON: .object(mutated))
                    } catch {
                        #expect(!error.description.isEmpty)
                    }
                    _ = FHIRValidator().validate(.object(mutated))
                }
            }
        }
    }

    @Test("deep nesting is a typed error, not a stack overflow")
    func deepNesting() {
        let depth = 100_000
        let brackets = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let json = #"{"resourceType":"Basic","code":{"text":"x"},"extension":[{"url":"u","valueString":"# + brackets + "}]}"
        #expect(throws: FHIRDecodingError.self) { try ResourceProxy(fhirJSON: json) }
        // DSTU2's recursive groups (Questionnaire.group.group, a nameReference) decode and validate.
        var group = #"{"linkId":"leaf","text":"x"}"#
        for level in 0..<40 { group = #"{"linkId":"l\#(level)","group":[\#(group)]}"# }
        let questionnaire = #"{"resourceType":"Questionnaire","status":"draft","group":\#(group)}"#
        #expect((try? Questionnaire(fhirJSON: questionnaire)) != nil)
        #expect(FHIRValidator().validate(Array(questionnaire.utf8)).isEmpty)
    }

    @Test("companion rules are the same as R4's")
    func companionRules() {
        func reason(_ json: String) -> FHIRDecodingError.Reason? {
            do {
                _ = try ResourceProxy(fhirJSON: json)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(reason(#"{"resourceType":"Observation","_status":{},"code":{"text":"x"}}"#) == .emptyCompanion)
        #expect(reason(#"{"resourceType":"Patient","name":[{"given":[null]}]}"#) == .nullNotAllowed)
        #expect(reason(#"{"resourceType":"Patient","_active":{"id":1}}"#) == .wrongJSONType(expected: "string", found: "number"))
        #expect(reason(#"{"resourceType":"Patient","name":[{"given":[null,"b"],"_given":[{"id":"a"},null]}]}"#) == nil)
        #expect(reason(#"{"resourceType":"MedicationStatement","medicationCodeableConcept":{"text":"x"},"patient":{"reference":"Patient/p"}}"#)
            == .missingRequiredElement)
    }
}
