import CSV
import Foundation
import OpenHealthKit

/// Reads samples from CSV or JSON Lines text, for `health store import` and any program that
/// loads samples from files. Pure: text in, samples out.
///
/// Each line names a HealthKit type (`heartRate`, `HKQuantityTypeIdentifierStepCount`,
/// `sleepAnalysis`), a `start` (ISO 8601: `2026-11-20`, `2026-11-20T08:30:00Z`; a date-time
/// without a zone is read in ``timeZone``), an optional `end` (default: the start), a `value` and,
/// for quantities, an optional `unit` (a HealthKit unit string; default: the type's display unit).
/// A category value is its raw value (a whole number). An optional `metadata` (a JSON object of
/// text and numbers; in CSV, its JSON text) becomes the sample's metadata.
///
/// Every sample carries a sync identifier (`HKMetadataKeySyncIdentifier`, version 1): the row's
/// own (a `syncIdentifier` field with an optional `syncVersion`, or those metadata keys), else
/// one derived from the row's content (``SampleFileContent/derivedSyncIdentifier``), so that
/// saving the same file again stores nothing twice.
public struct SampleFileParser: Sendable {
    /// The zone of date-times written without one.
    public var timeZone: TimeZone

    /// A parser reading zone-less date-times in `timeZone`.
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// The samples of `text`, in file order; the whole file is checked first, and the first bad
    /// line is thrown.
    public func parse(_ text: String, format: SampleFileFormat) throws(SampleFileError) -> [HKSample] {
        let contents = try read(text, format: format)
        if let first = contents.refused.first { throw first }
        return contents.rows.map(\.sample)
    }

    /// The rows of `text` that can be read, and each row that cannot with its line and what is
    /// wrong with it (never its values).
    /// - Throws: ``SampleFileError`` only when the file as a whole cannot be read (CSV that is
    ///   not CSV text, a header without the required columns).
    public func read(_ text: String, format: SampleFileFormat) throws(SampleFileError) -> SampleFileContents {
        var reader = LineReader(timeZone: timeZone)
        switch format {
        case .csv: return try reader.csv(text)
        case .jsonLines: return reader.jsonLines(text)
        }
    }
}

/// One line's fields: its text fields by lower-cased name, and its metadata as read.
private struct LineFields {
    var text: [String: String] = [:]
    /// A JSON Lines object's `metadata` member when it is an object.
    var metadataObject: [String: Any]?
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

    mutating func csv(_ text: String) throws(SampleFileError) -> SampleFileContents {
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
        var contents = SampleFileContents()
        var line = 1
        while let row = reader.next() {
            line += 1
            if row.allSatisfy(\.isEmpty) { continue }
            guard row.count == columns.count else {
                contents.refused.append(SampleFileError(line: line, reason: "expected \(columns.count) fields, found \(row.count)"))
                continue
            }
            var fields = LineFields()
            for (column, cell) in zip(columns, row) where fields.text[column] == nil && !cell.isEmpty { fields.text[column] = cell }
            add(fields, line: line, to: &contents)
        }
        if let error = reader.error {
            throw SampleFileError(line: line + 1, reason: "not CSV text (\(error))")
        }
        return contents
    }

    mutating func jsonLines(_ text: String) -> SampleFileContents {
        var contents = SampleFileContents()
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                contents.refused.append(SampleFileError(line: offset + 1, reason: "not a JSON object"))
                continue
            }
            var fields = LineFields()
            for (key, value) in object {
                switch value {
                case let text as String where !text.isEmpty: fields.text[key.lowercased()] = text
                case let number as NSNumber: fields.text[key.lowercased()] = number.stringValue
                case let members as [String: Any] where key.lowercased() == "metadata": fields.metadataObject = members
                default: continue
                }
            }
            add(fields, line: offset + 1, to: &contents)
        }
        return contents
    }

    /// Reads one line's fields into `contents`: a row, or the reason it is refused.
    private mutating func add(_ fields: LineFields, line: Int, to contents: inout SampleFileContents) {
        do {
            contents.rows.append(try row(fields, line: line))
        } catch {
            contents.refused.append(error)
        }
    }

    private func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        for formatter in localFormatters {
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    private mutating func row(_ lineFields: LineFields, line: Int) throws(SampleFileError) -> SampleFileRow {
        let fields = lineFields.text
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
        let (metadata, ownIdentifier, ownVersion) = try Self.metadata(lineFields, fields: fields, line: line)
        var content = SampleFileContent(type: type.identifier, start: start, end: end, value: value, unit: nil, metadata: metadata)
        func withSync(_ identifier: String) -> [String: Any] {
            var values = metadata.mapValues(\.metadataValue)
            values[HKMetadataKeySyncIdentifier] = identifier
            values[HKMetadataKeySyncVersion] = NSNumber(value: ownVersion ?? 1)
            return values
        }
        let sample: HKSample
        switch type {
        case let quantityType as HKQuantityType:
            var unit = quantityType.defaultDisplayUnit
            if let unitText = fields["unit"] {
                guard let parsed = try? HKUnit.parse(unitText), quantityType.is(compatibleWith: parsed) else {
                    throw SampleFileError(line: line, reason: "unit '\(unitText)' does not fit \(quantityType.displayName)")
                }
                unit = parsed
            }
            content.unit = unit.unitString
            let identifier = ownIdentifier ?? content.derivedSyncIdentifier
            sample = HKQuantitySample(type: quantityType, quantity: HKQuantity(unit: unit, doubleValue: value), start: start, end: end,
                                      metadata: withSync(identifier))
        case let categoryType as HKCategoryType:
            guard let raw = Int(exactly: value) else { throw SampleFileError(line: line, reason: "a category value must be a whole number") }
            let identifier = ownIdentifier ?? content.derivedSyncIdentifier
            sample = HKCategorySample(type: categoryType, value: raw, start: start, end: end, metadata: withSync(identifier))
        default:
            throw SampleFileError(line: line, reason: "\(type.displayName) cannot be imported from this format")
        }
        return SampleFileRow(line: line, content: content, sample: sample, syncIdentifier: ownIdentifier ?? content.derivedSyncIdentifier,
                             syncVersion: ownVersion ?? 1)
    }

    /// The line's metadata (a JSON object, or in CSV its JSON text) without the sync keys, and
    /// the line's own sync identifier and version (fields `syncIdentifier` and `syncVersion`, or
    /// those metadata keys).
    private static func metadata(_ line: LineFields, fields: [String: String],
                                 line lineNumber: Int) throws(SampleFileError) -> ([String: SampleFileMetadataValue], String?, Int64?) {
        var object = line.metadataObject ?? [:]
        if line.metadataObject == nil, let text = fields["metadata"] {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw SampleFileError(line: lineNumber, reason: "the metadata is not a JSON object")
            }
            object = parsed
        }
        var metadata: [String: SampleFileMetadataValue] = [:]
        for (key, value) in object {
            guard !key.isEmpty else { throw SampleFileError(line: lineNumber, reason: "a metadata key is empty") }
            switch value {
            case let text as String: metadata[key] = .text(text)
            case let number as NSNumber:
                let double = number.doubleValue
                guard double.isFinite else { throw SampleFileError(line: lineNumber, reason: "the metadata value of '\(key)' is not a finite number") }
                if let whole = Int64(exactly: double) { metadata[key] = .integer(whole) } else { metadata[key] = .number(double) }
            default:
                throw SampleFileError(line: lineNumber, reason: "the metadata value of '\(key)' is neither text nor a number")
            }
        }
        var identifier = fields["syncidentifier"]
        switch metadata.removeValue(forKey: HKMetadataKeySyncIdentifier) {
        case .text(let text)?: identifier = identifier ?? text
        case nil: break
        default: throw SampleFileError(line: lineNumber, reason: "HKMetadataKeySyncIdentifier must be text")
        }
        var version: Int64?
        if let text = fields["syncversion"] {
            guard let parsed = Int64(text) else { throw SampleFileError(line: lineNumber, reason: "the sync version must be a whole number") }
            version = parsed
        }
        switch metadata.removeValue(forKey: HKMetadataKeySyncVersion) {
        case .integer(let integer)?: version = version ?? integer
        case nil: break
        default: throw SampleFileError(line: lineNumber, reason: "HKMetadataKeySyncVersion must be a whole number")
        }
        if let given = identifier, given.isEmpty { identifier = nil }
        if version != nil, identifier == nil {
            throw SampleFileError(line: lineNumber, reason: "a sync version needs a sync identifier")
        }
        return (metadata, identifier, version)
    }
}
