/// Where an audit log is read from: a server over HTTP (`AuditClient` in `FhirBlocksClient`), a database file, or
/// memory (``InMemoryAuditLogSource``). ``AuditVerifier`` re-checks whatever it serves.
///
/// A source only reads; it need not be trusted. Errors mean "could not read", never "tampered".
public protocol AuditLogSource: Sendable {
    /// The checkpoint signing key.
    func readKey() async throws(AuditLogSourceError) -> AuditLogKey
    /// Every checkpoint the log keeps, including the latest.
    func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote]
    /// Up to `count` entries from index `from`, with the log's current size.
    func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage
    /// The source's consistency proof between two sizes, or nil when it serves none (the
    /// verifier then relies on recomputed roots alone).
    func readConsistencyProof(from: Int, to: Int) async throws(AuditLogSourceError) -> [MerkleHash]?
}

extension AuditLogSource {
    /// Serves no consistency proofs.
    public func readConsistencyProof(from: Int, to: Int) async throws(AuditLogSourceError) -> [MerkleHash]? { nil }
}
