import FHIRCore
import ModelsR4
import Testing

@Suite("Indirect properties")
struct IndirectTests {
    @Test("an out-of-line optional reads, writes, clears and compares like a stored one")
    func valueSemantics() {
        var reference = Reference()
        #expect(reference.identifier == nil)
        #expect(reference == Reference())
        var identifier = Identifier()
        identifier.system = "urn:example"
        reference.identifier = identifier
        let copy = reference
        reference.identifier?.value = "42"
        #expect(copy.identifier?.value == nil)
        #expect(reference.identifier?.value?.string == "42")
        #expect(reference != copy)
        #expect(Set([copy, copy]).count == 1)
        reference.identifier = nil
        #expect(reference == Reference())
        #expect(reference.hashValue == Reference().hashValue)
    }
}

@Suite("Boxed choice variants")
struct BoxedChoiceTests {
    @Test("a choice keeps complex variants in boxes: it is the size of a primitive variant, not of its largest type")
    func choicesAreSmall() {
        // The largest primitive variants (a date-time keeps its parts and its time zone inline).
        let primitive = [MemoryLayout<FHIRPrimitive<DateTime>>.size, MemoryLayout<FHIRPrimitive<Instant>>.size,
                         MemoryLayout<FHIRPrimitive<FHIRDecimal>>.size, MemoryLayout<FHIRPrimitive<FHIRString>>.size].max() ?? 0
        // Extension.value[x] has 50 variants, Dosage (over 1 KB inline) among them.
        #expect(MemoryLayout<Extension.ValueX>.size <= primitive + 8)
        #expect(MemoryLayout<Observation.ValueX>.size <= primitive + 8)
        #expect(MemoryLayout<Observation.EffectiveX>.size <= primitive + 8)
        #expect(MemoryLayout<Dosage>.size > 8 * primitive)
        #expect(MemoryLayout<Extension>.size < 4 * primitive)
    }

    @Test("a boxed variant has value semantics: changing a copy leaves the original")
    func boxedVariantsAreValues() throws {
        var quantity = Quantity()
        quantity.value = FHIRPrimitive(FHIRDecimal(1))
        let original = Extension(url: "urn:example", value: .quantity(quantity))
        var copy = original
        quantity.value = FHIRPrimitive(FHIRDecimal(2))
        copy.value = .quantity(quantity)
        guard case .quantity(let kept)? = original.value, case .quantity(let changed)? = copy.value else {
            Issue.record("the variants were lost")
            return
        }
        #expect(kept.value?.value == FHIRDecimal(1))
        #expect(changed.value?.value == FHIRDecimal(2))
        #expect(original != copy)
        let decoded = try Extension(fhirJSON: original.fhirJSONBytes())
        #expect(decoded == original)
    }
}
