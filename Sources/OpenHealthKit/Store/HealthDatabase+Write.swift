import Foundation
import GRDB

extension HealthDatabase {
    /// Inserts samples in one transaction: all of them are committed, or none.
    ///
    /// A sample whose sync identifier (scoped to its source) is already stored replaces the
    /// stored one when its sync version is higher, leaving a tombstone for the old one, and is
    /// dropped otherwise, as HealthKit does.
    /// - Returns: the change set for observers (empty when everything was dropped).
    func insert(_ samples: [PreparedSample], revision: SourceRevisionRecord) throws -> StoreChangeSet {
        try write { db in
                let sourceID = try Self.sourceID(db, revision)
                var sequence = try Self.sequence(db)
                var changes = StoreChangeSet()
                let statement = try db.cachedStatement(sql: """
                    INSERT INTO sample (uuid, type, kind, start, "end", source_id, parent_id, activity_type, anchor, sync_id, sync_version, sealed)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                let indexStatement = try db.cachedStatement(sql: "INSERT INTO metadata_index (sample_id, key_hash, value_hash) VALUES (?, ?, ?)")
                let now = Date().timeIntervalSinceReferenceDate

                func insertRow(_ sample: PreparedSample, parent: Int64?) throws {
                    sequence += 1
                    statement.setUncheckedArguments([
                        sample.uuid.databaseBlob, sample.type, sample.kind.rawValue, sample.start, sample.end, sourceID,
                        parent, sample.activityType, sequence, sample.syncHash, sample.syncVersion, sample.sealed,
                    ])
                    try statement.execute()
                    let rowID = db.lastInsertedRowID
                    for entry in sample.metadataIndex {
                        indexStatement.setUncheckedArguments([rowID, entry.keyHash, entry.valueHash])
                        try indexStatement.execute()
                    }
                    changes.insert(type: sample.type, source: revision.bundleIdentifier)
                    for member in sample.members { try insertRow(member, parent: rowID) }
                }

                for sample in samples {
                    if let syncHash = sample.syncHash {
                        let existing = try Row.fetchOne(db, sql: "SELECT id, sync_version FROM sample WHERE sync_id = ? AND type = ?",
                                                        arguments: [syncHash, sample.type])
                        if let existing {
                            let storedVersion: Int64 = existing["sync_version"] ?? Int64.min
                            guard (sample.syncVersion ?? Int64.min) > storedVersion else { continue }
                            try tombstone(db, rowIDs: [existing["id"]], sequence: &sequence, now: now, changes: &changes)
                        }
                    }
                    try insertRow(sample, parent: nil)
                }
                try Self.setSequence(db, sequence)
                return changes
        }
    }

    /// Links saved samples to a saved workout.
    func associate(sampleUUIDs: [UUID], workoutUUID: UUID, requester: String, mayModifyAny: Bool) throws -> StoreChangeSet {
        try write { db in
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
            for uuid in sampleUUIDs {
                guard let sampleID = try Int64.fetchOne(db, sql: "SELECT id FROM sample WHERE uuid = ?", arguments: [uuid.databaseBlob]) else {
                    throw HKError(.errorInvalidArgument, "a sample to associate is not saved in this store")
                }
                try db.execute(sql: "INSERT OR IGNORE INTO workout_association (workout_id, sample_id) VALUES (?, ?)",
                               arguments: [workoutID, sampleID])
            }
            var changes = StoreChangeSet()
            changes.insert(type: HKWorkoutTypeIdentifier, source: owner)
            return changes
        }
    }

    /// Deletes rows (and the members of deleted correlations), leaving tombstones.
    /// - Parameters:
    ///   - uuids: the objects to delete; unknown UUIDs are reported as `errorInvalidArgument`
    ///     when `requireAll` is set (deleting objects by value), ignored otherwise.
    ///   - requester: the bundle identifier of the caller; only its own objects may be deleted
    ///     unless `mayDeleteAny` (the store's owner).
    /// - Returns: how many objects were deleted and the change set.
    func delete(uuids: [UUID], requester: String, mayDeleteAny: Bool, requireAll: Bool) throws -> (Int, StoreChangeSet) {
        try write { db in
            var rowIDs: [Int64] = []
            for chunk in uuids.chunked(into: 500) {
                let rows = try Row.fetchAll(db, sql: """
                    SELECT s.id, src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id
                    WHERE s.uuid IN (\(SQLPredicate.placeholders(chunk.count)))
                    """, arguments: StatementArguments(chunk.map(\.databaseBlob)))
                for row in rows {
                    let owner: String = row["bundle_identifier"]
                    guard mayDeleteAny || owner == requester else {
                        throw HKError(.errorAuthorizationDenied, "an app may delete only the objects it saved")
                    }
                    rowIDs.append(row["id"])
                }
            }
            if requireAll, rowIDs.count < Set(uuids).count {
                throw HKError(.errorInvalidArgument, "some objects to delete are not in the store")
            }
            var sequence = try Self.sequence(db)
            var changes = StoreChangeSet()
            let count = try tombstone(db, rowIDs: rowIDs, sequence: &sequence, now: Date().timeIntervalSinceReferenceDate,
                                      changes: &changes)
            try Self.setSequence(db, sequence)
            try pruneTombstones(db)
            return (count, changes)
        }
    }

    /// Replaces rows by tombstones that keep the UUID, type, source and sealed sync metadata.
    @discardableResult
    private func tombstone(_ db: Database, rowIDs: [Int64], sequence: inout Int64, now: Double,
                           changes: inout StoreChangeSet) throws -> Int {
        guard !rowIDs.isEmpty else { return 0 }
        var all = rowIDs
        var frontier = rowIDs
        while !frontier.isEmpty {
            let members = try Int64.fetchAll(db, sql: "SELECT id FROM sample WHERE parent_id IN (\(SQLPredicate.placeholders(frontier.count)))",
                                             arguments: StatementArguments(frontier))
            all += members
            frontier = members
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO deleted_object (anchor, uuid, type, source_id, deleted_at, sealed) VALUES (?, ?, ?, ?, ?, ?)")
        // Members first, so a correlation's parent is deleted after the rows that point at it.
        for rowID in all.reversed() {
            guard let row = try Row.fetchOne(db, sql: """
                SELECT s.uuid, s.type, s.source_id, s.sealed, src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id WHERE s.id = ?
                """, arguments: [rowID]) else { continue }
            let uuidBlob: Data = row["uuid"]
            let sealed: Data = row["sealed"]
            let payload = try SamplePayload(decoding: cipher.open(sealed, context: uuidBlob))
            var sealedSync: Data?
            if let metadata = payload.metadata {
                let sync = MetadataCodec.syncMetadata(try MetadataCodec.decode(metadata))
                if !sync.isEmpty { sealedSync = try cipher.seal(try MetadataCodec.encode(sync), context: uuidBlob) }
            }
            sequence += 1
            let type: String = row["type"]
            insert.setUncheckedArguments([sequence, uuidBlob, type, row["source_id"] as Int64, now, sealedSync])
            try insert.execute()
            try db.execute(sql: "DELETE FROM sample WHERE id = ?", arguments: [rowID])
            changes.insert(type: type, source: row["bundle_identifier"])
        }
        return rowIDs.count
    }

    /// Forgets tombstones older than the retention period and remembers the newest anchor
    /// forgotten, so older anchors are refused instead of silently missing deletions.
    func pruneTombstones(_ db: Database) throws {
        let cutoff = Date().timeIntervalSinceReferenceDate - tombstoneRetention
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
