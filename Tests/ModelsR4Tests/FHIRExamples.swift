import FHIRCore
import Foundation
import Testing
import TestSupport

/// Test data, committed under `Tests/Vectors` (see TestData in Tests/TestSupport).
enum FHIRExamples {
    static let skipReason: Comment = """
        shared FHIR examples not found: set OPENHEALTHKIT_SHARED or put shared/ beside the repository \
        (public sources: hl7.org/fhir/R4/downloads.html "Examples" (CC0), the hl7.fhir.r4.core 4.0.1 \
        package, and Synthea sample data at synthetichealth.github.io/synthea-sample-data)
        """

    /// The committed vectors (`Tests/Vectors`, see TestData).
    static let sharedRoot: URL? = TestData.vectors

    static var available: Bool { sharedRoot != nil }

    static var examples: URL {
        (sharedRoot ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("fhir/examples")
    }

    /// The R4 definitions package, from `../shared` (not committed: see TestData.r4Definitions).
    static var definitions: URL {
        TestData.r4Definitions ?? URL(fileURLWithPath: "/nonexistent")
    }

    /// JSON file names in one examples folder (`r4-spec`, `synthea-r4`), sorted; empty when absent.
    static func files(_ folder: String) -> [String] {
        let url = examples.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }

    static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: examples.appendingPathComponent(folder).appendingPathComponent(name)))
    }
}

/// Semantic JSON equality: object member order is ignored, numbers compare by their exact text.
/// Returns the path of the first difference, or nil when equal.
func firstDifference(_ a: JSONValue, _ b: JSONValue, path: String = "") -> String? {
    switch (a, b) {
    case (.object(let x), .object(let y)):
        let xKeys = Set(x.keys), yKeys = Set(y.keys)
        if xKeys != yKeys {
            let missing = xKeys.subtracting(yKeys).sorted(), extra = yKeys.subtracting(xKeys).sorted()
            return "\(path): members differ (only in first: \(missing), only in second: \(extra))"
        }
        for member in x.members {
            if let difference = firstDifference(member.value, y[member.key] ?? .null, path: path + "." + member.key) {
                return difference
            }
        }
        return nil
    case (.array(let x), .array(let y)):
        if x.count != y.count { return "\(path): \(x.count) items vs \(y.count)" }
        for index in x.indices {
            if let difference = firstDifference(x[index], y[index], path: path + "[\(index)]") { return difference }
        }
        return nil
    default:
        return a == b ? nil : "\(path): \(a.kindName) differs"
    }
}
