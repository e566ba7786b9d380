import AppleHealthExport
import ArgumentParser
import Foundation
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
        abstract: "Import an Apple Health export (export.xml).",
        discussion: """
            Reads the export.xml the Health app writes (Export All Health Data) as a stream, in bounded memory: records, \
            blood pressure and food correlations, workouts with their events and totals, and the Me characteristics. \
            Sources, versions, devices, metadata and dates with their offsets are kept. Elements that are not imported \
            are counted in the summary. Each batch is saved atomically; running the same import again stores nothing \
            twice, and an interrupted import resumes. Unzip export.zip first: archives are not read yet.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The export.xml to import.")
    var file: String

    @Option(help: "Samples per transaction.")
    var batchSize: Int = 10_000

    @Flag(help: "Print a line \"Imported N\" to standard error after each committed batch.")
    var progress = false

    mutating func run() async throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
        let url = URL(fileURLWithPath: file)
        if url.pathExtension.lowercased() == "zip" {
            throw ValidationError("'\(file)' is a zip archive: unzip it and import apple_health_export/export.xml")
        }
        guard FileManager.default.isReadableFile(atPath: file) else {
            throw ValidationError("cannot read '\(file)'")
        }
        let store = try storeOptions.openStore()
        let progress = Progress("Imported", total: nil, lines: self.progress)
        let report: AppleHealthImportReport
        do {
            report = try await AppleHealthImporter(batchSize: batchSize).importExport(at: url, into: store) { report in
                progress.update(report.importedCount)
            }
        } catch let error as AppleHealthExportError {
            progress.finish()
            if error.kind == .unreadable { throw ValidationError(error.description) }
            throw InputRefused("\(file): \(error.description)")
        }
        progress.finish()
        let count = report.importedCount
        print("Imported \(count) sample\(count == 1 ? "" : "s") in \(report.batches) batch\(report.batches == 1 ? "" : "es").")
        for (type, count) in report.imported.sorted(by: { $0.key < $1.key }) {
            print("  \(HKObjectType.displayName(forIdentifier: type)): \(count)")
        }
        if report.characteristics > 0 {
            print("Characteristics set: \(report.characteristics).")
        }
        if !report.skipped.isEmpty {
            print("Not imported: \(report.skippedCount).")
            for (reason, count) in report.skipped.sorted(by: { $0.key < $1.key }) {
                print("  \(reason): \(count)")
            }
        }
    }
}
