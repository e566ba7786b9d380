import FHIRCore
import ModelsR4
import Foundation
import Synchronization
import Testing
import TestSupport

/// The decoder and the validator never crash: random mutations of real resources, random bytes,
/// wrong JSON kinds everywhere and deep nesting either decode or throw a typed error.
@Suite("Decoder fuzzing")
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
        DecodingTests.observationJSON,
        #"{"resourceType":"Patient","id":"p","name":[{"given":["A",null],"_given":[null,{"id":"x"}]}],"birthDate":"1970","deceasedBoolean":false}"#,
        #"""
            {"resourceType":"Bundle","type":"collection","entry":[{"fullUrl":"resource:0","resource":{"resourceType":"Immunization","status":"completed",\#
            "vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},"patient":{"reference":"resource:0"},\#
            "occurrenceDateTime":"2021-01-01","lotNumber":"0000001"}}]}
            """#,
    ]

    @Test("byte mutations of real resources never crash the decoder or the validator")
    func byteMutations() {
        var generator = SeededGenerator(state: 0x5EED)
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
            if (try? ResourceProxy(fhirJSON: bytes)) != nil { decoded += 1 } else { rejected += 1 }
            _ = FHIRValidator().validate(bytes)
        }
        #expect(decoded > 0)
        #expect(rejected > 0)
    }

    @Test("every member replaced by every JSON kind is decoded or rejected with a path")
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
        // Recursive backbone elements nested within the element-depth limit decode and validate.
        var item = #"{"linkId":"leaf","type":"display"}"#
        for level in 0..<50 { item = #"{"linkId":"l\#(level)","type":"group","item":[\#(item)]}"# }
        let questionnaire = #"{"resourceType":"Questionnaire","status":"draft","item":[\#(item)]}"#
        #expect((try? Questionnaire(fhirJSON: questionnaire)) != nil)
        #expect(FHIRValidator().validate(Array(questionnaire.utf8)).isEmpty)
    }
}

@Suite("Decoding limits and companions")
struct DecodingLimitTests {
    /// `levels` extensions nested in each other's `extension` arrays, inside a Basic resource.
    static func nestedExtensions(_ levels: Int) -> String {
        var inner = #"{"url":"u","valueDosage":{"timing":{"repeat":{"count":1}}}}"#
        for _ in 0..<levels { inner = #"{"url":"u","extension":[\#(inner)]}"# }
        return #"{"resourceType":"Basic","code":{"text":"x"},"extension":[\#(inner)]}"#
    }

    /// Runs `body` on a thread with an 8 MiB stack, Linux's default for threads.
    static func onSmallStack(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                continuation.resume()
            }
            thread.stackSize = 8 * 1024 * 1024
            thread.start()
        }
    }

    @Test("nesting past maximumElementDepth is a typed error; nesting just inside it decodes on an 8 MiB thread stack (debug build)")
    func elementDepth() async {
        let limit = FHIRDecodingOptions.strict.maximumElementDepth
        let tooDeep = Self.nestedExtensions(limit + 5)
        let deepest = Self.nestedExtensions(limit - 6)
        let outcome = Mutex<(Bool, Bool)>((false, false))
        await Self.onSmallStack {
            let rejected: Bool
            do {
                _ = try ResourceProxy(fhirJSON: tooDeep)
                rejected = false
            } catch let error as FHIRDecodingError {
                if case .tooDeep = error.reason { rejected = true } else { rejected = false }
            } catch {
                rejected = false
            }
            let decoded = (try? ResourceProxy(fhirJSON: deepest)) != nil
            outcome.withLock { $0 = (rejected, decoded) }
        }
        let (rejected, decoded) = outcome.withLock { $0 }
        #expect(rejected)
        #expect(decoded)
    }

    @Test("empty companions, bare nulls and a companion's own _id are rejected, so decoding never loses them")
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
        #expect(reason(#"{"resourceType":"Patient","name":[{"given":["a",null],"_given":[null,null]}]}"#) == .nullNotAllowed)
        #expect(reason(#"{"resourceType":"Patient","name":[{"_given":[null]}]}"#) == .nullNotAllowed)
        #expect(reason(#"{"resourceType":"Patient","_active":{"id":"a","_id":{"id":"b"}}}"#) == .unknownMember)
        #expect(reason(#"{"resourceType":"Patient","_active":{"id":1}}"#) == .wrongJSONType(expected: "string", found: "number"))
        #expect(reason(#"{"resourceType":"Patient","name":[{"given":[null,"b"],"_given":[{"id":"a"},null]}]}"#) == nil)
    }

    @Test("the validator refuses data types as resources and bare nulls in repeating primitives")
    func validatorRules() {
        let validator = FHIRValidator()
        #expect(validator.validate(Array(#"{"resourceType":"HumanName","family":"x"}"#.utf8)).map(\.message) == [#"unknown resourceType "HumanName""#])
        #expect(validator.validate(Array(#"{"resourceType":"DomainResource"}"#.utf8)).count == 1)
        #expect(validator.validate(Array(#"{"resourceType":"Patient","name":[{"given":["a",null],"_given":[{"id":"x"},null]}]}"#.utf8))
            .map(\.description) == ["error: Patient.name[0].given[1]: null is not allowed here"])
    }
}
