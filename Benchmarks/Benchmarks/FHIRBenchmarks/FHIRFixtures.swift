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
        let fifty = try firstEntries(50, of: smallest.bytes)
        return [
            try FHIRDocument(name: "50-entry Synthea bundle", bytes: fifty),
            try FHIRDocument(name: "largest Synthea bundle", bytes: largest.bytes),
        ]
    }

    /// The first `count` entries of a bundle, cut from its text so the document keeps its original
    /// formatting (scripts/bench-fhir-resources.py `--first-entries` cuts the same bytes).
    static func firstEntries(_ count: Int, of bytes: [UInt8]) throws -> [UInt8] {
        let tape = try JSONTape(bytes)
        var reader = FHIRObjectReader(tape: tape, node: 0)
        guard let entries = reader.take("entry"), tape.nodes[entries].kind == .array else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let elements = reader.arrayElements(entries)
        guard elements.count > count else { throw CocoaError(.fileReadCorruptFile) }
        let first = Int(tape.nodes[elements[0]].start)
        // The last entry kept ends at the last `}` before the next entry starts.
        var last = Int(tape.nodes[elements[count]].start) - 1
        while last > first, bytes[last] != UInt8(ascii: "}") { last -= 1 }
        return Array(bytes[..<(last + 1)]) + Array("\n  ]\n}\n".utf8)
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
