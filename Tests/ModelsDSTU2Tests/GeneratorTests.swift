import FHIRCore
import ModelsDSTU2
import Testing

/// What the generator made of DSTU2's definitions: the shapes FHIRModels' ModelsDSTU2 has.
@Suite("ModelsDSTU2 shapes")
struct ShapeTests {
    @Test("DSTU2 names: MedicationOrder, nested types with flat aliases, profiled quantities, code enums")
    func names() {
        let resourceTypes = Set(ResourceType.allKnownCases.map(\.rawValue))
        #expect(resourceTypes.contains("MedicationOrder") && !resourceTypes.contains("MedicationRequest"))
        #expect(resourceTypes.count == 96, "94 concrete resources plus Resource and DomainResource")
        #expect(MedicationStatementStatus.allKnownCases.map(\.rawValue) == ["active", "completed", "entered-in-error", "intended"])
        let _: ObservationReferenceRange.Type = Observation.ReferenceRange.self
        let _: Duration.Type = Quantity.self
        let _: SimpleQuantity.Type = Quantity.self
        // `Observation.component.referenceRange` reuses `Observation.referenceRange` (a nameReference).
        let component = Observation.Component(code: CodeableConcept(text: "x"), referenceRange: [Observation.ReferenceRange(text: "normal")])
        #expect(component.referenceRange?.first?.text?.string == "normal")
    }
}
