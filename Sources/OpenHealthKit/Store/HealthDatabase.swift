import Crypto
import Foundation
import GRDB
import Synchronization

/// The SQLite database behind an `HKHealthStore`: schema, key check and the sealed rows.
///
/// One writer and many readers: a GRDB `DatabasePool` in WAL mode for a file, a
/// `DatabaseQueue` in memory. Thread-safe. The store's async API uses the `async` accessors
/// (GRDB's `try await writer.read/write`), which suspend the calling task instead of holding a
/// thread of the cooperative pool while SQLite works or waits for the writer; HealthKit's
/// synchronous API (characteristics, authorization status) uses the blocking ones.
final class HealthDatabase: Sendable {
    /// Where a store keeps its data.
    enum Location: Sendable {
        case file(URL)
        case inMemory
    }

    let writer: any DatabaseWriter
    let cipher: RecordCipher
    let storeID: String
    let displayPath: String
    let tombstoneRetention: TimeInterval
    /// The store's clock (``HKHealthStore/Configuration/now``).
    let now: @Sendable () -> Date
    /// Anchors of changes this object committed that the watcher has not passed yet.
    let ownAnchors = Mutex<[ClosedRange<Int64>]>([])
    /// While a bulk write runs (`HKHealthStore.withBulkWrite`): the transaction writes share.
    let bulkTransaction = Mutex<BulkTransaction?>(nil)
    /// While a bulk write runs: the sync hashes the store may hold (``SyncHashFilter``); only the writer uses it.
    let syncHashFilter = Mutex<SyncHashFilter?>(nil)

    private init(writer: any DatabaseWriter, cipher: RecordCipher, storeID: String, displayPath: String, tombstoneRetention: TimeInterval,
                 now: @escaping @Sendable () -> Date) {
        self.writer = writer
        self.cipher = cipher
        self.storeID = storeID
        self.displayPath = displayPath
        self.tombstoneRetention = tombstoneRetention
        self.now = now
    }

    /// Opens (creating when missing) a store. Never overwrites or recreates an existing file:
    /// a file that is not an OpenHealthKit database, or is corrupt, is reported and left alone.
    static func open(location: Location, key: StoreKey, tombstoneRetention: TimeInterval,
                     now: @escaping @Sendable () -> Date = { Date() }) throws -> HealthDatabase {
        var configuration = Configuration()
        configuration.label = "OpenHealthKit"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        // A bulk write keeps the writer's transaction open from one save to the next (`HealthDatabase.bulkWrite`).
        configuration.allowsUnsafeTransactions = true
        // `ohk_sync_hash` (sync identifier predicates, `HealthDatabase+SyncIndex.swift`) hashes with the key once unlocked.
        let syncHashKey = SyncHashKey()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            db.add(function: syncHashKey.function)
        }
        let writer: any DatabaseWriter
        let displayPath: String
        switch location {
        case .inMemory:
            displayPath = ":memory:"
            writer = try mapErrors(path: displayPath) { try DatabaseQueue(configuration: configuration) }
        case .file(let url):
            displayPath = url.path
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw HealthStoreError(.io, "cannot create the folder of \(url.path): \(error.localizedDescription)")
            }
            // Look at an existing file read-only first: opening a pool switches the file to WAL,
            // which must not happen to another application's database.
            if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber, size.intValue > 0 {
                var readOnly = Configuration()
                readOnly.readonly = true
                try mapErrors(path: displayPath) {
                    let queue = try DatabaseQueue(path: url.path, configuration: readOnly)
                    defer { try? queue.close() }
                    try queue.read { db in try Self.checkIsOurs(db, path: displayPath) }
                }
            }
            writer = try mapErrors(path: displayPath) { try DatabasePool(path: url.path, configuration: configuration) }
        }
        return try mapErrors(path: displayPath) {
            try writer.write { db in try Self.checkIsOurs(db, path: displayPath) }
            try Self.migrator.migrate(writer)
            let database = try writer.write { db -> HealthDatabase in
                if try Self.migrator.hasBeenSuperseded(db) {
                    throw HealthStoreError(.unsupportedSchema, "\(displayPath) was written by a newer OpenHealthKit")
                }
                let cipher = try Self.unlock(db, key: key, path: displayPath)
                syncHashKey.set(cipher)
                let storeID = try Self.storeIdentifier(db)
                return HealthDatabase(writer: writer, cipher: cipher, storeID: storeID, displayPath: displayPath,
                                      tombstoneRetention: tombstoneRetention, now: now)
            }
            // A store migrated to v5-rollups with samples in it gets its rollups now, with its key.
            try database.rebuildRollupsIfPending()
            // A store migrated to v18-sync-column-index drops the sync index rows its columns answer.
            try database.moveSyncIndexIfPending()
            // A store whose `sample` table v20-type-codes rebuilt gives back the old table's pages.
            database.vacuumIfPending()
            // "Recently deleted" keeps deleted samples for 30 days: older ones go now.
            try database.purgeRecentlyDeleted()
            return database
        }
    }

    /// Refuses SQLite files that hold other applications' tables.
    private static func checkIsOurs(_ db: Database, path: String) throws {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        guard !tables.isEmpty else { return }
        guard tables.contains("store_info") else {
            throw HealthStoreError(.corruptDatabase, "\(path) is an SQLite database but not an OpenHealthKit store")
        }
    }

    /// Derives the key and checks it against the sealed constant; creates both on a new store.
    private static func unlock(_ db: Database, key: StoreKey, path: String) throws -> RecordCipher {
        let check = try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE key = 'key_check'")
        var parameters = try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE key = 'kdf'")
            .flatMap { try? JSONDecoder().decode(KeyDerivationParameters.self, from: $0) }
        if check == nil, parameters == nil, key.needsDerivationParameters {
            let fresh = KeyDerivationParameters.fresh()
            try db.execute(sql: "INSERT INTO store_info (key, value) VALUES ('kdf', ?)", arguments: [try JSONEncoder().encode(fresh)])
            parameters = fresh
        }
        let masterKey = try key.masterKey(parameters: parameters, createIfMissing: check == nil)
        let cipher = RecordCipher(masterKey: masterKey)
        if let check {
            guard let opened = try? cipher.open(check, context: RecordCipher.keyCheckContext),
                  opened == RecordCipher.keyCheckPlaintext else {
                throw HealthStoreError(.wrongKey, "the key does not open \(path)")
            }
        } else {
            let sealed = try cipher.seal(RecordCipher.keyCheckPlaintext, context: RecordCipher.keyCheckContext)
            try db.execute(sql: "INSERT INTO store_info (key, value) VALUES ('key_check', ?)", arguments: [sealed])
        }
        return cipher
    }

    private static func storeIdentifier(_ db: Database) throws -> String {
        if let data = try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE key = 'store_id'") {
            return String(decoding: data, as: UTF8.self)
        }
        let identifier = UUID().uuidString
        try db.execute(sql: "INSERT INTO store_info (key, value) VALUES ('store_id', ?)", arguments: [Data(identifier.utf8)])
        return identifier
    }

    /// Runs `body`, turning SQLite failures into `HealthStoreError`s that name the file.
    static func mapErrors<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw mapError(error, path: path)
        }
    }

    /// Runs `body`, turning SQLite failures into `HealthStoreError`s that name the file.
    static func mapErrors<T>(path: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw mapError(error, path: path)
        }
    }

    /// The error to report for `error`: SQLite failures as `HealthStoreError`s that name the
    /// file; cancellation, HealthKit and store errors as they are.
    private static func mapError(_ error: any Error, path: String) -> any Error {
        do {
            throw error
        } catch let error as CancellationError {
            return error
        } catch let error as HealthStoreError {
            return error
        } catch let error as HKError {
            return error
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return HealthStoreError(.corruptDatabase, "\(path) is not a readable OpenHealthKit database (SQLite: \(error.resultCode))")
            case .SQLITE_CONSTRAINT:
                return HKError(.errorInvalidArgument, "an object with the same UUID is already saved")
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                return HealthStoreError(.io, "cannot open \(path) (SQLite: \(error.resultCode))")
            default:
                return HealthStoreError(.io, "database error on \(path) (SQLite: \(error.resultCode))")
            }
        } catch {
            return HealthStoreError(.io, "\(path): \(error)")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.mapErrors(path: displayPath) { try writer.read(body) }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        let ownBulkWrite = isInOwnBulkWrite
        return try Self.mapErrors(path: displayPath) {
            if bulkTransaction.withLock({ $0 != nil }) {
                return try writer.writeWithoutTransaction { db in try bulkWrite(db, ownSave: ownBulkWrite, body) }
            }
            return try writer.write(body)
        }
    }

    /// Reads without holding a cooperative thread: the task is suspended while GRDB runs `body`
    /// on one of its reader connections.
    func readAsync<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await Self.mapErrors(path: displayPath) { try await writer.read(body) }
    }

    /// Writes in a transaction without holding a cooperative thread while waiting for the
    /// writer connection.
    func writeAsync<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        let ownBulkWrite = isInOwnBulkWrite
        return try await Self.mapErrors(path: displayPath) {
            if bulkTransaction.withLock({ $0 != nil }) {
                return try await writer.writeWithoutTransaction { db in try self.bulkWrite(db, ownSave: ownBulkWrite, body) }
            }
            return try await writer.write(body)
        }
    }

    /// The blocking `writeChanges` below, without holding a cooperative thread.
    func writeChangesAsync<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        let recorded = Mutex<ClosedRange<Int64>?>(nil)
        do {
            return try await writeAsync { db in
                let (result, range) = try self.changing(db, body)
                recorded.withLock { $0 = range }
                return result
            }
        } catch {
            if let range = recorded.withLock({ $0 }) { ownAnchors.withLock { $0.removeAll { $0 == range } } }
            throw error
        }
    }

    /// Hands `job` to the writer connection's queue and returns at once. Jobs run one after the other on the writer's
    /// thread, in the order they were handed over, with no task between one and the next: an importer that hands its
    /// batches over in order has them written back to back. `job` runs as a write of `owner`'s bulk write
    /// (`HKHealthStore.withBulkWrite`), if given: its saves share that transaction and live queries hear of them at its commits.
    func enqueueWrite(as owner: ObjectIdentifier?, _ job: @escaping @Sendable (Database) -> Void) {
        writer.asyncWriteWithoutTransaction { db in
            Self.$bulkWriteOwner.withValue(owner) { job(db) }
        }
    }

    /// ``writeChanges(_:)`` from a job already on the writer (``enqueueWrite(as:_:)``): in its bulk write's shared
    /// transaction when it runs in one (a savepoint of its own), in a transaction of its own otherwise.
    func writeChangesInJob<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try recordingAnchors(body) { recorded in
            try Self.mapErrors(path: displayPath) { try bulkWrite(db, ownSave: isInOwnBulkWrite, recorded) }
        }
    }

    /// Runs `body` in a write transaction, recording the change anchors it used as this object's own.
    private func changing<T>(_ db: Database, _ body: (Database) throws -> T) throws -> (T, ClosedRange<Int64>?) {
        let before = try Self.sequence(db)
        let result = try body(db)
        let after = try Self.sequence(db)
        guard after > before else { return (result, nil) }
        let range = (before + 1)...after
        ownAnchors.withLock { $0.append(range) }
        return (result, range)
    }

    /// A write that advances the change counter, remembering the anchors it used as this
    /// object's own (recorded inside the transaction, so before any reader can see them), so the
    /// watcher for other writers does not report them again.
    func writeChanges<T>(_ body: (Database) throws -> T) throws -> T {
        try recordingAnchors(body) { recorded in try write(recorded) }
    }

    /// Runs `write` with `body` wrapped to record its anchors (``changing(_:_:)``); they are forgotten again when the
    /// write fails, its transaction or savepoint rolled back.
    private func recordingAnchors<T>(_ body: (Database) throws -> T, _ write: ((Database) throws -> T) throws -> T) throws -> T {
        // `body` does not outlive this call: `write` runs it before returning.
        try withoutActuallyEscaping(body) { body in
            var recorded: ClosedRange<Int64>?
            do {
                return try write { db in
                    let (result, range) = try changing(db, body)
                    recorded = range
                    return result
                }
            } catch {
                if let recorded { ownAnchors.withLock { $0.removeAll { $0 == recorded } } }
                throw error
            }
        }
    }
}
