import Foundation
import Testing
@testable import FHIRCore

@Suite("String-like primitives")
struct FHIRStringTests {
    @Test func fhirString() throws {
        let value = try FHIRString(fhirJSON: .string("héllo 😀"))
        #expect(value.string == "héllo 😀")
        #expect(value.fhirJSON == .string("héllo 😀"))
        #expect(value.description == "héllo 😀")
        let literal: FHIRString = "final"
        #expect(literal == FHIRString("final"))
        #expect(throws: FHIRPrimitiveError(type: "string", reason: "expected a string, found number")) {
            try FHIRString(fhirJSON: .number("1"))
        }
    }

    @Test func fhirBool() throws {
        #expect(try FHIRBool(fhirJSON: .bool(true)).bool)
        #expect(try !FHIRBool(fhirJSON: .bool(false)).bool)
        let literal: FHIRBool = true
        #expect(literal.fhirJSON == .bool(true))
        #expect(FHIRBool(false).description == "false")
        #expect(throws: FHIRPrimitiveError(type: "boolean", reason: "expected a boolean, found string")) {
            try FHIRBool(fhirJSON: .string("true"))
        }
    }

    @Test func fhirURI() throws {
        let value = try FHIRURI(fhirJSON: .string("http://loinc.org"))
        #expect(value.url == URL(string: "http://loinc.org"))
        #expect(value.fhirJSON == .string("http://loinc.org"))
        let canonical: FHIRCanonical = "http://hl7.org/fhir/StructureDefinition/Patient|4.0.1"
        #expect(canonical.string.hasSuffix("|4.0.1"))
        let urn = try #require(URL(string: "urn:uuid:53fefa32-fcbb-4ff8-8a92-55ee120877b7"))
        #expect(FHIRURI(urn).string == urn.absoluteString)
        #expect(throws: FHIRPrimitiveError.self) { try FHIRURI(fhirJSON: .array([])) }
    }

    @Test func base64Binary() throws {
        let bytes = Data([0, 1, 2, 250, 251, 252, 253, 254, 255])
        let value = Base64Binary(data: bytes)
        #expect(value.string == "AAEC+vv8/f7/")
        #expect(value.data == bytes)
        #expect(try Base64Binary(fhirJSON: .string("AAEC\n+vv8 /f7/")).data == bytes)
        // Decoding keeps bad text (validation reports it); only `data` fails.
        let bad = try Base64Binary(fhirJSON: .string("not*base64"))
        #expect(bad.string == "not*base64")
        #expect(bad.data == nil)
        #expect(bad.fhirJSON == .string("not*base64"))
        #expect(throws: FHIRPrimitiveError(type: "base64Binary", reason: "expected a string, found number")) {
            try Base64Binary(fhirJSON: .number("1"))
        }
    }
}
