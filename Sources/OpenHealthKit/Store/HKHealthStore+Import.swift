import Foundation
import GRDB
import GRDBSQLite

extension HKHealthStore {
    /// Saves objects atomically, each recorded under the source revision given for it rather
    /// than the store's own source: what an import of another device's export needs, so that a
    /// sample keeps the app, version and device that wrote it (OpenHealthKit API, owner only).
    ///
    /// Sync identifiers are scoped to each object's own source, as HealthKit scopes them.
    /// - Parameters:
    ///   - objects: the samples to save.
    ///   - revisions: one source revision per object, in the same order.
    /// - Returns: what was stored and what the store already had, by type (``HKSaveCounts``):
    ///   an object whose sync identifier is stored with the same or a higher version is not
    ///   stored again, so an import run twice stores nothing the second time.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner;
    ///   `errorInvalidArgument` when the counts differ or an object cannot be saved.
    @discardableResult
    public func save(_ objects: [HKObject], recordedAs revisions: [HKSourceRevision]) async throws -> HKSaveCounts {
        try await save(objects, recordedAs: revisions, knownSyncHashes: [])
    }

    /// The keyed hash a sample's sync identifier is stored under for its source, as ``storedSyncHashes(of:)`` found
    /// it, so that saving the sample does not compute it again.
    package struct KnownSyncHash: Sendable {
        package let syncIdentifier: String
        package let sourceBundleIdentifier: String
        let hash: Data
    }

    /// ``save(_:recordedAs:)`` with the sync hashes a lookup computed (``storedSyncHashes(of:)``), one per object or
    /// none (nil, or fewer than the objects): a hash is used only for an object whose sync identifier and source are
    /// its key's, so the rows are the same as without it.
    @discardableResult
    package func save(_ objects: [HKObject], recordedAs revisions: [HKSourceRevision], knownSyncHashes: [KnownSyncHash?]) async throws
        -> HKSaveCounts {
        try await save(try await prepareSave(objects, recordedAs: revisions, knownSyncHashes: knownSyncHashes))
    }

    /// A batch of samples validated and sealed by ``prepareSave(_:recordedAs:knownSyncHashes:)``, not yet written.
    package struct PreparedSave: Sendable {
        fileprivate let samples: [PreparedSample]
        /// The samples' quantity values, sealed in value blocks.
        fileprivate let plan: ValueBlockPlan
    }

    /// The first half of ``save(_:recordedAs:knownSyncHashes:)``: validates and seals the objects without touching the
    /// database, so that an importer prepares its next batch while SQLite writes the one before (`save(_:)` of the
    /// prepared batch).
    /// - Throws: as ``save(_:recordedAs:)`` for an object that cannot be saved.
    package func prepareSave(_ objects: [HKObject], recordedAs revisions: [HKSourceRevision], knownSyncHashes: [KnownSyncHash?])
        async throws -> PreparedSave {
        try checkCanPrepare(objects, revisions)
        return try Self.prepare(objects, revisions, knownSyncHashes, database: try await engine.databaseAsync())
    }

    /// ``prepareSave(_:recordedAs:knownSyncHashes:)`` on the calling thread, which it may block while the store opens
    /// (package API: an importer's reader thread, outside Swift's cooperative pool).
    package func prepareSaveBlocking(_ objects: [HKObject], recordedAs revisions: [HKSourceRevision], knownSyncHashes: [KnownSyncHash?])
        throws -> PreparedSave {
        try checkCanPrepare(objects, revisions)
        return try Self.prepare(objects, revisions, knownSyncHashes, database: try engine.database())
    }

    private func checkCanPrepare(_ objects: [HKObject], _ revisions: [HKSourceRevision]) throws {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may save samples under other sources")
        }
        guard objects.count == revisions.count else {
            throw HKError(.errorInvalidArgument, "one source revision is needed per object")
        }
    }

    private static func prepare(_ objects: [HKObject], _ revisions: [HKSourceRevision], _ knownSyncHashes: [KnownSyncHash?],
                                database: HealthDatabase) throws -> PreparedSave {
        let cipher = database.cipher
        var preparers: [String: SamplePreparer] = [:]
        // Objects come in runs of one source revision (an import's share its objects): the last one's preparer and record
        // are reused without hashing its bundle identifier or converting it again.
        var last: (revision: HKSourceRevision, preparer: SamplePreparer, record: SourceRevisionRecord)?
        var prepared: [PreparedSample] = []
        prepared.reserveCapacity(objects.count)
        for (index, (object, revision)) in zip(objects, revisions).enumerated() {
            guard object is HKSample else { throw HKError(.errorInvalidArgument, "only samples can be saved") }
            let current: (revision: HKSourceRevision, preparer: SamplePreparer, record: SourceRevisionRecord)
            if let last, last.revision === revision {
                current = last
            } else {
                let bundle = revision.source.bundleIdentifier
                let preparer = preparers[bundle] ?? SamplePreparer(cipher: cipher, bundleIdentifier: bundle)
                preparers[bundle] = preparer
                current = (revision, preparer, SourceRevisionRecord(revision))
                last = current
            }
            let known = index < knownSyncHashes.count ? knownSyncHashes[index] : nil
            var sample = try current.preparer.prepare(object, knownSyncHash: known)
            sample.revision = current.record
            prepared.append(sample)
        }
        // The values' blocks are sealed here too, so that the write does nothing but write.
        let (samples, plan) = try database.planValueBlocks(prepared)
        return PreparedSave(samples: samples, plan: plan)
    }

    /// The second half of ``save(_:recordedAs:knownSyncHashes:)``: writes a prepared batch in one transaction.
    /// - Returns: what was stored and what the store already had, by type.
    @discardableResult
    package func save(_ prepared: PreparedSave) async throws -> HKSaveCounts {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may save samples under other sources")
        }
        guard !prepared.samples.isEmpty else { return HKSaveCounts() }
        let changes = try await engine.databaseAsync().insert(planned: prepared.samples, plan: prepared.plan, revision: engine.revision)
        notify(changes)
        return changes.saveCounts
    }

    /// What a batch handed to ``enqueueSave(_:objects:recordedAs:knownSyncHashes:owner:skip:completion:)`` stored.
    package struct QueuedSaveOutcome: Sendable {
        /// What was stored and what the store already had, by type.
        package var counts = HKSaveCounts()
        /// The store's reason for each sample it refused, left out of the batch.
        package var refused: [String] = []
    }

    /// Hands a prepared batch to the store's writer and returns at once (package API, owner only). Batches are written
    /// one after the other in the order they are handed over, the writer going from one to the next without waiting
    /// for a task: an importer's batches are written back to back while it reads the next.
    ///
    /// On the writer, once the batches before it are written, `skip` is asked first: when it says so the batch is not
    /// written and `completion` gets `CancellationError` (an importer whose batch before failed). A batch the store
    /// refuses for one of its samples (`errorInvalidArgument`, found when it was prepared or while it is written, which
    /// then leaves nothing of it) is saved there sample by sample, before any later batch: each refused sample is left
    /// out with the store's reason in ``QueuedSaveOutcome/refused``. `owner` is the bulk write the batch is written in
    /// (``withBulkWrite(_:_:)``), if any. `completion` runs on the writer's thread.
    package func enqueueSave(_ prepared: Result<PreparedSave, any Error>, objects: [HKObject], recordedAs revisions: [HKSourceRevision],
                             knownSyncHashes: [KnownSyncHash?], owner: BulkWriteOwner?, skip: @escaping @Sendable () -> Bool,
                             completion: @escaping @Sendable (Result<QueuedSaveOutcome, any Error>) -> Void) {
        let database: HealthDatabase
        do {
            guard engine.isOwner else {
                throw HKError(.errorAuthorizationDenied, "only the store's owner may save samples under other sources")
            }
            database = try engine.database()
        } catch {
            completion(.failure(error))
            return
        }
        let revision = engine.revision
        database.enqueueWrite(as: owner?.database) { db in
            guard !skip() else { return completion(.failure(CancellationError())) }
            var outcome = QueuedSaveOutcome()
            func write(_ prepared: PreparedSave) throws {
                guard !prepared.samples.isEmpty else { return }
                let changes = try database.insert(db, planned: prepared.samples, plan: prepared.plan, revision: revision)
                self.notify(changes)
                outcome.counts.add(changes.saveCounts)
            }
            do {
                try write(try prepared.get())
            } catch let error as HKError where error.code == .errorInvalidArgument {
                // One source revision per object, or the batch was refused for that and nothing is saved one by one.
                guard objects.count == revisions.count else { return completion(.failure(error)) }
                for (index, (object, objectRevision)) in zip(objects, revisions).enumerated() {
                    do {
                        let known = index < knownSyncHashes.count ? knownSyncHashes[index] : nil
                        try write(try Self.prepare([object], [objectRevision], [known], database: database))
                    } catch let error as HKError where error.code == .errorInvalidArgument {
                        outcome.refused.append(error.message)
                    } catch {
                        return completion(.failure(error))
                    }
                }
            } catch {
                return completion(.failure(error))
            }
            completion(.success(outcome))
        }
    }

    /// The sync versions the store holds for sync identifiers, so that an importer can skip
    /// converting the samples an earlier run already stored (OpenHealthKit API, owner only).
    ///
    /// Each identifier is looked up as ``save(_:recordedAs:)`` scopes it: to the source's
    /// bundle identifier and the sample's type, among top-level samples. A sample whose stored
    /// version is the same or higher than the one it would be saved with is what that save
    /// reports as already stored.
    /// - Parameter keys: each sample's sync identifier (`HKMetadataKeySyncIdentifier`), type
    ///   identifier, and the bundle identifier of the source it is recorded under.
    /// - Returns: for each key, in order, the highest sync version stored under it, or nil when
    ///   nothing is stored under it (or only samples without a version).
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner.
    public func storedSyncVersions(of keys: [(syncIdentifier: String, typeIdentifier: String, sourceBundleIdentifier: String)])
        async throws -> [Int64?] {
        try await storedSyncHashes(of: keys).versions
    }

    /// Whether the store holds a sample with a sync identifier (package API, owner only): an import into a store that
    /// holds none has nothing to look up before converting its records (``storedSyncHashes(of:)``).
    package func holdsSamplesWithSyncIdentifiers() async throws -> Bool {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may look up sync identifiers of other sources")
        }
        let database = try await engine.databaseAsync()
        // The partial index `sample_sync` answers at once.
        return try await database.readAsync { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sample WHERE sync_id IS NOT NULL)") ?? false
        }
    }

    /// ``storedSyncVersions(of:)``, with each key's sync hash, for ``save(_:recordedAs:knownSyncHashes:)`` of the samples
    /// found not stored.
    package func storedSyncHashes(of keys: [(syncIdentifier: String, typeIdentifier: String, sourceBundleIdentifier: String)])
        async throws -> (versions: [Int64?], hashes: [KnownSyncHash]) {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may look up sync identifiers of other sources")
        }
        guard !keys.isEmpty else { return ([], []) }
        let database = try await engine.databaseAsync()
        let cipher = database.cipher
        let hashes = keys.map { cipher.indexHash("sync", $0.sourceBundleIdentifier, $0.syncIdentifier) }
        let types = keys.map(\.typeIdentifier)
        let sql = "SELECT max(sync_version) FROM sample WHERE sync_id = ? AND type = ? AND parent_id IS NULL"
        let versions = try await database.readAsync { db in
            // Each type's code is read once per call (in this read's snapshot), not in every lookup: a type never
            // stored has none, and nothing of it is stored.
            let codeStatement = try db.cachedStatement(sql: "SELECT id FROM sample_type WHERE identifier = ?")
            var codes: [String: Int64?] = [:]
            func code(of type: String) throws -> Int64? {
                if let known = codes[type] { return known }
                let found = try Int64.fetchOne(codeStatement, arguments: [type])
                codes[type] = .some(found)
                return found
            }
            // Bound, stepped and read through SQLite's C API on GRDB's cached statement: GRDB's arguments and
            // cursor for each key cost more than the lookup in the index itself.
            let statement = try db.cachedStatement(sql: sql)
            let sqlite = statement.sqliteStatement
            let transient = SampleRowStatement.transient
            func check(_ code: Int32, _ expected: Int32 = SQLITE_OK) throws {
                guard code == expected else { throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: sql) }
            }
            defer {
                _ = sqlite3_reset(sqlite)
                _ = sqlite3_clear_bindings(sqlite)
            }
            var versions: [Int64?] = []
            versions.reserveCapacity(hashes.count)
            var last: (type: String, code: Int64?)?
            for (hash, type) in zip(hashes, types) {
                let typeCode: Int64?
                if let last, last.type == type {
                    typeCode = last.code
                } else {
                    typeCode = try code(of: type)
                    last = (type, typeCode)
                }
                guard let typeCode else {
                    versions.append(nil)
                    continue
                }
                // Its code repeats the previous step's, checked there.
                _ = sqlite3_reset(sqlite)
                try hash.withUnsafeBytes { bytes in
                    try check(sqlite3_bind_blob(sqlite, 1, bytes.baseAddress, Int32(bytes.count), transient))
                }
                try check(sqlite3_bind_int64(sqlite, 2, typeCode))
                // An aggregate: always one row.
                try check(sqlite3_step(sqlite), SQLITE_ROW)
                versions.append(sqlite3_column_type(sqlite, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(sqlite, 0))
            }
            return versions
        }
        return (versions, zip(keys, hashes).map { KnownSyncHash(syncIdentifier: $0.syncIdentifier, sourceBundleIdentifier: $0.sourceBundleIdentifier,
                                                                hash: $1) })
    }
}
