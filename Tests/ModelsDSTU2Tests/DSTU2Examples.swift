import FHIRCore
import Foundation
import Testing
import TestSupport

/// The DSTU2 examples, committed under `Tests/Vectors/fhir/examples/dstu2-spec` (all 164 official
/// examples of the selected resource types; CC0, see the README there), or from
/// `OPENHEALTHKIT_SHARED`.
enum DSTU2Examples {
    static let skipReason: Comment = """
        DSTU2 examples not found: set OPENHEALTHKIT_SHARED or keep Tests/Vectors/fhir/examples/dstu2-spec \
        (public source: the hl7.fhir.core 1.0.2 package, CC0)
        """

    static var folder: URL { TestData.fhirExamples.appendingPathComponent("dstu2-spec") }

    static var available: Bool { !files.isEmpty }

    /// JSON file names, sorted; empty when the folder is absent.
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// The DSTU2 definitions package from `../shared` (not committed), when present.
    static var definitions: URL? {
        guard let folder = TestData.shared?.appendingPathComponent("fhir/dstu2/hl7.fhir.core-1.0.2"),
              FileManager.default.fileExists(atPath: folder.path) else { return nil }
        return folder
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
        return a == b ? nil : "\(path): values differ"
    }
}
