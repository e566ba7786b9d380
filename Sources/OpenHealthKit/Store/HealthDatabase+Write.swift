import Foundation
import GRDB

extension HealthDatabase {
    /// Inserts samples in one transaction: all of them are committed, or none.
    ///
    /// A sample whose sync identifier (scoped to its source) is already stored replaces the
    /// stored one when its sync version is higher, leaving a tombstone for the old one, and is
    /// dropped otherwise, as HealthKit does.
    ///
    /// The quantity values are also sealed in value blocks (``ValueBlockPlan``) before the
    /// transaction starts; the blocks are inserted before the rows and each row points at its
    /// entry. A block holding a sample the store already has (found before the blocks go in) is
    /// not inserted; a sample dropped later (a batch that stores the same sync identifier twice)
    /// dissolves its block, as a deleted one does (`dissolveBlocks`).
    /// A sample with its own `revision` is recorded under it rather than under `revision`.
    /// The statistics rollups of every grain a stored or replaced quantity sample touches are
    /// rebuilt at the end of the same transaction (`refreshRollups`).
    /// `alsoWrite` runs last in the same transaction (a health-records connection's sync state
    /// saved with the batch it describes), so both are committed or neither. The verifiable
    /// records `deletingVerifiableRecords` names are deleted first, in the same transaction
    /// (those no longer stored are skipped; other kinds of sample are never deleted here).
    /// - Returns: the change set for observers (empty when everything was dropped).
    func insert(_ input: [PreparedSample], revision: SourceRevisionRecord, deletingVerifiableRecords: [UUID] = [],
                alsoWrite: (@Sendable (Database) throws -> Void)? = nil) async throws -> StoreChangeSet {
        let (samples, plan) = try planValueBlocks(input)
        return try await insert(planned: samples, plan: plan, revision: revision, deletingVerifiableRecords: deletingVerifiableRecords,
                                alsoWrite: alsoWrite)
    }

    /// The samples with their quantity values sealed in value blocks (``ValueBlockPlan``), ready for
    /// ``insert(planned:plan:revision:deletingVerifiableRecords:alsoWrite:)``: the sealing is done before the write.
    func planValueBlocks(_ input: [PreparedSample]) throws -> (samples: [PreparedSample], plan: ValueBlockPlan) {
        var planned = input
        let plan = try ValueBlockPlan(samples: &planned, cipher: cipher)
        return (planned, plan)
    }

    /// ``insert(_:revision:deletingVerifiableRecords:alsoWrite:)`` of samples whose value blocks are planned already
    /// (``planValueBlocks(_:)``).
    func insert(planned samples: [PreparedSample], plan: ValueBlockPlan, revision: SourceRevisionRecord, deletingVerifiableRecords: [UUID] = [],
                alsoWrite: (@Sendable (Database) throws -> Void)? = nil) async throws -> StoreChangeSet {
        try await writeChangesAsync { db in
            try self.insertRows(db, samples, plan: plan, revision: revision, deletingVerifiableRecords: deletingVerifiableRecords, alsoWrite: alsoWrite)
        }
    }

    /// ``insert(planned:plan:revision:deletingVerifiableRecords:alsoWrite:)`` from a job on the writer's queue
    /// (``enqueueWrite(as:_:)``): written as a write of the job's bulk write, if it runs in one.
    func insert(_ db: Database, planned samples: [PreparedSample], plan: ValueBlockPlan, revision: SourceRevisionRecord) throws -> StoreChangeSet {
        try writeChangesInJob(db) { db in
            try insertRows(db, samples, plan: plan, revision: revision, deletingVerifiableRecords: [], alsoWrite: nil)
        }
    }

    /// The rows of an insert, in the transaction (or savepoint) `db` is in.
    private func insertRows(_ db: Database, _ samples: [PreparedSample], plan: ValueBlockPlan, revision: SourceRevisionRecord,
                            deletingVerifiableRecords: [UUID], alsoWrite: (@Sendable (Database) throws -> Void)?) throws -> StoreChangeSet {
        var sourceIDs: [SourceRevisionRecord: Int64] = [:]
        // Rows come in runs of one revision: compare with the last before hashing.
        var lastSource: (revision: SourceRevisionRecord, id: Int64)?
        func sourceID(of revision: SourceRevisionRecord) throws -> Int64 {
            if let lastSource, lastSource.revision == revision { return lastSource.id }
            let id = try sourceIDs[revision] ?? Self.sourceID(db, revision)
            sourceIDs[revision] = id
            lastSource = (revision, id)
            return id
        }
        var sequence = try Self.sequence(db)
        var changes = StoreChangeSet()
        var counter = SaveCounter()
        var rollups = RollupChanges()
        let statement = try SampleRowStatement(db)
        var typeCodes = SampleTypeCode.Cache()
        var indexWriter = try MetadataIndexWriter(db)
        let now = self.now().timeIntervalSinceReferenceDate
        // A bulk write's filter of the sync hashes stored: a hash it has never seen is not looked up.
        var syncFilter = try takeSyncHashFilter(db)
        defer { returnSyncHashFilter(syncFilter) }

        // Each planned block's row id; nil for a block not inserted (it holds a sample the store already has).
        var blockIDs: [Int64?] = []
        // Blocks dissolved during this transaction: rows planned for them are stored without one.
        var dissolved = Set<Int64>()
        // Devices whose row this transaction has stored or found (a batch names a few).
        var storedDevices = Set<Data>()

        func insertRow(_ sample: PreparedSample, parent: Int64?, revision: SourceRevisionRecord) throws {
            let rowSourceID = try sourceID(of: revision)
            sequence += 1
            var blockID: Int64?
            var blockIndex: Int?
            if let slot = sample.blockSlot, blockIDs.indices.contains(slot.block), let id = blockIDs[slot.block], !dissolved.contains(id) {
                blockID = id
                blockIndex = slot.index
            }
            if let device = sample.device, !storedDevices.contains(device.hash) {
                try Self.storeDevice(db, device, cipher: cipher)
                storedDevices.insert(device.hash)
            }
            try statement.insert(sample, typeCode: try typeCodes.code(db, for: sample.type), sourceID: rowSourceID, parentID: parent,
                                 anchor: sequence, blockID: blockID, blockIndex: blockIndex)
            let rowID = db.lastInsertedRowID
            if let syncHash = sample.syncHash { syncFilter?.insert(syncHash) }
            for entry in sample.metadataIndex { try indexWriter.write(entry, rowID: rowID) }
            // The row's columns answer its sync metadata only under the source its hash was scoped to.
            if let bundle = sample.syncColumnsBundle, bundle != revision.bundleIdentifier {
                for entry in try syncMetadataIndex(of: sample) { try indexWriter.write(entry, rowID: rowID) }
            }
            if !sample.routeBlocks.isEmpty || sample.workoutLink != nil {
                try insertRoute(db, sample, rowID: rowID, changes: &changes)
            }
            changes.insert(type: sample.type, source: revision.bundleIdentifier)
            counter.stored(sample.type)
            if sample.kind == .quantity {
                rollups.noteInserted(type: sample.type, start: sample.start, end: sample.end, valueBits: sample.primaryBits,
                                     sourceID: rowSourceID)
            }
            for member in sample.members { try insertRow(member, parent: rowID, revision: revision) }
        }

        if !deletingVerifiableRecords.isEmpty {
            let lookup = try db.cachedStatement(sql: "SELECT id FROM sample WHERE uuid = ? AND kind = ? AND parent_id IS NULL")
            var rowIDs: [Int64] = []
            for uuid in Set(deletingVerifiableRecords) {
                rowIDs += try Int64.fetchAll(lookup, arguments: [uuid.databaseBlob, SampleKind.verifiableRecord.rawValue])
            }
            try tombstone(db, rowIDs: rowIDs, sequence: &sequence, now: now, changes: &changes, rollups: &rollups, dissolved: &dissolved)
        }

        let syncLookup = try SyncLookupStatement(db)
        func storedRow(syncHash: Data, type: String) throws -> (id: Int64, version: Int64?)? {
            if let syncFilter, !syncFilter.mayContain(syncHash) { return nil }
            return try syncLookup.first(syncHash: syncHash, type: type)
        }
        // The samples with a value-block entry that a stored row (same sync identifier, same or higher version)
        // makes this save drop, found before the blocks go in: a block holding one is not inserted, its other
        // rows are stored without one, so saving again what is stored (a re-import) writes no block. Each
        // lookup serves the loop below unless the batch has stored or replaced a row under that hash first.
        var lookedUp: [Int: (id: Int64, version: Int64?)?] = [:]
        var skippedBlocks = Set<Int>()
        for (index, sample) in samples.enumerated() where !sample.replacesSameKey {
            guard let syncHash = sample.syncHash else { continue }
            let slots = ValueBlockPlan.slots(of: sample)
            guard !slots.isEmpty else { continue }
            let existing = try storedRow(syncHash: syncHash, type: sample.type)
            lookedUp[index] = .some(existing)
            if let existing, (sample.syncVersion ?? Int64.min) <= (existing.version ?? Int64.min) {
                skippedBlocks.formUnion(slots.map(\.block))
            }
        }
        blockIDs.reserveCapacity(plan.blocks.count)
        let blockStatement = try db.cachedStatement(sql: "INSERT INTO value_block (type, sealed) VALUES (?, ?)")
        for (index, block) in plan.blocks.enumerated() {
            guard !skippedBlocks.contains(index) else {
                blockIDs.append(nil)
                continue
            }
            blockStatement.setUncheckedArguments([block.type, block.sealed])
            try blockStatement.execute()
            blockIDs.append(db.lastInsertedRowID)
        }
        // Sync hashes this batch has stored or replaced a row under: looked up again, not from `lookedUp`.
        var touchedHashes = Set<Data>()
        // Health records: same key whatever the clinical type (an Observation may move from lab to vital).
        let replaceLookup = try db.cachedStatement(sql: "SELECT id, sync_version FROM sample WHERE sync_id = ? AND kind = ? AND parent_id IS NULL")
        for (index, sample) in samples.enumerated() {
            if let syncHash = sample.syncHash, sample.replacesSameKey {
                let rows = try Row.fetchAll(replaceLookup, arguments: [syncHash, sample.kind.rawValue])
                // A content version (an activity summary's) equal to the stored one's: the same object, already stored.
                if let version = sample.syncVersion, rows.contains(where: { ($0[1] as Int64?) == version }) {
                    counter.alreadyStoredObject(sample)
                    continue
                }
                if !rows.isEmpty { counter.replaced(sample.type) }
                try tombstone(db, rowIDs: rows.map { $0[0] }, sequence: &sequence, now: now, changes: &changes, rollups: &rollups,
                              dissolved: &dissolved)
            } else if let syncHash = sample.syncHash {
                let found: (id: Int64, version: Int64?)?
                if let earlier = lookedUp[index], !touchedHashes.contains(syncHash) {
                    found = earlier
                } else {
                    found = try storedRow(syncHash: syncHash, type: sample.type)
                }
                if let existing = found {
                    let storedVersion = existing.version ?? Int64.min
                    guard (sample.syncVersion ?? Int64.min) > storedVersion else {
                        // Not stored: its block must not keep its value.
                        let planned = ValueBlockPlan.slots(of: sample).compactMap { slot in
                            blockIDs.indices.contains(slot.block) ? blockIDs[slot.block] : nil
                        }
                        try dissolveBlocks(db, planned, dissolved: &dissolved)
                        counter.alreadyStored(sample)
                        continue
                    }
                    counter.replaced(sample.type)
                    try tombstone(db, rowIDs: [existing.id], sequence: &sequence, now: now, changes: &changes, rollups: &rollups, dissolved: &dissolved)
                }
            }
            if let syncHash = sample.syncHash { touchedHashes.insert(syncHash) }
            try insertRow(sample, parent: nil, revision: sample.revision ?? revision)
        }
        try Self.setSequence(db, sequence)
        try pruneTombstones(db)
        try refreshRollups(db, rollups)
        try alsoWrite?(db)
        changes.saveCounts = counter.finish()
        return changes
    }

    /// The metadata index rows of a prepared sample's sync identifier and version, read from its
    /// sealed record (for a sample recorded under another source than its sync hash's).
    private func syncMetadataIndex(of sample: PreparedSample) throws -> [MetadataIndexEntry] {
        let context = RecordContext(uuid: sample.uuid, type: sample.type, kind: sample.kind, start: sample.start, end: sample.end)
        let payload = try SamplePayload(decoding: cipher.open(sample.sealed, context: context.bytes))
        let values = try payload.metadata.map(MetadataCodec.decode) ?? [:]
        return SamplePreparer.metadataIndex(MetadataCodec.syncMetadata(values), cipher: cipher)
    }

    /// Inserts a route's location blocks and links it to its workout: by UUID (any source the
    /// caller was allowed to name), or by the sync identifier hash (scoped to the route's own source) of a workout.
    /// - Throws: `errorInvalidArgument` when the workout is not in the store.
    private func insertRoute(_ db: Database, _ sample: PreparedSample, rowID: Int64, changes: inout StoreChangeSet) throws {
        let blockStatement = try db.cachedStatement(sql: """
            INSERT INTO route_block (sample_id, position, first, last, count, sealed) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for block in sample.routeBlocks {
            blockStatement.setUncheckedArguments([rowID, block.position, block.first, block.last, block.count, block.sealed])
            try blockStatement.execute()
        }
        guard let link = sample.workoutLink else { return }
        let workout: Row?
        var requiredSource: String?
        switch link {
        case .uuid(let blob, let source):
            requiredSource = source
            workout = try Row.fetchOne(db, sql: """
                SELECT s.id, src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id WHERE s.uuid = ? AND s.kind = ?
                """, arguments: [blob, SampleKind.workout.rawValue])
        case .syncHash(let hash):
            workout = try Row.fetchOne(db, sql: """
                SELECT s.id, src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id
                WHERE s.sync_id = ? AND s.kind = ? AND s.parent_id IS NULL
                """, arguments: [hash, SampleKind.workout.rawValue])
        }
        guard let workout else { throw HKError(.errorInvalidArgument, "the route's workout is not saved in this store") }
        if let requiredSource, requiredSource != workout[1] as String {
            throw HKError(.errorAuthorizationDenied, "only the workout's source may add a route to it")
        }
        let workoutID: Int64 = workout[0]
        try db.execute(sql: "INSERT OR IGNORE INTO workout_association (workout_id, sample_id) VALUES (?, ?)", arguments: [workoutID, rowID])
        changes.insert(type: HKWorkoutTypeIdentifier, source: workout[1])
    }

    /// Dissolves value blocks: the rows that still point at a block are unlinked (they fall back
    /// to their own sealed records) and the block's sealed bytes are emptied, so that no block
    /// keeps the value of a sample deleted or not stored. A block's rows are found by the UUIDs
    /// its entries name, through the UUID index: the store keeps no index on `sample.block_id`
    /// (v22-leaner-indexes; it cost about 12 bytes a row). A block that does not open (altered,
    /// corrupt) is unlinked by a scan of the table instead. The emptied row stays, so deleting
    /// it never makes SQLite scan `sample` for rows that still refer to it; nothing reads it, as
    /// no row points at it. Blocks already in `dissolved` are skipped; the others are added to it.
    private func dissolveBlocks(_ db: Database, _ blockIDs: some Sequence<Int64>, dissolved: inout Set<Int64>) throws {
        let fetch = try db.cachedStatement(sql: "SELECT type, sealed FROM value_block WHERE id = ?")
        let unlinkRow = try db.cachedStatement(sql: "UPDATE sample SET block_id = NULL, block_index = NULL WHERE uuid = ? AND block_id = ?")
        let unlinkAll = try db.cachedStatement(sql: "UPDATE sample SET block_id = NULL, block_index = NULL WHERE block_id = ?")
        let empty = try db.cachedStatement(sql: "UPDATE value_block SET sealed = X'' WHERE id = ?")
        for blockID in blockIDs where dissolved.insert(blockID).inserted {
            guard let row = try Row.fetchOne(fetch, arguments: [blockID]) else { continue }
            let sealed: Data = row[1]
            guard !sealed.isEmpty else { continue }
            // A block that does not open cannot name its rows: the scan finds them all the same.
            if let block = try? ValueBlock(opening: sealed, type: row[0], cipher: cipher) {
                for uuid in block.uuids { try unlinkRow.execute(arguments: [uuid, blockID]) }
            } else {
                try unlinkAll.execute(arguments: [blockID])
            }
            try empty.execute(arguments: [blockID])
        }
    }

    /// Links saved samples to a saved workout.
    /// - Parameter canSee: whether the caller may see a sample of a type saved by a source;
    ///   samples it may not see are reported as not saved, so their existence does not leak.
    func associate(sampleUUIDs: [UUID], workoutUUID: UUID, requester: String, mayModifyAny: Bool,
                   canSee: @Sendable (_ type: String, _ source: String) -> Bool) async throws -> StoreChangeSet {
        try await writeAsync { db in
            guard let workout = try Row.fetchOne(db, sql: """
                SELECT s.id, src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id WHERE s.uuid = ? AND s.kind = ?
                """, arguments: [workoutUUID.databaseBlob, SampleKind.workout.rawValue]) else {
                throw HKError(.errorInvalidArgument, "the workout is not saved in this store")
            }
            let owner: String = workout["bundle_identifier"]
            guard mayModifyAny || owner == requester else {
                throw HKError(.errorAuthorizationDenied, "only the workout's source may add samples to it")
            }
            let workoutID: Int64 = workout["id"]
            let lookup = try db.cachedStatement(sql: """
                SELECT s.id, \(SampleTypeCode.identifier(of: "s.type")), src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id
                WHERE s.uuid = ?
                """)
            for uuid in sampleUUIDs {
                guard let row = try Row.fetchOne(lookup, arguments: [uuid.databaseBlob]), canSee(row[1], row[2]) else {
                    throw HKError(.errorInvalidArgument, "a sample to associate is not saved in this store")
                }
                let sampleID: Int64 = row[0]
                try db.execute(sql: "INSERT OR IGNORE INTO workout_association (workout_id, sample_id) VALUES (?, ?)",
                               arguments: [workoutID, sampleID])
            }
            var changes = StoreChangeSet()
            changes.insert(type: HKWorkoutTypeIdentifier, source: owner)
            return changes
        }
    }

    /// Whether a caller may delete a row.
    enum DeletePermission {
        /// Delete it.
        case allowed
        /// The caller sees it but may not delete it.
        case denied
        /// The caller may not even see it: treat it as absent.
        case hidden
    }

    /// Deletes rows (and the members of deleted correlations), leaving tombstones, and moves
    /// them to the owner's "Recently deleted" list in the same transaction
    /// (`keepRecentlyDeleted`), purging its entries past their 30 days.
    /// - Parameters:
    ///   - uuids: the objects to delete.
    ///   - requireAll: when set (deleting objects by value), an object that is absent or hidden
    ///     is `errorInvalidArgument`; otherwise such objects are skipped.
    ///   - permission: decides each row from its type, its source's bundle identifier and, for
    ///     a correlation, its members' types.
    /// - Returns: how many objects were deleted (members not counted) and the change set.
    func delete(uuids: [UUID], requireAll: Bool,
                permission: @Sendable (_ type: String, _ source: String, _ memberTypes: [String]) -> DeletePermission) async throws
        -> (Int, StoreChangeSet) {
        try await writeChangesAsync { db in
            var rowIDs: [Int64] = []
            let unique = Array(Set(uuids))
            let memberTypes = try db.cachedStatement(sql: """
                SELECT identifier FROM sample_type WHERE id IN (SELECT type FROM sample WHERE parent_id = ?)
                """)
            for chunk in unique.chunked(into: 500) {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT s.id, \(SampleTypeCode.identifier(of: "s.type")), src.bundle_identifier FROM sample s
                    JOIN source src ON src.id = s.source_id WHERE s.uuid IN (\(SQLPredicate.placeholders(chunk.count)))
                    """, arguments: StatementArguments(chunk.map(\.databaseBlob)))
                for row in rows {
                    let id: Int64 = row[0]
                    let members = try String.fetchAll(memberTypes, arguments: [id])
                    switch permission(row[1], row[2], members) {
                    case .allowed: rowIDs.append(id)
                    case .denied: throw HKError(.errorAuthorizationDenied, "an app may delete only the objects it saved and may share")
                    case .hidden: continue
                    }
                }
            }
            if requireAll, rowIDs.count < unique.count {
                throw HKError(.errorInvalidArgument, "some objects to delete are not in the store")
            }
            var sequence = try Self.sequence(db)
            var changes = StoreChangeSet()
            var rollups = RollupChanges()
            var dissolved = Set<Int64>()
            let now = now().timeIntervalSinceReferenceDate
            // The owner's "Recently deleted" list keeps what goes, in this transaction.
            try keepRecentlyDeleted(db, rowIDs: rowIDs, deletedAt: now)
            try tombstone(db, rowIDs: rowIDs, sequence: &sequence, now: now, changes: &changes,
                          rollups: &rollups, dissolved: &dissolved)
            try Self.setSequence(db, sequence)
            try pruneTombstones(db)
            try purgeRecentlyDeleted(db)
            try refreshRollups(db, rollups)
            return (rowIDs.count, changes)
        }
    }

    /// Replaces rows by tombstones that keep the UUID, type, source and sealed sync metadata,
    /// and dissolves the value blocks of the deleted rows (`dissolveBlocks`), adding them to
    /// `dissolved`. Deleted quantity rows (members of deleted correlations included) are noted
    /// in `rollups`.
    private func tombstone(_ db: Database, rowIDs: [Int64], sequence: inout Int64, now: Double,
                           changes: inout StoreChangeSet, rollups: inout RollupChanges, dissolved: inout Set<Int64>) throws {
        guard !rowIDs.isEmpty else { return }
        var all = rowIDs
        var frontier = rowIDs
        while !frontier.isEmpty {
            var next: [Int64] = []
            for chunk in frontier.chunked(into: 500) {
                next += try Int64.fetchAll(db, sql: "SELECT id FROM sample WHERE parent_id IN (\(SQLPredicate.placeholders(chunk.count)))",
                                           arguments: StatementArguments(Array(chunk)))
            }
            all += next
            frontier = next
        }
        // A quantity series' member rows were never visible: they leave no tombstone.
        var seriesMembers = Set<Int64>()
        for chunk in all.chunked(into: 500) {
            seriesMembers.formUnion(try Int64.fetchAll(db, sql: """
                SELECT m.id FROM sample m JOIN sample p ON p.id = m.parent_id
                WHERE p.kind = \(SampleKind.quantitySeries.rawValue) AND m.id IN (\(SQLPredicate.placeholders(chunk.count)))
                """, arguments: StatementArguments(Array(chunk))))
        }
        let select = try db.cachedStatement(sql: """
            SELECT s.uuid, \(SampleTypeCode.identifier(of: "s.type")), s.kind, s.start, s."end", s.source_id, s.sealed, src.bundle_identifier,
                   s.block_id
            FROM sample s JOIN source src ON src.id = s.source_id WHERE s.id = ?
            """)
        let insert = try db.cachedStatement(sql: "INSERT INTO deleted_object (anchor, uuid, type, source_id, deleted_at, sealed) VALUES (?, ?, ?, ?, ?, ?)")
        let remove = try db.cachedStatement(sql: "DELETE FROM sample WHERE id = ?")
        var blocks: [Int64] = []
        // Members first, so a correlation's parent is deleted after the rows that point at it.
        for rowID in all.reversed() {
            guard let row = try Row.fetchOne(select, arguments: [rowID]) else { continue }
            let uuidBlob: Data = row[0]
            let type: String = row[1]
            guard let kind = SampleKind(rawValue: row[2]) else { throw HealthStoreError(.corruptDatabase, "a sample has an unknown kind") }
            let sealed: Data = row[6]
            let aad = RecordContext(uuid: uuidBlob, type: type, kind: kind, start: row[3], end: row[4])
            let payload = try SamplePayload(decoding: cipher.open(sealed, context: aad.bytes))
            var sealedSync: Data?
            if let metadata = payload.metadata {
                let sync = MetadataCodec.syncMetadata(try MetadataCodec.decode(metadata))
                if !sync.isEmpty { sealedSync = try cipher.seal(try MetadataCodec.encode(sync), context: uuidBlob) }
            }
            if !seriesMembers.contains(rowID) {
                sequence += 1
                insert.setUncheckedArguments([sequence, uuidBlob, type, row[5] as Int64, now, sealedSync])
                try insert.execute()
            }
            try remove.execute(arguments: [rowID])
            if let blockID = row[8] as Int64?, blocks.last != blockID { blocks.append(blockID) }
            if kind == .quantity {
                rollups.noteDeleted(type: type, start: row[3], end: row[4])
            }
            changes.insert(type: type, source: row[7])
        }
        try dissolveBlocks(db, blocks, dissolved: &dissolved)
    }

    /// Forgets tombstones older than the retention period and remembers the newest anchor
    /// forgotten, so older anchors are refused instead of silently missing deletions.
    func pruneTombstones(_ db: Database) throws {
        let cutoff = now().timeIntervalSinceReferenceDate - tombstoneRetention
        guard let newest = try Int64.fetchOne(db, sql: "SELECT max(anchor) FROM deleted_object WHERE deleted_at < ?", arguments: [cutoff]) else {
            return
        }
        try db.execute(sql: "DELETE FROM deleted_object WHERE anchor <= ?", arguments: [newest])
        try db.execute(sql: "UPDATE store_info SET value = max(CAST(value AS INTEGER), ?) WHERE key = 'pruned_through'", arguments: [newest])
    }

    static func sourceID(_ db: Database, _ revision: SourceRevisionRecord) throws -> Int64 {
        let arguments: StatementArguments = [revision.bundleIdentifier, revision.name, revision.version, revision.productType,
                                             revision.operatingSystemVersion]
        if let id = try Int64.fetchOne(db, sql: """
            SELECT id FROM source WHERE bundle_identifier = ? AND name = ? AND version IS ? AND product_type IS ? AND os_version = ?
            """, arguments: arguments) {
            return id
        }
        try db.execute(sql: "INSERT INTO source (bundle_identifier, name, version, product_type, os_version) VALUES (?, ?, ?, ?, ?)",
                       arguments: arguments)
        return db.lastInsertedRowID
    }

    static func sequence(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = 'sequence'") ?? 0
    }

    static func setSequence(_ db: Database, _ value: Int64) throws {
        try db.execute(sql: "UPDATE store_info SET value = ? WHERE key = 'sequence'", arguments: [value])
    }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
