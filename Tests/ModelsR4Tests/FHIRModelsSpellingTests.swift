import Foundation
import ModelsR4
import Testing

// This file imports ModelsR4 only: FHIRCore's primitives (`DateTime`, `FHIRDate`, `Instant`,
// `FHIRString`…) must come with it, as FHIRModels' core comes with its ModelsR4. It stops
// compiling if the re-export goes.

/// FHIRModels' spellings that ported code uses, beside ours.
@Suite struct FHIRModelsSpellingTests {
    @Test func dateConversionsToNSDate() throws {
        let dateTime = DateTime("2020-03-04T05:06:07+02:00")
        #expect(try dateTime.asNSDate() as Date == dateTime.asDate())
        #expect((try dateTime.asNSDate() as Date).timeIntervalSince1970 == 1_583_291_167)
        let day = FHIRDate("1970-01-02")
        #expect((try day.asNSDate() as Date).timeIntervalSince1970 == 86_400)
        let instant = Instant("2020-03-04T03:06:07Z")
        #expect(try instant.asNSDate() as Date == dateTime.asDate())
    }

    @Test func urisFromURLsAndResourceProxyWith() throws {
        let url = try #require(URL(string: "http://loinc.org"))
        var coding = Coding()
        coding.system = url.asFHIRURIPrimitive()
        coding.code = FHIRString("2345-7").asPrimitive()
        #expect(coding.system?.string == "http://loinc.org" && coding.code?.string == "2345-7")
        var patient = Patient()
        patient.id = FHIRString("p1").asPrimitive()
        let proxy = ResourceProxy(with: patient)
        #expect(proxy.resourceType == "Patient" && proxy.get(if: Patient.self)?.id?.value?.string == "p1")
        let decoded = try ResourceProxy(fhirJSON: Array(#"{"resourceType":"Observation","status":"final","code":{"text":"x"}}"#.utf8))
        #expect(decoded.resourceType == "Observation")
        #expect("http://example.org/a".asFHIRURIPrimitive()?.string == "http://example.org/a")
        #expect("not a uri".asFHIRURIPrimitive() == nil && "not a uri".asFHIRURI() == nil)
    }

    @Test func extensionsForAURLOnResourcesElementsAndPrimitives() throws {
        let json = #"""
        {"resourceType":"Patient","extension":[{"url":"http://e/a","valueString":"1"},{"url":"http://e/b","valueString":"2"}],
         "name":[{"extension":[{"url":"http://e/a","valueString":"3"}],"family":"F","_family":{"extension":[{"url":"http://e/a","valueString":"4"}]}}]}
        """#
        let patient = try Patient(fhirJSON: Array(json.utf8))
        #expect(patient.extensions(for: "http://e/a").count == 1 && patient.extensions(for: "http://e/c").isEmpty)
        let name = try #require(patient.name?.first)
        #expect(name.extensions(for: "http://e/a").count == 1)
        #expect(name.family?.extensions(for: "http://e/a").count == 1)
    }
}
