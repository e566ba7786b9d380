import AppleHealthClinicalRecords
import AppleHealthExport
import ArgumentParser
import Foundation
import HealthPresentation
import HealthRecords
import OpenHealthKit

/// `health import …`: bring data from other systems' exports into a store.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import data exported by other systems.",
        subcommands: [AppleHealthImportCommand.self])
}

/// `health import apple-health`: an Apple Health export, read as a stream.
struct AppleHealthImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-health",
        abstract: "Import an Apple Health export (export.zip or export.xml).",
        discussion: """
            Reads the export.zip the Health app writes (Export All Health Data), or its export.xml, as a stream, in \
            bounded memory: records, blood pressure and food correlations (each member once, though Apple lists it \
            twice), workouts with their events and totals, the Me characteristics, and the clinical records of \
            clinical-records/. One person per store: an export whose Me date of birth is not the one of the store's \
            profile (`health profile`) is refused, and so is a clinical record whose Patient is someone else, with both \
            people shown and exit status 1, unless --allow-other-person is given. Sources, versions, devices, metadata and dates with \
            their offsets are kept. Elements \
            that are not imported are counted in the summary, beside what was stored and what the store already had (a second run of the \
            same import stores nothing and counts every sample as already in the store). Each batch is saved atomically; running the same import \
            again stores nothing twice, and an interrupted import resumes. On a terminal, a progress bar shows on \
            standard error.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The export.zip or export.xml to import.")
    var file: String

    @Option(help: "Samples per batch, each saved whole (batches share transactions while the import runs).")
    var batchSize: Int = 2_500

    @Flag(help: "Print a line \"Imported N\" to standard error after each saved batch.")
    var progress = false

    @Flag(help: "Import the export even when it is not of the person of the store's profile.")
    var allowOtherPerson = false

    mutating func run() async throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
        let url = URL(fileURLWithPath: file)
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw ValidationError("cannot read '\(file)'")
        }
        let store = try storeOptions.openStore()
        // `--progress`: a line per batch, for programs; otherwise a bar when standard error is a terminal.
        let progress = Progress("Imported", total: nil, lines: self.progress)
        let bar = ImportProgressBar(enabled: !self.progress && isatty(STDERR_FILENO) != 0)
        let lines = self.progress
        let report: AppleHealthImportReport
        let clinicalRecords = AppleHealthClinicalRecordImporter(store: store, allowOtherPerson: allowOtherPerson)
        var importer = AppleHealthImporter(batchSize: batchSize, clinicalRecords: clinicalRecords)
        let profile = try? await store.ownerProfile()
        if !allowOtherPerson, let profile, let birth = ProfileText.dateText(profile.dateOfBirth),
           let owner = HealthRecordPerson(profile: profile) {
            importer.expectedPerson = (birth, owner.description)
        }
        // The characteristics of a store whose profile names a person are the owner's: another person's Me only fills what is not set.
        importer.keepsOwnerCharacteristics = profile?.identifiesPerson ?? false
        do {
            report = try await importer.importExport(at: url, into: store) { state in
                if lines { progress.update(state.report.importedCount) }
                bar.update(state)
            }
        } catch let error as AppleHealthExportError {
            bar.finish()
            if error.kind == .unreadable { throw ValidationError(error.description) }
            if error.kind == .otherPerson {
                throw InputRefused("\(file): \(error.description). To import it into this store anyway, give --allow-other-person.")
            }
            throw InputRefused("\(file): \(error.description)")
        }
        bar.finish()
        for line in Self.summary(report) { print(line) }
        if report.characteristics > 0 {
            print("Characteristics set: \(report.characteristics).")
        }
        if !report.skipped.isEmpty {
            print("Not imported: \(report.skippedCount).")
            for (reason, count) in report.skipped.sorted(by: { $0.key < $1.key }) {
                print("  \(reason): \(count)")
            }
        }
        let refusals = clinicalRecords.otherPersonRefusals
        if !refusals.isEmpty {
            for refusal in refusals { print("refused \(refusal)") }
            print("To store another person's records in this store anyway, run the import again with --allow-other-person.")
            throw ExitCode(1)
        }
    }

    /// The summary's first lines: what was stored, what the store already had, by type in words
    /// (HealthPresentation's `ImportSummaryText`, which the web page's import shows too).
    static func summary(_ report: AppleHealthImportReport) -> [String] {
        // "Imported" counts what this run stored: what the store already had is counted apart.
        ImportSummaryText(stored: report.imported, alreadyStored: report.alreadyStored, notImported: report.skipped,
                          batches: report.batches, duplicates: report.duplicates).lines
    }
}
