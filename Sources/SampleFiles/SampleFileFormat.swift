/// The file formats samples are imported from.
///
/// - CSV (RFC 4180, read with CSV.swift): a header row naming at least `type`, `start` and
///   `value`, optionally `end` and `unit`; quoted fields may hold commas and newlines.
/// - JSON Lines: one object per line with the same members (`value` a number or a string).
public enum SampleFileFormat: Sendable, Hashable {
    case csv
    case jsonLines

    /// The format a file name says: `.csv` is CSV, anything else (`.jsonl`, `.ndjson`) JSON Lines.
    public init(fileName: String) {
        self = fileName.lowercased().hasSuffix(".csv") ? .csv : .jsonLines
    }
}
