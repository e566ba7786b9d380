import FHIRModelGenerator
import Foundation
import Testing
import TestSupport

/// The committed `Sources/ModelsR4/Generated` is exactly what the generator makes from the R4
/// definitions today, so nobody edits generated code by hand and a generator change is committed
/// together with its output.
@Suite("Model generator", .enabled(if: GeneratorFixtures.available, GeneratorFixtures.skipReason))
struct ModelGeneratorTests {
    @Test("the committed ModelsR4 sources equal a fresh run of the generator")
    func committedSourcesAreUpToDate() throws {
        let generated = try ModelGenerator(definitionsFolder: GeneratorFixtures.definitions).generate()
        let folder = GeneratorFixtures.generatedFolder
        let committed = try GeneratorFixtures.swiftFiles(below: folder)
        let missing = Set(generated.keys).subtracting(committed.keys).sorted()
        let stale = Set(committed.keys).subtracting(generated.keys).sorted()
        #expect(missing.isEmpty, "generated but not committed: \(missing.prefix(10))")
        #expect(stale.isEmpty, "committed but no longer generated: \(stale.prefix(10))")
        let different = generated.keys.sorted().filter { key in committed[key].map { $0 != generated[key] } ?? false }
        #expect(different.isEmpty, "differs from the generator's output (run swift run fhir-generate-models): \(different.prefix(10))")
    }

    @Test("every R4 resource type gets a struct and a ResourceProxy case")
    func everyResourceIsGenerated() throws {
        let generated = try ModelGenerator(definitionsFolder: GeneratorFixtures.definitions).generate()
        let resources = generated.keys.filter { $0.hasPrefix("Resources/") }
        #expect(resources.count == 146)
        let proxy = try #require(generated["ResourceProxy.swift"])
        for path in resources {
            let name = String(path.dropFirst("Resources/".count).dropLast(".swift".count))
            #expect(proxy.contains("        \"\(name)\": "), "\(name) missing from ResourceProxy's table")
            #expect(proxy.contains("(try \(name)(fhirObject: &r))"), "\(name) missing from ResourceProxy's cases")
        }
        #expect(generated.keys.filter { $0.hasPrefix("DataTypes/") }.count == 39)
    }

    @Test("a missing definitions folder is an error, not an empty model")
    func missingFolderThrows() {
        #expect(throws: (any Error).self) {
            try ModelGenerator(definitionsFolder: URL(fileURLWithPath: "/nonexistent/definitions")).generate()
        }
    }
}

enum GeneratorFixtures {
    static let skipReason: Comment = """
        the FHIR R4 definitions were not found: set OPENHEALTHKIT_SHARED or put shared/ beside the \
        repository (public source: the hl7.fhir.r4.core 4.0.1 package, packages.fhir.org, CC0)
        """

    static let repositoryRoot: URL? = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { return folder }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }()

    /// The R4 definitions package, from `../shared` (too large to commit: see TestData.r4Definitions).
    static let definitions: URL = TestData.r4Definitions ?? URL(fileURLWithPath: "/nonexistent")

    static var available: Bool { FileManager.default.fileExists(atPath: definitions.path) }

    static var generatedFolder: URL {
        (repositoryRoot ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("Sources/ModelsR4/Generated")
    }

    static func swiftFiles(below folder: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        let base = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return result }
        for case let relative as String in enumerator where relative.hasSuffix(".swift") {
            result[relative] = try String(contentsOfFile: base + relative, encoding: .utf8)
        }
        return result
    }
}
