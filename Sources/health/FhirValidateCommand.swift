import ArgumentParser
import FHIRCore
import Foundation

/// `health fhir validate FILE…`: every problem of every file, with its path.
struct FhirValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate FHIR R4 (or DSTU2) JSON resources and Bundles; list every problem with its path.",
        discussion: """
            Checks decoding, unknown elements, cardinality and required elements, choice types, primitive \
            formats, required-binding codes, and references inside resources and Bundles. Exit code 0 when \
            every file is valid (warnings allowed), 1 when any file has errors, 2 on usage or I/O errors.
            """)

    @Argument(help: "FHIR JSON files, or - for standard input.")
    var files: [String]

    @Flag(help: "Print a JSON report instead of text.")
    var json = false

    @Flag(help: "Print only the summary line of each file.")
    var quiet = false

    @Option(name: .customLong("fhir-version"), help: ArgumentHelp(FhirModelVersion.help, valueName: "version"))
    var fhirVersion = "4.0.1"

    func run() async throws {
        guard !files.isEmpty else { throw UsageError("give at least one FILE") }
        let validator = try FhirModelVersion(option: fhirVersion)
        var reports: [FhirFileReport] = []
        for file in files {
            let bytes = try readInput(file)
            reports.append(FhirFileReport(file: file, bytes: bytes, validator: validator))
        }
        if json {
            print(JSONWriter.string(FhirFileReport.json(reports), style: .pretty))
        } else {
            for report in reports { print(report.text(quiet: quiet)) }
        }
        if reports.contains(where: { !$0.isValid }) { throw ExitCode(1) }
    }
}

/// The outcome for one file.
struct FhirFileReport {
    let file: String
    let resourceType: String?
    let issues: [FHIRValidationIssue]

    init(file: String, bytes: [UInt8], validator: FhirModelVersion) {
        self.file = file
        var issues = validator.validate(bytes)
        var resourceType: String?
        if let value = try? JSONParser.parse(bytes) {
            resourceType = value.objectValue?["resourceType"]?.stringValue
            // The validator walks the JSON; decoding is checked too, so a file reported valid decodes.
            if !issues.contains(where: { $0.severity == .error }) {
                do {
                    try validator.checkDecodes(value)
                } catch {
                    issues.append(FHIRValidationIssue(.error, resourceType ?? "(document)", "does not decode: \(error)"))
                }
            }
        }
        self.resourceType = resourceType
        self.issues = issues
    }

    var errors: [FHIRValidationIssue] { issues.filter { $0.severity == .error } }
    var warnings: [FHIRValidationIssue] { issues.filter { $0.severity == .warning } }
    var isValid: Bool { errors.isEmpty }

    func text(quiet: Bool) -> String {
        let type = resourceType.map { " \($0)" } ?? ""
        let counts = "\(errors.count) error\(errors.count == 1 ? "" : "s"), \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"
        var lines = ["\(file):\(type) \(isValid ? "valid" : "INVALID") (\(counts))"]
        if !quiet {
            // An issue repeated for many bundle entries is written once: its path without the
            // entry's index, then the count and the first entries (RepeatedFindings).
            let groups = RepeatedFindings.grouped(issues, key: { issue in
                issue.severity.rawValue + "\u{0}" + Self.pathWithoutEntryIndex(issue.path) + "\u{0}" + issue.message
            }, place: { RepeatedFindings.entryPlace($0.path) })
            lines += groups.map { group in
                let issue = group.first
                guard group.count > 1 else { return "  \(issue.severity.rawValue): \(issue.path): \(issue.message)" }
                return "  \(issue.severity.rawValue): \(Self.pathWithoutEntryIndex(issue.path)): \(issue.message)"
                    + RepeatedFindings.suffix(count: group.count, places: group.places)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `Bundle.entry.resource.status` for `Bundle.entry[3].resource.status`.
    static func pathWithoutEntryIndex(_ path: String) -> String {
        guard let place = RepeatedFindings.entryPlace(path) else { return path }
        return path.replacingCharacters(in: place.index(place.startIndex, offsetBy: 5)..<place.endIndex, with: "")
    }

    static func json(_ reports: [FhirFileReport]) -> JSONValue {
        func issueList(_ issues: [FHIRValidationIssue]) -> JSONValue {
            .array(issues.map {
                .object(JSONObject(members: [
                    JSONMember(key: "path", value: .string($0.path)),
                    JSONMember(key: "message", value: .string($0.message)),
                ]))
            })
        }
        let files = reports.map { report -> JSONValue in
            var members = [
                JSONMember(key: "file", value: .string(report.file)),
                JSONMember(key: "valid", value: .bool(report.isValid)),
            ]
            if let type = report.resourceType { members.append(JSONMember(key: "resourceType", value: .string(type))) }
            members.append(JSONMember(key: "errors", value: issueList(report.errors)))
            members.append(JSONMember(key: "warnings", value: issueList(report.warnings)))
            return .object(JSONObject(members: members))
        }
        return .object(JSONObject(members: [
            JSONMember(key: "valid", value: .bool(reports.allSatisfy(\.isValid))),
            JSONMember(key: "files", value: .array(files)),
        ]))
    }
}
