import ArgumentParser
import Foundation
import OpenHealthKit

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
        let records = try SampleImportParser.parse(text, isCSV: file.lowercased().hasSuffix(".csv"))
        let store = try storeOptions.openStore()
        let progress = Progress("Imported", total: records.count, lines: self.progress)
        var saved = 0
        for batch in stride(from: 0, to: records.count, by: batchSize).map({ records[$0..<min($0 + batchSize, records.count)] }) {
            try await store.save(batch.map(\.sample))
            saved += batch.count
            progress.update(saved)
        }
        progress.finish()
        print("Imported \(saved) sample\(saved == 1 ? "" : "s").")
    }
}

/// One parsed import line.
struct ImportRecord {
    let sample: HKSample
}

/// Parses CSV and JSON Lines sample files, naming the line of every error.
enum SampleImportParser {
    static func parse(_ text: String, isCSV: Bool) throws -> [ImportRecord] {
        var types: [String: HKSampleType] = [:]
        var records: [ImportRecord] = []
        var header: [String]?
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { continue }
            let number = offset + 1
            let fields: [String: Any]
            if isCSV {
                let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard let columns = header else {
                    header = cells.map { $0.lowercased() }
                    for required in ["type", "start", "value"] where !(header ?? []).contains(required) {
                        throw InputRefused("line \(number): the CSV header needs a '\(required)' column")
                    }
                    continue
                }
                guard cells.count == columns.count else {
                    throw InputRefused("line \(number): expected \(columns.count) fields, found \(cells.count)")
                }
                fields = Dictionary(zip(columns, cells), uniquingKeysWith: { first, _ in first })
            } else {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw InputRefused("line \(number): not a JSON object")
                }
                fields = object
            }
            records.append(try record(fields, line: number, types: &types))
        }
        return records
    }

    private static func record(_ fields: [String: Any], line: Int, types: inout [String: HKSampleType]) throws -> ImportRecord {
        func string(_ key: String) -> String? {
            switch fields[key] {
            case let text as String: return text.isEmpty ? nil : text
            case let number as NSNumber: return number.stringValue
            default: return nil
            }
        }
        guard let typeName = string("type"), let type = types[typeName] ?? HKObjectType.sampleType(named: typeName) else {
            throw InputRefused("line \(line): missing or unknown type")
        }
        types[typeName] = type
        guard let startText = string("start"), let start = try? parseDate(startText) else {
            throw InputRefused("line \(line): missing or invalid start date")
        }
        let end = try string("end").map { text -> Date in
            guard let date = try? parseDate(text) else { throw InputRefused("line \(line): invalid end date") }
            return date
        } ?? start
        guard end >= start else { throw InputRefused("line \(line): the end is before the start") }
        guard let valueText = string("value"), let value = Double(valueText), value.isFinite else {
            throw InputRefused("line \(line): missing or invalid value")
        }
        switch type {
        case let quantityType as HKQuantityType:
            let unit: HKUnit
            if let unitText = string("unit") {
                guard let parsed = try? HKUnit.parse(unitText), quantityType.is(compatibleWith: parsed) else {
                    throw InputRefused("line \(line): unit '\(unitText)' does not fit \(quantityType.displayName)")
                }
                unit = parsed
            } else {
                unit = quantityType.defaultDisplayUnit
            }
            return ImportRecord(sample: HKQuantitySample(type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value),
                                                         start: start, end: end))
        case let categoryType as HKCategoryType:
            guard let raw = Int(exactly: value) else { throw InputRefused("line \(line): a category value must be a whole number") }
            return ImportRecord(sample: HKCategorySample(type: categoryType, value: raw, start: start, end: end))
        default:
            throw InputRefused("line \(line): \(type.displayName) cannot be imported from this format")
        }
    }
}
