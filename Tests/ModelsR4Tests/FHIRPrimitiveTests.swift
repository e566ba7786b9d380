import FHIRCore
import ModelsR4
import Testing

@Suite("FHIRPrimitive")
struct FHIRPrimitiveTests {
    @Test("the id and extensions are kept, replaced and cleared through the properties, with value semantics")
    func companion() {
        var given = FHIRPrimitive(FHIRString("Ann"))
        #expect(!given.hasCompanion && given.id == nil && given.extension == nil)
        given.id = FHIRString("g1")
        let copy = given
        given.extension = [Extension(url: "http://example.org/x")]
        #expect(given.hasCompanion && given.id == FHIRString("g1") && given.extension?.count == 1)
        #expect(copy.id == FHIRString("g1") && copy.extension == nil)
        #expect(copy != given)
        given.id = nil
        given.extension = nil
        #expect(!given.hasCompanion)
        #expect(given == FHIRPrimitive(FHIRString("Ann")))
    }

    @Test("equal primitives hash alike, however their companions were built")
    func hashing() {
        var built = FHIRPrimitive(FHIRString("x"))
        built.extension = [Extension(url: "http://example.org/y")]
        built.id = FHIRString("i")
        let direct = FHIRPrimitive(FHIRString("x"), id: FHIRString("i"), extension: [Extension(url: "http://example.org/y")])
        #expect(built == direct)
        #expect(Set([built, direct]).count == 1)
        #expect(direct != FHIRPrimitive(FHIRString("x"), id: FHIRString("i")))
    }

    @Test("a decoded primitive with only a companion round-trips, and the companion survives copies of its owner")
    func decodedCompanion() throws {
        let json = #"{"resourceType":"Patient","_gender":{"id":"g","extension":[{"url":"http://example.org/z","valueString":"v"}]}}"#
        let patient = try Patient(fhirJSON: json)
        var copy = patient
        #expect(copy.gender?.value == nil)
        #expect(copy.gender?.id == FHIRString("g"))
        copy.gender?.id = FHIRString("h")
        #expect(patient.gender?.id == FHIRString("g"))
        #expect(patient.fhirJSONString() == json)
    }
}
