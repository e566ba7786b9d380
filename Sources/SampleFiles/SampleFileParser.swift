import CSV
import Foundation
import OpenHealthKit

/// Reads samples from CSV or JSON Lines text, for `health store import` and any program that
/// loads samples from files. Pure: text in, samples out; the whole file is checked before
/// anything is returned, and the first bad line is named.
///
/// Each line names a HealthKit type (`heartRate`, `HKQuantityTypeIdentifierStepCount`,
/// `sleepAnalysis`), a `start` (ISO 8601: `2026-11-20`, `2026-11-20T08:30:00Z`; a date-time
/// without a zone is read in ``timeZone``), an optional `end` (default: the start), a `value` and,
/// for quantities, an optional `unit` (a HealthKit unit string; default: the type's display unit).
/// A category value is its raw value (a whole number).
public struct SampleFileParser: Sendable {
    /// The zone of date-times written without one.
    public var timeZone: TimeZone

    /// A parser reading zone-less date-times in `timeZone`.
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// The samples of `text`, in file order.
    public func parse(_ text: String, format: SampleFileFormat) throws(SampleFileError) -> [HKSample] {
        var reader = LineReader(timeZone: timeZone)
        switch format {
        case .csv: return try reader.csv(text)
        case .jsonLines: return try reader.jsonLines(text)
        }
    }
}

/// One parse: the types seen so far and the date formats, built once per file.
private struct LineReader {
    var types: [String: HKSampleType] = [:]
    let localFormatters: [DateFormatter]

    init(timeZone: TimeZone) {
        localFormatters = ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"].map {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = timeZone
            formatter.dateFormat = $0
            return formatter
        }
    }

    mutating func csv(_ text: String) throws(SampleFileError) -> [HKSample] {
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text, hasHeaderRow: true, trimFields: true)
        } catch {
            throw SampleFileError(line: 1, reason: "not CSV text (\(error))")
        }
        let columns = (reader.headerRow ?? []).map { $0.lowercased() }
        for required in ["type", "start", "value"] where !columns.contains(required) {
            throw SampleFileError(line: 1, reason: "the CSV header needs a '\(required)' column")
        }
        var samples: [HKSample] = []
        var line = 1
        while let row = reader.next() {
            line += 1
            if row.allSatisfy(\.isEmpty) { continue }
            guard row.count == columns.count else {
                throw SampleFileError(line: line, reason: "expected \(columns.count) fields, found \(row.count)")
            }
            var fields: [String: String] = [:]
            for (column, cell) in zip(columns, row) where fields[column] == nil && !cell.isEmpty { fields[column] = cell }
            samples.append(try sample(fields, line: line))
        }
        if let error = reader.error {
            throw SampleFileError(line: line + 1, reason: "not CSV text (\(error))")
        }
        return samples
    }

    mutating func jsonLines(_ text: String) throws(SampleFileError) -> [HKSample] {
        var samples: [HKSample] = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw SampleFileError(line: offset + 1, reason: "not a JSON object")
            }
            var fields: [String: String] = [:]
            for (key, value) in object {
                switch value {
                case let text as String where !text.isEmpty: fields[key.lowercased()] = text
                case let number as NSNumber: fields[key.lowercased()] = number.stringValue
                default: continue
                }
            }
            samples.append(try sample(fields, line: offset + 1))
        }
        return samples
    }

    private func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        for formatter in localFormatters {
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private mutating func sample(_ fields: [String: String], line: Int) throws(SampleFileError) -> HKSample {
        guard let typeName = fields["type"], let type = types[typeName] ?? HKObjectType.sampleType(named: typeName) else {
            throw SampleFileError(line: line, reason: "missing or unknown type")
        }
        types[typeName] = type
        guard let startText = fields["start"], let start = date(startText) else {
            throw SampleFileError(line: line, reason: "missing or invalid start date")
        }
        var end = start
        if let endText = fields["end"] {
            guard let parsed = date(endText) else { throw SampleFileError(line: line, reason: "invalid end date") }
            end = parsed
        }
        guard end >= start else { throw SampleFileError(line: line, reason: "the end is before the start") }
        guard let valueText = fields["value"], let value = Double(valueText), value.isFinite else {
            throw SampleFileError(line: line, reason: "missing or invalid value")
        }
        switch type {
        case let quantityType as HKQuantityType:
            var unit = quantityType.defaultDisplayUnit
            if let unitText = fields["unit"] {
                guard let parsed = try? HKUnit.parse(unitText), quantityType.is(compatibleWith: parsed) else {
                    throw SampleFileError(line: line, reason: "unit '\(unitText)' does not fit \(quantityType.displayName)")
                }
                unit = parsed
            }
            return HKQuantitySample(type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value), start: start, end: end)
        case let categoryType as HKCategoryType:
            guard let raw = Int(exactly: value) else { throw SampleFileError(line: line, reason: "a category value must be a whole number") }
            return HKCategorySample(type: categoryType, value: raw, start: start, end: end)
        default:
            throw SampleFileError(line: line, reason: "\(type.displayName) cannot be imported from this format")
        }
    }
}
