import FHIRModelGenerator
import Foundation

// Regenerates Sources/ModelsR4/Generated from the FHIR R4 core package, or with `--release dstu2`
// Sources/ModelsDSTU2/Generated from the FHIR DSTU2 (1.0.2) core package:
//   swift run fhir-generate-models [--release r4|dstu2] [DEFINITIONS_FOLDER] [OUTPUT_FOLDER]
// The default definitions are ../shared/fhir/r4/hl7.fhir.r4.core-4.0.1/package (or
// ../shared/fhir/dstu2/hl7.fhir.core-1.0.2) beside the repository, or the same below
// $OPENHEALTHKIT_SHARED. With `--search-parameters` it writes FhirBlocksStore's search parameter
// table (Sources/FhirBlocksStore/Search/SearchParameterTable+R4.swift) from the R4 package instead.
var arguments = Array(CommandLine.arguments.dropFirst())
let searchParameters = arguments.contains("--search-parameters")
arguments.removeAll { $0 == "--search-parameters" }
var release = FHIRRelease.r4
if let flag = arguments.firstIndex(of: "--release") {
    guard flag + 1 < arguments.count, let chosen = FHIRRelease(rawValue: arguments[flag + 1]) else {
        try? FileHandle.standardError.write(contentsOf: Data("fhir-generate-models: --release takes r4 or dstu2\n".utf8))
        exit(2)
    }
    release = chosen
    arguments.removeSubrange(flag...(flag + 1))
}
let shared = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"].map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent().appendingPathComponent("shared")
let defaultDefinitions = release == .r4 ? "fhir/r4/hl7.fhir.r4.core-4.0.1/package" : "fhir/dstu2/hl7.fhir.core-1.0.2"
let definitions = arguments.first.map { URL(fileURLWithPath: $0) } ?? shared.appendingPathComponent(defaultDefinitions)
let output = arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: release == .r4 ? "Sources/ModelsR4/Generated" : "Sources/ModelsDSTU2/Generated")
if searchParameters {
    let table = arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: "Sources/FhirBlocksStore/Search/SearchParameterTable+R4.swift")
    do {
        try SearchParameterTableGenerator(definitionsFolder: definitions).generate().write(to: table, atomically: true, encoding: .utf8)
        print("wrote \(table.path)")
        exit(0)
    } catch {
        try? FileHandle.standardError.write(contentsOf: Data("fhir-generate-models: \(error)\n".utf8))
        exit(1)
    }
}
do {
    let count = try ModelGenerator(definitionsFolder: definitions, release: release).write(to: output)
    print("wrote \(count) files to \(output.path)")
} catch {
    try? FileHandle.standardError.write(contentsOf: Data("fhir-generate-models: \(error)\n".utf8))
    exit(1)
}
