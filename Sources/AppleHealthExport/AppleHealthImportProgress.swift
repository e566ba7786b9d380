/// How far an import is, after each committed batch and each run of records already stored.
public struct AppleHealthImportProgress: Sendable, Equatable {
    /// What was imported and skipped so far.
    public var report: AppleHealthImportReport
    /// Bytes of export.xml read so far.
    public var bytesRead: UInt64
    /// The size of export.xml (inflated, for an archive), when known.
    public var totalBytes: UInt64?

    /// Creates a progress value.
    public init(report: AppleHealthImportReport, bytesRead: UInt64, totalBytes: UInt64?) {
        self.report = report
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
    }

    /// The part of export.xml read, from 0 to 1, when its size is known.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesRead) / Double(totalBytes))
    }
}
