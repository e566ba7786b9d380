import FHIRModelGenerator
import Foundation

// Regenerates Sources/ModelsR4/Generated from the FHIR R4 core package:
//   swift run fhir-generate-models [DEFINITIONS_FOLDER] [OUTPUT_FOLDER]
// The defaults are ../shared/fhir/r4/hl7.fhir.r4.core-4.0.1/package beside the repository (or
// $OPENHEALTHKIT_SHARED/fhir/r4/…) and Sources/ModelsR4/Generated.
let arguments = CommandLine.arguments.dropFirst()
let shared = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"].map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent().appendingPathComponent("shared")
let definitions = arguments.first.map { URL(fileURLWithPath: $0) }
    ?? shared.appendingPathComponent("fhir/r4/hl7.fhir.r4.core-4.0.1/package")
let output = arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: "Sources/ModelsR4/Generated")
do {
    let count = try ModelGenerator(definitionsFolder: definitions).write(to: output)
    print("wrote \(count) files to \(output.path)")
} catch {
    FileHandle.standardError.write(Data("fhir-generate-models: \(error)\n".utf8))
    exit(1)
}
