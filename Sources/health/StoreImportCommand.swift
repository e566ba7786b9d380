import ArgumentParser
import Foundation
import OpenHealthKit
import SampleFiles

/// `health store import`: saves samples from a CSV or JSON Lines file, in batches.
struct StoreImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import quantity and category samples from CSV or JSON Lines.",
        discussion: """
            CSV needs a header with type,start,end,value and optionally unit; JSON Lines has one object per line with the same keys.
            Each batch is saved atomically: an interrupted import keeps whole batches only.
            Example line: {"type":"heartRate","start":"2026-11-20T08:00:00Z","end":"2026-11-20T08:00:00Z","value":62,"unit":"count/min"}
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The file to import (.csv, or .jsonl/.ndjson).")
    var file: String

    @Option(help: "Samples per transaction.")
    var batchSize: Int = 5_000

    @Flag(help: "Print a line \"Imported N/TOTAL\" to standard error after each committed batch.")
    var progress = false

    mutating func run() async throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be positive") }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read '\(file)' as UTF-8 text")
        }
        let records: [HKSample]
        do {
            records = try SampleFileParser().parse(text, format: SampleFileFormat(fileName: file))
        } catch {
            throw InputRefused(error.description)
        }
        let store = try storeOptions.openStore()
        let progress = Progress("Imported", total: records.count, lines: self.progress)
        var saved = 0
        for batch in stride(from: 0, to: records.count, by: batchSize).map({ records[$0..<min($0 + batchSize, records.count)] }) {
            try await store.save(Array(batch))
            saved += batch.count
            progress.update(saved)
        }
        progress.finish()
        print("Imported \(saved) sample\(saved == 1 ? "" : "s").")
    }
}
