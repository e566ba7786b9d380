import FHIRCore
import ModelsR4
import Testing

/// Every official R4 example and every Synthea bundle decodes and re-encodes to semantically equal
/// JSON: same members, same values, numbers byte-equal (so `19.00` stays `19.00`).
@Suite("Round trip of real FHIR JSON", .enabled(if: FHIRExamples.available, FHIRExamples.skipReason))
struct RoundTripTests {
    static let specExamples = FHIRExamples.files("r4-spec")
    static let syntheaBundles = FHIRExamples.files("synthea-r4")

    @Test("the example folders are not empty")
    func foldersHaveExamples() {
        #expect(Self.specExamples.count >= 400)
        #expect(Self.syntheaBundles.count >= 9)
    }

    @Test("R4 spec example round-trips", arguments: specExamples)
    func specExample(_ name: String) throws {
        try roundTrip(folder: "r4-spec", name: name)
    }

    @Test("Synthea bundle round-trips", arguments: syntheaBundles)
    func syntheaBundle(_ name: String) throws {
        try roundTrip(folder: "synthea-r4", name: name)
    }

    private func roundTrip(folder: String, name: String) throws {
        let bytes = try FHIRExamples.bytes(folder, name)
        let input = try JSONParser.parse(bytes)
        let resource = try ResourceProxy(fhirJSON: input)
        guard case .unrecognized = resource else {
            let output = try JSONParser.parse(resource.fhirJSONBytes())
            let difference = firstDifference(input, output)
            #expect(difference == nil, "\(name): \(difference ?? "")")
            // Pretty output is the same document.
            let pretty = try JSONParser.parse(resource.fhirJSONBytes(style: .pretty))
            #expect(pretty == output)
            return
        }
        Issue.record("\(name): resourceType not recognised")
    }
}
