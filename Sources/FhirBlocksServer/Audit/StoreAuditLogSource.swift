import FhirBlocks
import FhirBlocksStore

/// Serves a server's audit log straight from its database, so `AuditVerifier` can re-check
/// it without the server running (`health audit verify --database`). The checkpoint key is
/// the audit key's public half, given by the caller (the database does not hold it).
public struct StoreAuditLogSource: AuditLogSource {
    /// The store read (its audit log and checkpoints only).
    public let store: any AuditStore
    /// The checkpoint signing key.
    public let key: AuditLogKey

    /// A source over `store` whose checkpoints are signed by `key`.
    public init(store: any AuditStore, key: AuditLogKey) {
        self.store = store
        self.key = key
    }

    public func readKey() async throws(AuditLogSourceError) -> AuditLogKey { key }

    public func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] {
        do {
            return try await store.checkpoints().map { AuditCheckpointNote(treeSize: $0.treeSize, note: $0.note) }
        } catch {
            throw AuditLogSourceError("database: \(error.description)")
        }
    }

    public func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage {
        do {
            let size = try await store.auditCount()
            let records = try await store.auditRecords(from: from, limit: count)
            return AuditEntryPage(treeSize: size, records: records.map { AuditLogRecord(index: $0.index, leafHash: $0.leafHash, entry: $0.canonicalBytes) })
        } catch {
            throw AuditLogSourceError("database: \(error.description)")
        }
    }
}
