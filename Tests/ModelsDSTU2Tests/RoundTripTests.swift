import FHIRCore
import Foundation
import ModelsDSTU2
import Testing

/// Every official DSTU2 example decodes with ModelsDSTU2 and re-encodes to semantically equal JSON:
/// same members, same values, numbers byte-equal (so `19.00` stays `19.00`).
@Suite("DSTU2 round trip of the spec examples", .enabled(if: DSTU2Examples.available, DSTU2Examples.skipReason))
struct RoundTripTests {
    static let examples = DSTU2Examples.files

    @Test("all 164 DSTU2 spec examples are here")
    func folderHasExamples() {
        #expect(Self.examples.count == 164)
    }

    @Test("DSTU2 spec example round-trips", arguments: examples)
    func specExample(_ name: String) throws {
        let bytes = try DSTU2Examples.bytes(name)
        let input = try JSONParser.parse(bytes)
        let resource = try ResourceProxy(fhirJSON: input)
        if case .unrecognized = resource {
            Issue.record("\(name): resourceType not recognised")
            return
        }
        let output = try JSONParser.parse(resource.fhirJSONBytes())
        let difference = firstDifference(input, output)
        #expect(difference == nil, "\(name): \(difference ?? "")")
        let pretty = try JSONParser.parse(resource.fhirJSONBytes(style: .pretty))
        #expect(pretty == output)
        // JSONDecoder (FHIRModels' way in) decodes it too; it reads numbers as binary values, so
        // `6.0` may come back as `6`, but what it decodes survives JSONEncoder unchanged.
        let decoded = try JSONDecoder().decode(ResourceProxy.self, from: Data(bytes))
        #expect(decoded.resourceType == resource.resourceType)
        #expect(try JSONDecoder().decode(ResourceProxy.self, from: try JSONEncoder().encode(decoded)) == decoded)
    }

    @Test("the DSTU2 examples the validator accepts: every one has no errors")
    func examplesValidate() throws {
        var failures: [String] = []
        for name in Self.examples {
            let errors = FHIRValidator().validate(try DSTU2Examples.bytes(name)).filter { $0.severity == .error }
            if !errors.isEmpty { failures.append("\(name): \(errors.prefix(3).map(\.description))") }
        }
        #expect(failures.isEmpty, "\(failures.count) examples with errors: \(failures.prefix(10))")
    }
}

@Suite("ModelsDSTU2 API, as FHIRModels' ModelsDSTU2")
struct DSTU2APITests {
    static let medicationStatement = #"""
        {"resourceType":"MedicationStatement","id":"ms1","status":"active","patient":{"reference":"Patient/p1"},
         "medicationCodeableConcept":{"text":"Lisinopril 10 mg"},"effectiveDateTime":"2015-02-07T13:28:17-05:00",
         "_status":{"extension":[{"url":"http://example.org/note","valueString":"checked"}]},
         "dosage":[{"text":"once daily","quantityQuantity":{"value":10.0,"unit":"mg"}}]}
        """#

    @Test("decoding with JSONDecoder and reading elements as FHIRModels users do")
    func readElements() throws {
        let statement = try JSONDecoder().decode(MedicationStatement.self, from: Data(Self.medicationStatement.utf8))
        #expect(statement.status.value?.rawValue == "active")
        #expect(statement.status.value == .active)
        #expect(statement.status.extensions(for: "http://example.org/note").count == 1)
        #expect(statement.patient.reference?.value?.string == "Patient/p1")
        guard case .codeableConcept(let concept) = statement.medication else {
            Issue.record("medication[x] is not a CodeableConcept")
            return
        }
        #expect(concept.text?.string == "Lisinopril 10 mg")
        guard case .dateTime(let effective) = statement.effective else {
            Issue.record("effective[x] is not a dateTime")
            return
        }
        #expect(effective.date != nil)
        guard case .quantity(let quantity) = statement.dosage?.first?.quantity else {
            Issue.record("dosage.quantity[x] is not a Quantity")
            return
        }
        #expect(quantity.value?.double == 10)
        // init(fhirJSON:) keeps the decimal's text, which JSONDecoder cannot.
        #expect(try MedicationStatement(fhirJSON: Self.medicationStatement).dosage?.first?.quantity == .quantity(Quantity(unit: "mg",
            value: FHIRPrimitive(FHIRDecimal(text: "10.0")))))
        let dosage: MedicationStatementDosage? = statement.dosage?.first
        #expect(dosage?.text?.string == "once daily")
    }

    @Test("ResourceProxy: get(), get(if:), resourceType, init(with:)")
    func resourceProxy() throws {
        let proxy = try ResourceProxy(fhirJSON: Self.medicationStatement)
        #expect(proxy.resourceType == "MedicationStatement")
        #expect(proxy.get(if: MedicationStatement.self)?.id?.string == "ms1")
        #expect(proxy.get(if: Patient.self) == nil)
        let statement = try #require(proxy.get(if: MedicationStatement.self))
        #expect(ResourceProxy(with: statement) == proxy)
        #expect(proxy.get().relativeReference == "MedicationStatement/ms1")
        // A DSTU2 type R4 renamed: MedicationOrder.
        let order = try ResourceProxy(fhirJSON: #"{"resourceType":"MedicationOrder","status":"active","medicationCodeableConcept":{"text":"x"}}"#)
        #expect(order.get(if: MedicationOrder.self)?.status?.value == .active)
        // An R4-only type is kept as JSON.
        let unknown = try ResourceProxy(fhirJSON: #"{"resourceType":"MedicationRequest","id":"r","status":"active"}"#)
        guard case .unrecognized(let json) = unknown else {
            Issue.record("MedicationRequest decoded as a DSTU2 type")
            return
        }
        #expect(json.resourceTypeName == "MedicationRequest" && json.id?.string == "r")
        #expect(unknown.fhirJSONString() == #"{"resourceType":"MedicationRequest","id":"r","status":"active"}"#)
    }

    @Test("building values with the memberwise initializers and literals, then encoding")
    func buildAndEncode() throws {
        var statement = MedicationStatement(
            medication: .codeableConcept(CodeableConcept(text: "Aspirin")),
            patient: Reference(reference: "Patient/p1"),
            status: FHIRPrimitive(.completed)
        )
        statement.id = "s1"
        statement.note = "taken with food".asFHIRStringPrimitive()
        let age: Age = Quantity(unit: "a", value: FHIRPrimitive(FHIRDecimal(42)))
        #expect(age.unit?.string == "a")
        let text = statement.fhirJSONString()
        #expect(text.contains(#""status":"completed""#))
        let back = try MedicationStatement(fhirJSON: text)
        #expect(back == statement)
        #expect(FHIRValidator().validate(Array(text.utf8)).isEmpty)
    }

    @Test("validator: unknown elements, codes of required bindings and missing required elements")
    func validator() {
        let statement = #"{"resourceType":"MedicationStatement","status":"on-hold","medicationCodeableConcept":{"text":"x"},"dosage2":[]}"#
        let issues = FHIRValidator().validate(Array(statement.utf8))
        let messages = issues.filter { $0.severity == .error }.map(\.description)
        #expect(messages.contains { $0.contains("MedicationStatement.status") && $0.contains("required value set") })
        #expect(messages.contains { $0.contains("MedicationStatement.patient") && $0.contains("required element is missing") })
        #expect(messages.contains { $0.contains("MedicationStatement.dosage2") && $0.contains("unknown element") })
        // An R4 element is unknown in DSTU2.
        let r4Only = FHIRValidator().validate(Array(#"{"resourceType":"Patient","id":"p","name":[{"family":"Chalmers"}]}"#.utf8))
        #expect(r4Only.contains { $0.path.hasPrefix("Patient.name[0].family") }, "DSTU2's HumanName.family is an array")
    }
}
