import OpenHealthKit

/// One row of a sample file, read: the sample to save, carrying its sync identifier and version
/// in its metadata (`HKMetadataKeySyncIdentifier`, `HKMetadataKeySyncVersion`).
public struct SampleFileRow: Sendable {
    /// The 1-based line (for CSV, the record) the row is on.
    public var line: Int
    /// What the row says.
    public var content: SampleFileContent
    /// The sample, with its sync identifier and version in its metadata.
    public var sample: HKSample
    /// The row's own sync identifier (a `syncIdentifier` field, or `HKMetadataKeySyncIdentifier`
    /// in its metadata), else ``SampleFileContent/derivedSyncIdentifier``.
    public var syncIdentifier: String
    /// The row's own sync version (a `syncVersion` field, or `HKMetadataKeySyncVersion` in its metadata), else 1.
    public var syncVersion: Int64

    /// A row read from a file.
    /// - Parameters:
    ///   - line: The 1-based line (for CSV, the record).
    ///   - content: What the row says.
    ///   - sample: The sample, with its sync identifier and version in its metadata.
    ///   - syncIdentifier: The sync identifier.
    ///   - syncVersion: The sync version.
    public init(line: Int, content: SampleFileContent, sample: HKSample, syncIdentifier: String, syncVersion: Int64) {
        self.line = line
        self.content = content
        self.sample = sample
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
    }
}

/// What a sample file holds: its rows that were read, in file order, and the rows that were
/// refused, each with its line and what is wrong with it.
public struct SampleFileContents: Sendable {
    /// The rows read, in file order.
    public var rows: [SampleFileRow]
    /// The rows refused, in file order.
    public var refused: [SampleFileError]

    /// A file's rows and refusals.
    /// - Parameters:
    ///   - rows: The rows read, in file order.
    ///   - refused: The rows refused, in file order.
    public init(rows: [SampleFileRow] = [], refused: [SampleFileError] = []) {
        self.rows = rows
        self.refused = refused
    }
}
