import Foundation
import ModelsR4
import Testing

/// Models built with FHIRModels' initializers, encoded and decoded again.
@Suite struct ConstructionTests {
    @Test func anObservationBuiltFromParts() throws {
        let coding = Coding(code: "2345-7", display: "Glucose [Mass/volume] in Serum or Plasma", system: "http://loinc.org")
        let concept = CodeableConcept(coding: [coding], text: "Glucose")
        let quantity = Quantity(code: "mg/dL", system: "http://unitsofmeasure.org", unit: "mg/dL", value: 95)
        var observation = Observation(code: concept, status: FHIRPrimitive(.final))
        observation.value = .quantity(quantity)
        observation.subject = Reference(reference: "Patient/example")
        observation.id = "glucose"

        let data = try JSONEncoder().encode(observation)
        let decoded = try JSONDecoder().decode(Observation.self, from: data)
        #expect(decoded == observation)
        #expect(decoded.code.coding?.first?.system?.value?.url.absoluteString == "http://loinc.org")
        if case .quantity(let value) = decoded.value {
            #expect(value.value?.value?.decimal == 95)
        } else {
            Issue.record("expected a valueQuantity")
        }
        let proxy = ResourceProxy(with: decoded)
        #expect(proxy.resourceType == "Observation")
    }

    @Test func requiredElementsHaveNoDefault() {
        // Observation(code:status:) is FHIRModels' designated initializer; the same call works here.
        let observation = Observation(code: CodeableConcept(text: "Heart rate"), status: FHIRPrimitive(.preliminary))
        #expect(observation.status.value == .preliminary && observation.value == nil)
        let reference = Reference(display: "Dr. Adam Careful", reference: "Practitioner/example")
        let encounter = Encounter(class: Coding(code: "AMB"), status: FHIRPrimitive(.finished), subject: reference)
        #expect(encounter.`class`.code == "AMB" && encounter.subject?.display == "Dr. Adam Careful")
    }

    @Test func aBundleOfResources() throws {
        let patient = Patient(id: "p1", name: [HumanName(family: "Altick", given: ["Kelly"])])
        let entry = BundleEntry(fullUrl: "urn:uuid:p1", resource: ResourceProxy(with: patient))
        let bundle = ModelsR4.Bundle(entry: [entry], type: FHIRPrimitive(.collection))
        let data = try JSONEncoder().encode(bundle)
        let decoded = try JSONDecoder().decode(ModelsR4.Bundle.self, from: data)
        #expect(decoded.entry?.first?.resource?.get(if: Patient.self)?.name?.first?.given?.first == "Kelly")
        #expect(decoded == bundle)
    }
}
