import ArgumentParser
import Foundation
import HealthRecords
import OpenHealthKit

/// `health records import FILE… [--fhir-version 4.0.1|1.0.2] [--source-name NAME] [--source-url URL]
/// [--issuer ISS=DIR]… [--trust-directory FILE] [--at ISO8601] [--allow-other-person] [--json]`.
struct RecordsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import FHIR resources, Bundles, NDJSON and SMART Health Cards into the store.",
        discussion: """
            FILE is a FHIR resource, a Bundle (each entry), NDJSON, or a SMART Health Card in any form `health shc verify` \
            takes (JWS, .smart-health-card, $health-cards-issue response, shc:/ text, QR image); the form is detected by \
            content, and - reads standard input. Resources are validated, R4 ones with the R4 definitions and DSTU2 ones \
            (--fhir-version 1.0.2) with the DSTU2 definitions; an invalid resource is refused. Cards are verified first and \
            never stored when invalid. Importing the same resource (same source, type and id) or card again replaces it.
            One JSON document (a resource, a Bundle, a card file) and one NDJSON line may be at most 16 MiB; a larger \
            file is read as NDJSON, in parts, never whole.
            One person per store: an input whose FHIR Patient, or a card whose subject, is not the person of the \
            store's profile (`health profile`) is refused with both names shown, unless --allow-other-person is given.
            Exit status: 0 when everything was stored, 1 when anything was refused or is not a valid input (malformed \
            JSON or NDJSON, too deep, not FHIR; the rest is still stored), 2 for usage or I/O errors (a file that cannot \
            be read, an issuer that cannot be reached).
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "Files to import, or - for standard input.")
    var files: [String]

    @Option(help: ArgumentHelp("The FHIR version of the resources: 4.0.1 (R4) or 1.0.2 (DSTU2).", valueName: "version"))
    var fhirVersion = "4.0.1"

    @Option(help: ArgumentHelp("The provider the records come from (their source).", valueName: "NAME"))
    var sourceName: String?

    @Option(help: ArgumentHelp("The FHIR base URL the resources come from (a record's URL is URL/Type/id).", valueName: "URL"))
    var sourceUrl: String?

    @OptionGroup var verification: CardVerifierOptions

    @Flag(help: "Import records even when their patient is not the person of the store's profile.")
    var allowOtherPerson = false

    @Flag(help: "Print a JSON report.")
    var json = false

    func run() async throws {
        guard !files.isEmpty else { throw UsageError("give at least one FILE") }
        let version: HKFHIRVersion
        do {
            version = try HKFHIRVersion(fromVersionString: fhirVersion)
        } catch {
            throw UsageError("--fhir-version takes 4.0.1 or 1.0.2, got '\(fhirVersion)'")
        }
        guard version.fhirRelease == .r4 || version.fhirRelease == .dstu2 else {
            throw UsageError("--fhir-version takes 4.0.1 or 1.0.2, got '\(fhirVersion)'")
        }
        var baseURL: URL?
        if let sourceUrl {
            guard let url = URL(string: sourceUrl), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()) else {
                throw UsageError("--source-url takes an http or https URL, got '\(sourceUrl)'")
            }
            baseURL = url
        }
        if let sourceName, sourceName.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageError("--source-name must not be empty")
        }
        // Every file opens, or it is a usage error before anything is stored; each is then read as it is imported
        // (RecordsImportInput: at most one document, or one part of NDJSON, in memory at a time).
        for file in files where file != "-" { try RecordsImportInput(file).close() }
        let store = try storeOptions.openStore()
        let (verifier, https) = try verification.makeVerifier()
        let importer = HealthRecordImporter(store: store, verifier: verifier,
                                            options: .init(fhirVersion: version, sourceName: sourceName, sourceURL: baseURL, now: Date(),
                                                           allowOtherPerson: allowOtherPerson))
        var report = HealthRecordImportReport()
        var released = RecordsFormatter.StoredSummary()
        do {
            for file in files {
                let input = try RecordsImportInput(file)
                defer { input.close() }
                try await input.importRecords(with: importer, into: &report, released: &released)
            }
        } catch {
            await https.shutdown()
            throw error
        }
        await https.shutdown()
        if json {
            print(RecordsFormatter.importJSON(report, released: released))
        } else {
            for line in RecordsFormatter.importText(report, released: released) { print(line) }
            if !report.otherPeople.isEmpty {
                print("To store another person's records in this store anyway, run the import again with --allow-other-person.")
            }
        }
        await ProfileHint.offer(report.people, store: store)
        // An input that is not valid JSON, NDJSON, FHIR or a card is invalid input (1), as a refused resource is;
        // 2 is only for what could not be read or reached.
        if !report.refusals.isEmpty || !report.unreadable.isEmpty { throw ExitCode(1) }
        if report.unreachableIssuers > 0 { throw ExitCode(2) }
    }
}
