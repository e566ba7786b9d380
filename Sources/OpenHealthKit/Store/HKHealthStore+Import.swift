import Foundation
import GRDB

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
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may save samples under other sources")
        }
        guard objects.count == revisions.count else {
            throw HKError(.errorInvalidArgument, "one source revision is needed per object")
        }
        guard !objects.isEmpty else { return HKSaveCounts() }
        let database = try await engine.databaseAsync()
        var preparers: [String: SamplePreparer] = [:]
        var prepared: [PreparedSample] = []
        prepared.reserveCapacity(objects.count)
        for (object, revision) in zip(objects, revisions) {
            guard object is HKSample else { throw HKError(.errorInvalidArgument, "only samples can be saved") }
            let bundle = revision.source.bundleIdentifier
            let preparer = preparers[bundle] ?? SamplePreparer(cipher: database.cipher, bundleIdentifier: bundle)
            preparers[bundle] = preparer
            var sample = try preparer.prepare(object)
            sample.revision = SourceRevisionRecord(revision)
            prepared.append(sample)
        }
        let changes = try await database.insert(prepared, revision: engine.revision)
        notify(changes)
        return changes.saveCounts
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
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may look up sync identifiers of other sources")
        }
        guard !keys.isEmpty else { return [] }
        let database = try await engine.databaseAsync()
        let cipher = database.cipher
        let hashes = keys.map { cipher.indexHash("sync", $0.sourceBundleIdentifier, $0.syncIdentifier) }
        let types = keys.map(\.typeIdentifier)
        return try await database.readAsync { db in
            // One statement for up to 500 keys (a query per key cost more than the lookup in the index): every top-level
            // row under one of the hashes, whatever its type, matched to the keys below.
            var stored: [Data: [(type: String, version: Int64?)]] = [:]
            for chunk in Array(Set(hashes)).chunked(into: 500) {
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT sync_id, type, sync_version FROM sample
                    WHERE sync_id IN (\(SQLPredicate.placeholders(chunk.count))) AND sync_id IS NOT NULL AND parent_id IS NULL
                    """, arguments: StatementArguments(Array(chunk)))
                while let row = try rows.next() {
                    stored[row[0] as Data, default: []].append((row[1] as String, row[2] as Int64?))
                }
            }
            return zip(hashes, types).map { hash, type in
                stored[hash]?.lazy.filter { $0.type == type }.compactMap { $0.version }.max()
            }
        }
    }
}
