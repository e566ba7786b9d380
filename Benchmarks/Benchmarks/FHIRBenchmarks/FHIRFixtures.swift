import FHIRCore
import Foundation
import struct ModelsR4.Bundle

/// One benchmark document, decoded once up front so encoders have something to encode.
struct FHIRDocument: @unchecked Sendable {  // Foundation's untyped tree is not Sendable; it is never mutated.
    let name: String
    let bytes: [UInt8]
    let data: Data
    let bundle: Bundle
    let foundationTree: Any

    init(name: String, bytes: [UInt8]) throws {
        self.name = name
        self.bytes = bytes
        data = Data(bytes)
        bundle = try Bundle(fhirJSON: bytes)
        foundationTree = try JSONSerialization.jsonObject(with: data)
        let untypedEntries = ((foundationTree as? [String: Any])?["entry"] as? [Any])?.count
        precondition(untypedEntries == bundle.entry?.count, "both sides must see the same entries")
        print("\(name): \(bytes.count) bytes, \(bundle.entry?.count ?? 0) entries")
    }

    /// Megabytes (10^6 bytes) of this document per second.
    func rate(_ iterations: Int, _ elapsed: Duration) -> Int {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Int((Double(bytes.count * iterations) / 1e6 / seconds).rounded()) : 0
    }
}

/// The Synthea bundles from the shared examples: `$OPENHEALTHKIT_SHARED/fhir/examples/synthea-r4`,
/// else `../shared` beside the repository. They are third-party data and never copied here.
enum FHIRFixtures {
    static let documents: [FHIRDocument] = {
        do {
            return try load()
        } catch {
            fatalError("FHIR benchmark fixtures: \(error). Set OPENHEALTHKIT_SHARED to the shared data folder "
                + "(Synthea sample bundles: synthetichealth.github.io/synthea-sample-data).")
        }
    }()

    static func load() throws -> [FHIRDocument] {
        let folder = sharedRoot.appendingPathComponent("fhir/examples/synthea-r4")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        var sized: [(name: String, bytes: [UInt8])] = []
        for file in files {
            sized.append((file, Array(try Data(contentsOf: folder.appendingPathComponent(file)))))
        }
        guard let largest = sized.max(by: { $0.bytes.count < $1.bytes.count }),
              let smallest = sized.min(by: { $0.bytes.count < $1.bytes.count }) else {
            throw CocoaError(.fileNoSuchFile)
        }
        // The first 50 entries of the smallest bundle, as their own collection Bundle.
        guard case .object(var object) = try JSONParser.parse(smallest.bytes),
              case .array(let entries) = object["entry"] ?? .null, entries.count >= 50 else {
            throw CocoaError(.fileReadCorruptFile)
        }
        object["entry"] = .array(Array(entries.prefix(50)))
        let fifty = JSONWriter.serialize(.object(object))
        return [
            try FHIRDocument(name: "50-entry Synthea bundle", bytes: fifty),
            try FHIRDocument(name: "largest Synthea bundle", bytes: largest.bytes),
        ]
    }

    static var sharedRoot: URL {
        if let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.deletingLastPathComponent().appendingPathComponent("shared")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("fhir").path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared")
    }
}
