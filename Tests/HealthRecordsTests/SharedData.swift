import Foundation
import Testing
import TestSupport

/// The FHIR examples and SMART Health Card vectors, committed under `Tests/Vectors` (TestData).
enum SharedData {
    static let missing = Comment(rawValue: """
        shared data not found: set OPENHEALTHKIT_SHARED or put shared/ beside the repository (public sources: \
        hl7.org/fhir/R4 and /DSTU2 "Examples" (CC0), Synthea sample data (Apache-2.0), github.com/smart-on-fhir/health-cards examples)
        """)

    /// The committed vectors (`Tests/Vectors`, see TestData).
    static let root: URL? = TestData.vectors

    static var available: Bool { root != nil }

    static func folder(_ path: String) -> URL {
        (root ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent(path)
    }

    /// JSON file names in `fhir/examples/<name>`, sorted; empty when absent.
    static func exampleFiles(_ name: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder("fhir/examples/\(name)").path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func example(_ folderName: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder("fhir/examples/\(folderName)").appendingPathComponent(name)))
    }

    static var cardExamples: URL { folder("vectors/shc/spec-examples") }
    static let cardIssuer = "https://spec.smarthealth.cards/examples/issuer"
}
