import FhirBlocks
import FhirBlocksClient
import FhirBlocksPostgres
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation

/// Opens a server's database read for `health audit verify --database` and runs the verifier
/// over it.
enum AuditDatabase {
    static func verify(database: String, dataDirectory: String?, pinned: CsiPublicKey?, with verifier: AuditVerifier) async throws -> AuditVerificationReport {
        let isPostgres = database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
        if !isPostgres, !FileManager.default.fileExists(atPath: database) { throw UsageError("\(database): no such file") }
        let folder = dataDirectory ?? (isPostgres ? "./health-data" : URL(fileURLWithPath: database).deletingLastPathComponent().path)
        let key: CsiPublicKey
        if let pinned {
            key = pinned
        } else {
            let path = URL(fileURLWithPath: folder).appendingPathComponent("audit-key.pem").path
            guard let text = try? String(contentsOfFile: path, encoding: .utf8), let signing = try? CsiSigningKey(pem: text) else {
                throw UsageError("cannot read the audit key \(path); give --data-dir or --public-key")
            }
            key = signing.publicKey
        }
        let store: any TrustStore
        do {
            store = isPostgres ? try PostgresTrustStore(url: database) : try SQLiteTrustStore(readOnlyPath: database)
        } catch {
            throw UsageError("cannot open the database: \(error)")
        }
        // The store is closed (awaited) whether the verification succeeds or not.
        do {
            let report = try await verifier.verify(StoreAuditLogSource(store: store, key: AuditLogKey(keyName: ServerConfiguration().checkpointKeyName, publicKey: key)))
            await store.close()
            return report
        } catch {
            await store.close()
            throw UsageError("cannot read the audit log: \(error)")
        }
    }
}
