import FhirBlocks

/// The audit log's share of a ``TrustStore``: the append-only log (appended through
/// ``LedgerStore/commit(_:)``, indexes dense from 0 in commit order) and its checkpoints.
public protocol AuditStore: Sendable {
    /// The number of entries in the log.
    func auditCount() async throws(TrustStoreError) -> Int
    /// Up to `limit` entries starting at index `from`, in index order.
    func auditRecords(from: Int, limit: Int) async throws(TrustStoreError) -> [AuditRecord]
    /// The entries whose signed request carried a signature with this digest, oldest first.
    func auditRecords(signatureDigest: String) async throws(TrustStoreError) -> [AuditRecord]
    /// Every stored checkpoint note, by tree size ascending.
    func checkpoints() async throws(TrustStoreError) -> [StoredCheckpoint]
    /// The stored checkpoint of the largest tree size (the last of ``checkpoints()``), or nil when
    /// none is stored: one indexed row, whatever the number of checkpoints.
    func latestCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint?
    /// The stored checkpoint of the largest tree size among those a witness cosigned (stored
    /// through ``TrustChange/cosignedCheckpoints``), or nil when none is: one indexed row,
    /// whatever the number of checkpoints.
    func latestCosignedCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint?
}
