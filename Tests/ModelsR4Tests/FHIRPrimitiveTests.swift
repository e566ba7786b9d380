import FHIRCore
import ModelsR4
import Testing

@Suite("FHIRPrimitive")
struct FHIRPrimitiveTests {
    @Test("the id and extensions are kept, replaced and cleared through the properties, with value semantics")
    func companion() {
        var given = FHIRPrimitive(FHIRString("Ann"))
        #expect(!given.hasCompanion && given.id == nil && given.extension == nil)
        given.id = "g1"
        let copy = given
        given.extension = [Extension(url: "http://example.org/x")]
        #expect(given.hasCompanion && given.id == "g1" && given.extension?.count == 1)
        #expect(copy.id == "g1" && copy.extension == nil)
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
        built.id = "i"
        let direct = FHIRPrimitive(FHIRString("x"), id: "i", extension: [Extension(url: "http://example.org/y")])
        #expect(built == direct)
        #expect(Set([built, direct]).count == 1)
        #expect(direct != FHIRPrimitive(FHIRString("x"), id: "i"))
    }

    @Test("a decoded primitive with only a companion round-trips, and the companion survives copies of its owner")
    func decodedCompanion() throws {
        let json = #"{"resourceType":"Patient","_gender":{"id":"g","extension":[{"url":"http://example.org/z","valueString":"v"}]}}"#
        let patient = try Patient(fhirJSON: json)
        var copy = patient
        #expect(copy.gender?.value == nil)
        #expect(copy.gender?.id == "g")
        copy.gender?.id = "h"
        #expect(patient.gender?.id == "g")
        #expect(patient.fhirJSONString() == json)
    }

    @Test("FHIRModels' primitive API: a String id, isNull, hasPrimitiveData, comparing with the value, float literals, asFHIR…Primitive()")
    func fhirModelsSpellings() {
        let id: String = "n1"
        var name = FHIRPrimitive(FHIRString("Ann"), id: id)
        #expect(name.id == "n1" && name.hasPrimitiveData && !name.isNull)
        #expect(name == FHIRString("Ann") && FHIRString("Ann") == name && name != FHIRString("Bob"))
        name.id = nil
        #expect(!name.hasPrimitiveData && FHIRPrimitive<FHIRString>().isNull)
        #expect(name.primitiveDescription.contains("value=\"Ann\"") && name.primitiveDescription.contains("nil id"))
        let decimal: FHIRPrimitive<FHIRDecimal> = 6.3
        #expect(decimal.value?.text == "6.3")
        #expect(5.asFHIRIntegerPrimitive().value?.integer == 5 && 0.asFHIRPositiveIntegerPrimitive().value?.integer == 1)
        #expect((-3).asFHIRUnsignedIntegerPrimitive().value?.integer == 0)
        #expect(2.5.asFHIRDecimalPrimitive().value?.text == "2.5" && Double.nan.asFHIRDecimalPrimitive().value == nil)
        #expect(FHIRString("x").asPrimitive(with: "i").id == "i")
    }
}
