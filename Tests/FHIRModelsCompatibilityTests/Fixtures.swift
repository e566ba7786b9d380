import Foundation

// The FHIR R4 spec examples committed under Tests/Vectors (CC0; see its README).

enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors/fhir/examples/r4-spec")

    /// The bytes of one spec example, such as `Patient-example.json`.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// Every committed R4 example's file name.
    static func allNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
    }
}
