import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Logging
import SmartHealthCards

/// A FhirBlocks trust server put together from its data folder: the audit signing key
/// (``AuditSigningKeyFile``), the SMART Health Cards issuer key (``HealthCardIssuerKeyFile``), the store
/// (``TrustStoreLocation``: SQLite in the folder, or PostgreSQL), migrated, and the `TrustService`
/// started on it. `health serve` runs one; so can any program embedding the server.
public struct TrustServerDeployment: Sendable {

    /// Why the server could not be put together. The message names the part, never a secret.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The audit key file or the data folder.
        case auditKey(AuditSigningKeyFile.Failure)
        /// The health card issuer key file.
        case cardIssuerKey(HealthCardIssuerKeyFile.Failure)
        /// The database could not be opened or migrated.
        case database(String)
        /// The stored state could not be loaded (audit log, checkpoints).
        case state(String)

        public var description: String {
            switch self {
            case .auditKey(let failure): "\(failure)"
            case .cardIssuerKey(let failure): "\(failure)"
            case .database(let reason): "cannot open the database: \(reason)"
            case .state(let reason): "cannot load the server state: \(reason)"
            }
        }
    }

    /// The running service.
    public let service: TrustService
    /// Its store; ``close()`` closes it.
    public let store: any TrustStore

    /// Opens the store, loads or creates the audit key in `dataDirectory` and the card issuer key
    /// at `cardIssuerKeyPath` (default: ``HealthCardIssuerKeyFile/fileName`` in `dataDirectory`),
    /// and starts the service.
    /// - Parameters:
    ///   - dataDirectory: The server's data folder (its key files, and its SQLite database by default).
    ///   - storage: Where the records are kept (nil: ``TrustStoreLocation/sqliteFileName`` in `dataDirectory`).
    ///   - configuration: The server's configuration.
    ///   - cardIssuerKeyPath: The health card issuer key file (nil: in `dataDirectory`).
    ///   - logger: Where the server logs.
    ///   - metrics: The server's metrics.
    public static func open(dataDirectory: String, storage: TrustStoreLocation? = nil, configuration: ServerConfiguration,
                            cardIssuerKeyPath: String? = nil,
                            logger: Logger = Logger(label: "fhirblocks"), metrics: ServerMetrics = ServerMetrics())
        async throws(Failure) -> TrustServerDeployment {
        let key: CsiSigningKey
        do { key = try AuditSigningKeyFile.loadOrCreate(in: dataDirectory) } catch { throw .auditKey(error) }
        let cardKey: SHCIssuerKey
        do {
            cardKey = try HealthCardIssuerKeyFile.loadOrCreate(at: cardIssuerKeyPath ?? dataDirectory + "/" + HealthCardIssuerKeyFile.fileName)
        } catch {
            throw .cardIssuerKey(error)
        }
        let store: any TrustStore
        do {
            store = try (storage ?? .dataFolder(dataDirectory)).open(logger: logger)
        } catch {
            throw .database("\(error)")
        }
        do {
            try await store.migrate()
        } catch {
            // Opened but not usable: its connections (a PostgreSQL pool's) are let go.
            await store.close()
            throw .database("\(error)")
        }
        let service = TrustService(store: store, configuration: configuration, auditKey: key, cardIssuerKey: cardKey, logger: logger, metrics: metrics)
        do {
            try await service.start()
        } catch {
            await store.close()
            throw .state("\(error)")
        }
        return TrustServerDeployment(service: service, store: store)
    }

    /// Closes the store, once the audit writes in flight (a checkpoint signed after its group's
    /// requests were answered) are finished.
    public func close() async {
        await service.finishAuditWrites()
        await store.close()
    }
}
