import FHIRModelGenerator
import Foundation
import Testing

@Suite("Search parameter table generator", .enabled(if: GeneratorFixtures.available, GeneratorFixtures.skipReason))
struct SearchParameterTableGeneratorTests {
    @Test("the committed search parameter table equals a fresh run of the generator")
    func committedTableIsCurrent() throws {
        let committed = try String(contentsOf: try #require(GeneratorFixtures.repositoryRoot)
            .appendingPathComponent("Sources/FhirBlocksStore/Search/SearchParameterTable+R4.swift"), encoding: .utf8)
        let fresh = try SearchParameterTableGenerator(definitionsFolder: GeneratorFixtures.definitions).generate()
        #expect(fresh == committed, "regenerate with: swift run fhir-generate-models --search-parameters")
        // The clinical types' core parameters are there, in the simple forms the engine reads.
        for row in ["Observation|code|token|code", "Observation|date|date|effective", "Observation|patient|reference|subject is Patient",
                    "Condition|category|token|category", "Resource|_lastUpdated|date|meta.lastUpdated", "Immunization|date|date|occurrence",
                    "Observation|combo-code|token|code;component.code"] {
            #expect(committed.contains(row), "\(row)")
        }
    }

    @Test("expression parts beyond simple paths are left out")
    func unsupportedPartsAreDropped() {
        #expect(SearchParameterTableGenerator.paths(of: "Observation.code | Condition.code", base: "Observation") == ["code"])
        #expect(SearchParameterTableGenerator.paths(of: "(Observation.effective as dateTime) | Observation.effective.ofType(Period)",
                                                    base: "Observation") == ["effective as dateTime", "effective as Period"])
        #expect(SearchParameterTableGenerator.paths(of: "Patient.name.where(use = 'official')", base: "Patient").isEmpty)
        #expect(SearchParameterTableGenerator.paths(of: "Account.subject.where(resolve() is Patient)", base: "Account") == ["subject is Patient"])
    }
}
