/// An audit log held in memory (a downloaded copy, or a test's log).
public struct InMemoryAuditLogSource: AuditLogSource {
    /// The signing key.
    public var key: AuditLogKey
    /// The checkpoints.
    public var checkpoints: [AuditCheckpointNote]
    /// The entries in order.
    public var records: [AuditLogRecord]
    /// The size the source reports (normally `records.count`; a larger value models a log that
    /// claims entries it does not serve).
    public var reportedTreeSize: Int

    /// Creates a source.
    public init(key: AuditLogKey, checkpoints: [AuditCheckpointNote], records: [AuditLogRecord], reportedTreeSize: Int? = nil) {
        self.key = key
        self.checkpoints = checkpoints
        self.records = records
        self.reportedTreeSize = reportedTreeSize ?? records.count
    }

    public func readKey() async throws(AuditLogSourceError) -> AuditLogKey { key }

    public func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] { checkpoints }

    public func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage {
        guard from >= 0, count >= 0 else { throw AuditLogSourceError("entries: negative from or count") }
        let start = min(from, records.count)
        let end = min(records.count, start + count)
        return AuditEntryPage(treeSize: reportedTreeSize, records: Array(records[start..<end]))
    }
}
