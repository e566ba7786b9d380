import CommonSupport
import Foundation
import GRDB

extension HealthDatabase {
    /// The `store_info` key counting changes to stored quantity and category samples with a sync identifier (deleted, or
    /// their sync identifier, version, type, kind, source or parent changed), kept by the triggers of `v23-import-runs`.
    static let importRunGenerationKey = "import_run_generation"

    /// The count of changes that undo a stored run (``importRunGenerationKey``), as `db` sees it; nil when its row is
    /// missing (the triggers would count nothing: no run holds).
    static func importRunGeneration(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = ?", arguments: [importRunGenerationKey])
    }

    /// Whether a shared transaction of the running bulk write was rolled back, its saves lost (``BulkTransaction``).
    var bulkWriteLostTransactions: Bool {
        bulkTransaction.withLock { ($0?.lostTransactions ?? 0) > 0 }
    }
}

extension HKHealthStore {
    /// The runs of an importer's records an earlier import of the same domain found all stored, as read before an import
    /// begins (package API, owner only; ``storedImportRuns(domain:)``).
    ///
    /// An importer cuts the records it reads into runs and fingerprints each run's content. Once every record of a run is
    /// stored (saved by the import, or found stored), ``recordImportRuns(_:as:)`` keeps the run's fingerprint, keyed with
    /// the store's index key: a fingerprint of a run of one record could otherwise be guessed from a guess of the record.
    /// A later import that reads a run with a kept fingerprint counts its records as already stored without looking each
    /// one up. A kept run holds only while no stored quantity or category sample with a sync identifier was deleted or
    /// changed since the import that kept it began (``generation``), so an import after a deletion still restores what
    /// was deleted.
    package struct StoredImportRuns: Sendable {
        /// Whose runs these are: each importer keeps its own.
        package let domain: String
        /// The count of changes that undo a stored run when these were read (nil: not counted, no run holds).
        let generation: Int64?
        let fingerprints: Set<Data>
        let cipher: RecordCipher

        /// How many runs are kept.
        package var count: Int { fingerprints.count }

        /// The keyed form of a run's fingerprint, as the store keeps it.
        package func key(_ fingerprint: some Sequence<UInt8>) -> Data {
            cipher.indexHash("import-run", domain, HexText.encode(fingerprint))
        }

        /// Whether the run whose keyed fingerprint is `key` was kept, all its records stored.
        package func contains(_ key: Data) -> Bool { fingerprints.contains(key) }
    }

    /// The runs of `domain` kept by the last import that recorded them (``StoredImportRuns``), those still holding.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner.
    package func storedImportRuns(domain: String) async throws -> StoredImportRuns {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner may read an import's runs") }
        let database = try await engine.databaseAsync()
        let (generation, fingerprints) = try await database.readAsync { db in
            guard let generation = try HealthDatabase.importRunGeneration(db) else { return (Int64?.none, Set<Data>()) }
            let fingerprints = try Data.fetchSet(db, sql: "SELECT fingerprint FROM import_run WHERE domain = ? AND generation = ?",
                                                 arguments: [domain, generation])
            return (generation, fingerprints)
        }
        return StoredImportRuns(domain: domain, generation: generation, fingerprints: fingerprints, cipher: database.cipher)
    }

    /// Keeps the runs whose keyed fingerprints (``StoredImportRuns/key(_:)``) are `keys`, all their records stored, in place
    /// of the domain's runs kept before: unless a change that undoes a run happened since `read` was read, or the running
    /// bulk write lost a transaction (its saves, reported as saved, were rolled back), when the domain's runs are dropped
    /// instead. Runs no longer holding are dropped, whatever their domain. While a bulk write runs, this is one of its
    /// saves (committed with the batches it ends).
    /// - Returns: whether the runs were kept.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner; the store's error.
    @discardableResult
    package func recordImportRuns(_ keys: [Data], as read: StoredImportRuns) async throws -> Bool {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner may record an import's runs") }
        let database = try await engine.databaseAsync()
        return try await database.writeAsync { db in
            guard let generation = try HealthDatabase.importRunGeneration(db) else {
                // Its row gone (the triggers counted nothing): counting starts again, and no run is kept this time.
                try db.execute(sql: "DELETE FROM import_run")
                try db.execute(sql: "INSERT INTO store_info (key, value) VALUES (?, 0)", arguments: [HealthDatabase.importRunGenerationKey])
                return false
            }
            try db.execute(sql: "DELETE FROM import_run WHERE domain = ? OR generation <> ?", arguments: [read.domain, generation])
            guard generation == read.generation, !database.bulkWriteLostTransactions else { return false }
            let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO import_run (domain, fingerprint, generation) VALUES (?, ?, ?)")
            for key in keys { try insert.execute(arguments: [read.domain, key, generation]) }
            return true
        }
    }
}
