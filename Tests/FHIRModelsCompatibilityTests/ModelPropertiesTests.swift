import Foundation
import ModelsR4
import Testing

/// FHIRModels' HowTo "Model Properties": literals, primitives and value-X enums.
@Suite struct ModelPropertiesTests {
    @Test func patientWithAName() {
        let name = HumanName(family: "Altick", given: ["Kelly"])
        let patient = Patient(name: [name])

        let first: FHIRPrimitive<FHIRString>? = name.given?.first
        let value: FHIRString? = name.given?.first?.value
        let string: String? = name.given?.first?.value?.string
        #expect(first == "Kelly" && value == "Kelly" && string == "Kelly")
        #expect(patient.name?.first?.family == "Altick")
    }

    @Test func primitivesComparedAndAssignedWithLiterals() {
        var patient = Patient()
        patient.id = "101"
        patient.active = true
        let resource = patient
        var matched = false
        if resource.id == "101" {
            matched = true
        }
        #expect(matched)
        let id = resource.id?.value?.string
        #expect(id == "101")
        #expect(patient.active?.value?.bool == true)
    }

    @Test func urlsAndStringsAsURIPrimitives() throws {
        let url = URL(string: "http://apple.com")!.asFHIRURIPrimitive()
        let typed: FHIRPrimitive<FHIRURI> = url
        #expect(typed.value?.url == URL(string: "http://apple.com"))
        let str = "http://hl7.org/fhir".asFHIRURIPrimitive()
        let optional: FHIRPrimitive<FHIRURI>? = str
        #expect(optional?.value?.url.absoluteString == "http://hl7.org/fhir")
    }

    @Test func valueXAsEnums() throws {
        let decoder = JSONDecoder()
        var references = 0
        var concepts = 0
        for number in 1...7 {
            let data = try Fixtures.data("MedicationStatement-example00\(number).json")
            let med = try decoder.decode(MedicationStatement.self, from: data)
            if case .reference(let ref) = med.medication {
                references += 1
                #expect(ref.reference != nil || ref.display != nil)
            } else if case .codeableConcept(let cc) = med.medication {
                concepts += 1
                #expect(cc.coding != nil || cc.text != nil)
            }
        }
        #expect(references >= 1 && concepts >= 1 && references + concepts == 7)
    }

    @Test func primitivesFromSwiftValues() {
        var observation = Observation(code: CodeableConcept(text: "Body temperature"), status: FHIRPrimitive(.final))
        observation.value = .quantity(Quantity(unit: "Cel", value: 37.2))
        var component = ObservationComponent(code: CodeableConcept(text: "count"))
        component.value = .integer(12.asFHIRIntegerPrimitive())
        observation.component = [component]
        let issued = "2020-03-12T12:33:54Z"
        observation.issued = FHIRPrimitive(try? Instant(issued))
        let text = "note".asFHIRStringPrimitive()
        let flag = true.asPrimitive()
        let decimal = 37.5.asFHIRDecimalPrimitive()
        let id: String? = FHIRPrimitive(FHIRString("x"), id: "element-1").id
        #expect(text == FHIRString("note") && flag.value?.bool == true && decimal.value?.decimal == Decimal(string: "37.5"))
        #expect(id == "element-1" && !text.isNull && !text.hasPrimitiveData)
        if case .quantity(let quantity) = observation.value {
            #expect(quantity.value?.value?.double == 37.2)
        }
        #expect(observation.issued?.value?.timeZone == TimeZone(secondsFromGMT: 0))
    }
}
