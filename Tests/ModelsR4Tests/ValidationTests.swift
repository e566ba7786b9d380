import FHIRCore
import ModelsR4
import Testing

@Suite("Validation of real FHIR JSON", .enabled(if: FHIRExamples.available, FHIRExamples.skipReason))
struct ExampleValidationTests {
    /// Examples the R4 specification itself gets wrong, with the reason; every other example must
    /// validate without errors.
    static let knownInvalidSpecExamples: [String: String] = [:]

    @Test("R4 spec example validates", arguments: RoundTripTests.specExamples)
    func specExample(_ name: String) throws {
        let issues = FHIRValidator().validate(try FHIRExamples.bytes("r4-spec", name)).filter { $0.severity == .error }
        if let reason = Self.knownInvalidSpecExamples[name] {
            #expect(!issues.isEmpty, "\(name) was listed as invalid (\(reason)) but validates")
        } else {
            #expect(issues.isEmpty, "\(name): \(issues.map(\.description).joined(separator: "; "))")
        }
    }

    @Test("Synthea bundle validates", arguments: RoundTripTests.syntheaBundles)
    func syntheaBundle(_ name: String) throws {
        let issues = FHIRValidator().validate(try FHIRExamples.bytes("synthea-r4", name)).filter { $0.severity == .error }
        #expect(issues.isEmpty, "\(name): \(issues.prefix(5).map(\.description).joined(separator: "; "))")
    }
}
