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
