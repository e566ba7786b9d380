/// A run of consecutive entries and the log's size when they were read.
public struct AuditEntryPage: Sendable, Hashable {
    /// The number of entries in the log.
    public var treeSize: Int
    /// The entries, in index order.
    public var records: [AuditLogRecord]

    /// Creates a page.
    public init(treeSize: Int, records: [AuditLogRecord]) {
        self.treeSize = treeSize
        self.records = records
    }
}
