import Foundation
import ModelsR4
import Testing

@Suite("The DocC catalog's example")
struct CatalogExampleTests {
    @Test("Decoding a Synthea bundle and reading its observations' code text, as ModelsR4.md shows")
    func catalogExample() throws {
        let file = try #require(FHIRExamples.files("synthea-r4").first)
        let bytes = Array(try Data(contentsOf: FHIRExamples.examples.appendingPathComponent("synthea-r4").appendingPathComponent(file)))
        var printed: [String] = []
        // The article's code, with `print` collected.
        let bundle = try ModelsR4.Bundle(fhirJSON: bytes)
        for entry in bundle.entry ?? [] {
            if case .observation(let observation)? = entry.resource {
                printed.append(observation.code.text?.value?.string ?? "")
            }
        }
        #expect(!printed.isEmpty)
        #expect(printed.contains { !$0.isEmpty })
    }
}
