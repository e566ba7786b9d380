import ArgumentParser
import Foundation
import OpenHealthKit
import SampleFiles

/// `health store import`: saves samples from a CSV or JSON Lines file, in batches. Every row
/// carries a sync identifier (its own, or one derived from its content), so importing the same
/// file again stores nothing twice and an interrupted import resumes.
struct StoreImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import quantity and category samples from CSV or JSON Lines.",
        discussion: """
            CSV needs a header with type,start,end,value and optionally unit and metadata (a JSON object); \
            JSON Lines has one object per line with the same keys.
            Each row gets a sync identifier derived from its content (type, dates, value and unit, metadata), or keeps its own \
            (syncIdentifier and syncVersion, or those HealthKit metadata keys): importing the same file again stores nothing twice, \
            and an import that was interrupted resumes where it stopped. Each batch is saved atomically.
            Rows that cannot be read are named with their line and not stored; the others are. Exit status 1 when any row was refused.
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
        let contents: SampleFileContents
        do {
            contents = try SampleFileParser().read(text, format: SampleFileFormat(fileName: file))
        } catch {
            throw InputRefused(error.description)
        }
        let store = try storeOptions.openStore()
        let source = store.configuration.source
        var tally = ImportTally()
        tally.refused = contents.refused
        let rows = tally.keepingOnce(contents.rows)
        let progress = Progress("Imported", total: rows.count, lines: self.progress)
        var done = 0
        for start in stride(from: 0, to: rows.count, by: batchSize) {
            let batch = rows[start..<min(start + batchSize, rows.count)]
            let stored = try await StoredSyncVersions.of(batch.map(\.sample), source: source, in: store)
            var saving: [SampleFileRow] = []
            var replacing: Set<Int> = []
            for row in batch {
                switch stored[row.sample.sampleType.identifier]?[row.syncIdentifier] {
                case let version? where version >= row.syncVersion: tally.alreadyStored += 1
                case .some: saving.append(row); replacing.insert(row.line)
                case nil: saving.append(row)
                }
            }
            let refused = try await save(saving, to: store)
            for row in saving where refused[row.line] == nil {
                if replacing.contains(row.line) { tally.replaced += 1 } else { tally.added += 1 }
            }
            tally.refused += refused.values
            done += batch.count
            progress.update(done)
        }
        progress.finish()
        tally.refused.sort { $0.line < $1.line }
        print(tally.summary(file: (file as NSString).lastPathComponent))
        if !tally.refused.isEmpty { throw InputRefused(tally.refusal) }
    }

    /// Saves a batch in one transaction; when the store refuses it as invalid (a row's metadata
    /// it does not take), row by row, so that only the rows it refuses are left out.
    /// - Returns: the rows the store refused, by line.
    private func save(_ rows: [SampleFileRow], to store: HKHealthStore) async throws -> [Int: SampleFileError] {
        guard !rows.isEmpty else { return [:] }
        func refusal(_ row: SampleFileRow, _ error: HKError) -> SampleFileError {
            SampleFileError(line: row.line, reason: "the store refused it (\(error.message))")
        }
        do {
            try await store.save(rows.map(\.sample))
            return [:]
        } catch let error as HKError where error.code == .errorInvalidArgument {
            guard rows.count > 1 else { return [rows[0].line: refusal(rows[0], error)] }
        }
        var refused: [Int: SampleFileError] = [:]
        for row in rows {
            do {
                try await store.save(row.sample)
            } catch let error as HKError where error.code == .errorInvalidArgument {
                refused[row.line] = refusal(row, error)
            }
        }
        return refused
    }
}

/// What an import did, row by row, and how it is told.
struct ImportTally {
    /// Rows stored as new samples.
    var added = 0
    /// Rows whose newer sync version replaced the stored sample.
    var replaced = 0
    /// Rows already in the store (the same sync identifier at the same or a newer version): skipped.
    var alreadyStored = 0
    /// Rows the file repeats (the same type and sync identifier): stored once.
    var repeated = 0
    /// Rows that were not stored: unreadable, or refused by the store.
    var refused: [SampleFileError] = []

    /// The rows of a file, each sync identifier once per type: the first, or the one with the
    /// highest version. The others are counted in ``repeated``.
    mutating func keepingOnce(_ rows: [SampleFileRow]) -> [SampleFileRow] {
        var kept: [SampleFileRow] = []
        var position: [String: Int] = [:]
        for row in rows {
            let key = row.sample.sampleType.identifier + "\u{0}" + row.syncIdentifier
            if let index = position[key] {
                repeated += 1
                if row.syncVersion > kept[index].syncVersion { kept[index] = row }
            } else {
                position[key] = kept.count
                kept.append(row)
            }
        }
        return kept
    }

    /// One sentence: what was stored, what was already there, what was repeated and refused.
    func summary(file: String) -> String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        if added == 0, replaced == 0, alreadyStored > 0, repeated == 0, refused.isEmpty {
            return alreadyStored == 1
                ? "Nothing new in \(file): its 1 sample was already in the store."
                : "Nothing new in \(file): all \(alreadyStored) samples were already in the store."
        }
        var parts = [added == 0 ? "stored nothing new" : "stored \(count(added, "new sample"))"]
        if replaced > 0 { parts.append("\(replaced) replaced by a newer version") }
        if alreadyStored > 0 { parts.append("\(count(alreadyStored, "sample")) \(alreadyStored == 1 ? "was" : "were") already in the store") }
        if repeated > 0 { parts.append("\(count(repeated, "repeated row")) skipped") }
        if !refused.isEmpty { parts.append("\(count(refused.count, "row")) refused") }
        return "From \(file): " + parts.joined(separator: "; ") + "."
    }

    /// The refused rows as one line: the first few with their line and reason, then how to go on.
    var refusal: String {
        let shown = refused.prefix(5).map(\.description).joined(separator: "; ")
        let more = refused.count > 5 ? "; and \(refused.count - 5) more" : ""
        let rows = refused.count == 1 ? "1 row was" : "\(refused.count) rows were"
        let them = refused.count == 1 ? "it" : "them"
        return "\(rows) not stored: \(shown)\(more). Correct \(them) and import the file again: the rows already stored are skipped."
    }
}
