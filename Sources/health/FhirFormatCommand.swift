import ArgumentParser
import FHIRCore
import Foundation

/// `health fhir format FILE`: canonical FHIR JSON.
struct FhirFormatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Print a FHIR R4 (or DSTU2) resource as canonical JSON: elements in definition order, pretty or minified.",
        discussion: """
            The resource is decoded and encoded again, so members come out in the order of the FHIR \
            definitions, `_name` companions right after their values, and decimals exactly as written. \
            A resource type this version does not know keeps its members as they were. Exit code 0 on \
            success, 1 when the input does not decode, 2 on usage or I/O errors.
            """)

    @Argument(help: "A FHIR JSON file, or - for standard input.")
    var file: String

    @Flag(help: "Minified output (one line, no spaces) instead of pretty-printed.")
    var minified = false

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    @Option(name: .customLong("fhir-version"), help: ArgumentHelp(FhirModelVersion.help, valueName: "version"))
    var fhirVersion = "4.0.1"

    func run() async throws {
        let version = try FhirModelVersion(option: fhirVersion)
        let bytes = try readInput(file)
        var text: [UInt8]
        do {
            text = try version.reencode(bytes, style: minified ? .compact : .pretty)
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("\(file): \(error)\n".utf8))
            throw ExitCode(1)
        }
        text.append(UInt8(ascii: "\n"))
        if let output {
            do {
                try Data(text).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw UsageError("cannot write '\(output)': \(error.localizedDescription)")
            }
        } else {
            try? FileHandle.standardOutput.write(contentsOf: Data(text))
        }
    }
}
