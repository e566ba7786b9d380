import Foundation
import ModelsR4
import Testing

// FHIRModels' HowTo "Working with Extensions": a Swift extension on FHIRPrimitive for a FHIR
// extension.
extension FHIRPrimitive {
    var mothersFamilyName: String? {
        guard let mothersFamilyExtension = extensions(for: "http://hl7.org/fhir/StructureDefinition/humanname-mothers-family").first else {
            return nil
        }
        if case .string(let str) = mothersFamilyExtension.value {
            return str.value?.string
        }
        // Not a `valueString`
        return nil
    }
}

@Suite struct ExtensionsTests {
    @Test func mothersFamilyNameFromAPrimitivesExtension() throws {
        let string = """
            {
                "resourceType": "Patient",
                "id": "2429563849",
                "name": [
                    {
                        "use": "official",
                        "family": "SMITH",
                        "_family": {
                            "extension": [
                                {
                                    "url": "http://hl7.org/fhir/StructureDefinition/humanname-mothers-family",
                                    "valueString": "JOHNSON"
                                }
                            ]
                        },
                        "given": [
                            "JOHN"
                        ]
                    }
                ]
            }
            """
        let data = try #require(string.data(using: .utf8))
        let decoder = JSONDecoder()
        let patient = try decoder.decode(Patient.self, from: data)
        var lines: [String] = []
        for name in patient.name ?? [] {
            lines.append("family: \(name.family?.value?.string ?? "{nil}"), mother's family: \(name.family?.mothersFamilyName ?? "{nil}")")
        }
        #expect(lines == ["family: SMITH, mother's family: JOHNSON"])
        #expect(patient.name?.first?.given?.first?.mothersFamilyName == nil)
    }

    @Test func extensionsOnResourcesAndElements() throws {
        let patient = try JSONDecoder().decode(Patient.self, from: try Fixtures.data("Patient-example.json"))
        let birthTime = patient.birthDate?.extensions(for: "http://hl7.org/fhir/StructureDefinition/patient-birthTime").first
        if case .dateTime(let value) = birthTime?.value {
            #expect(value.value?.description == "1974-12-25T14:35:45-05:00")
        } else {
            Issue.record("expected a valueDateTime")
        }
        #expect(patient.extensions(for: "http://example.org/none").isEmpty)
    }
}
