import Foundation
import ModelsR4
import Testing

// This target holds code written the way FHIRModels' HowTo and public API document it, with one
// change only: our models are structs, so a value that is changed after it is made is `var`.
// It imports ModelsR4 alone; if any of it stops compiling, the port is broken.

/// FHIRModels' HowTo "Instantiating FHIR Models".
@Suite struct InstantiationTests {
    @Test func resourceProxyFromJSONData() throws {
        let data = try Fixtures.data("Patient-example.json")
        let decoder = JSONDecoder()
        let proxy = try decoder.decode(ResourceProxy.self, from: data)

        let resource = proxy.get()
        #expect(resource is Patient)

        let patient = proxy.get(if: Patient.self)
        #expect(patient?.id?.value?.string == "example")
        #expect(proxy.get(if: Observation.self) == nil)

        if case .patient(let patient) = proxy {
            #expect(patient.name?.first?.family?.value?.string == "Chalmers")
        } else {
            Issue.record("expected a patient")
        }

        switch proxy {
        case .patient(let patient):
            #expect(patient.active == true)
        default:
            Issue.record("expected a patient")
        }
        #expect(proxy.resourceType == "Patient")
    }

    @Test func decodeToAKnownResource() throws {
        let data = try Fixtures.data("Patient-example.json")
        let decoder = JSONDecoder()
        let resource = try decoder.decode(Patient.self, from: data)
        #expect(resource.birthDate?.value?.year == 1974)
        #expect(throws: (any Error).self) { try decoder.decode(Observation.self, from: data) }
    }

    @Test func resourcesFromABundle() throws {
        let data = try Fixtures.data("Bundle-101.json")
        let bundle = try JSONDecoder().decode(ModelsR4.Bundle.self, from: data)
        let observations = bundle.entry?.compactMap {
            $0.resource?.get(if: ModelsR4.Observation.self)
        }
        #expect(observations?.count == 17)
        #expect(observations?.allSatisfy { $0.status.value != nil } == true)
    }

    @Test func everyCommittedExampleDecodesThroughJSONDecoderAndBack() throws {
        let names = try Fixtures.allNames()
        #expect(names.count > 100)
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        for name in names {
            let data = try Fixtures.data(name)
            let proxy = try decoder.decode(ResourceProxy.self, from: data)
            let again = try decoder.decode(ResourceProxy.self, from: try encoder.encode(proxy))
            #expect(again == proxy, "\(name)")
            // Through Foundation a number is a binary value: the lossless reader gives the same
            // resource up to a decimal's written form.
            let lossless = try ResourceProxy(fhirJSON: Array(data))
            #expect(lossless.resourceType == proxy.resourceType && lossless.get().id == proxy.get().id, "\(name)")
        }
    }
}
