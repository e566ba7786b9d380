import FhirBlocks
import FhirBlocksClient
import FhirBlocksDeployment
import FhirBlocksServer
import FhirBlocksStore
import Foundation

/// Opens a server's database read for `health audit verify --database` and runs the verifier
/// over it. The database is named as `health serve --database` names it (a SQLite file, a data
/// folder or a postgres:// URL: `TrustStoreLocation`), and the checkpoint key is read from the
/// data folder's key file with the checks the server makes (`AuditSigningKeyFile`).
enum AuditDatabase {
    static func verify(database: String, dataDirectory: String?, pinned: CsiPublicKey?, with verifier: AuditVerifier) async throws -> AuditVerificationReport {
        let location: TrustStoreLocation
        do { location = try TrustStoreLocation(parsing: database) } catch { throw UsageError("--database: \(error)") }
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) { throw UsageError("\(path): no such file") }
        let key: CsiPublicKey
        if let pinned {
            key = pinned
        } else {
            let folder = dataDirectory ?? location.folder ?? "./health-data"
            do {
                key = try AuditSigningKeyFile.load(in: folder).publicKey
            } catch {
                // The server's own words (a key file open to others names its chmod).
                let reason = "\(error)"
                throw UsageError(reason + (reason.hasSuffix("does not exist") ? "; give --data-dir or --public-key" : ""))
            }
        }
        let store: any TrustStore
        do {
            store = try location.open(readOnly: true)
        } catch {
            throw UsageError("cannot open the database: \(error)")
        }
        // The store is closed (awaited) whether the verification succeeds or not.
        do {
            let logKey = AuditLogKey(keyName: ServerConfiguration().checkpointKeyName, publicKey: key)
            let report = try await verifier.verify(StoreAuditLogSource(store: store, key: logKey))
            await store.close()
            return report
        } catch {
            await store.close()
            throw UsageError("cannot read the audit log: \(error)")
        }
    }
}
