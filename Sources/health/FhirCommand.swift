import ArgumentParser

/// `health fhir …`: FHIR R4 JSON files.
struct FhirCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fhir",
        abstract: "Validate and format FHIR R4 JSON (exit codes: 0 valid, 1 invalid, 2 usage or I/O error).",
        subcommands: [FhirValidateCommand.self, FhirFormatCommand.self])
}
