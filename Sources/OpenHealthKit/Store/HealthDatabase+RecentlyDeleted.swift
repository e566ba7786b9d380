import Foundation
import GRDB

/// One entry of the owner's "Recently deleted" list, read back and opened.
struct RecentlyDeletedEntry: Sendable {
    /// The entry's number in the list (what the owner names to restore it).
    let id: Int64
    /// The sample as it was deleted, with its old UUID.
    let sample: HKSample
    /// A copy with a new UUID, to save on restore; nil for a workout route, whose copy is
    /// made from `locations`.
    let copy: HKSample?
    /// The source revision it was recorded under.
    let revision: SourceRevisionRecord
    /// When it was deleted.
    let deletedAt: Date
    /// The UUIDs it was linked to when deleted: a workout's associated samples, or the
    /// workouts a sample (a route) was associated with.
    let links: [UUID]
    /// A route's locations (only when read for a restore).
    let locations: [CLLocation]?
}

extension HealthDatabase {
    /// How long the "Recently deleted" list keeps a deleted sample: 30 days.
    static let recentlyDeletedRetention: TimeInterval = 30 * 86_400

    /// Copies the rows about to be deleted into `recently_deleted`, inside the delete's
    /// transaction: each row's sealed record unchanged (still bound to its UUID, type, kind and
    /// dates, copied beside it), a correlation's members as child entries, a route's sealed
    /// location blocks, and the UUIDs of its workout links. A member deleted together with its
    /// correlation is kept under the correlation only.
    func keepRecentlyDeleted(_ db: Database, rowIDs: [Int64], deletedAt: Double) throws {
        guard !rowIDs.isEmpty else { return }
        let chosen = Set(rowIDs)
        let parentOf = try db.cachedStatement(sql: "SELECT parent_id FROM sample WHERE id = ?")
        for rowID in rowIDs {
            if let parent = try Row.fetchOne(parentOf, arguments: [rowID])?[0] as Int64?, chosen.contains(parent) { continue }
            try keepRecentlyDeleted(db, rowID: rowID, parent: nil, deletedAt: deletedAt)
        }
    }

    private func keepRecentlyDeleted(_ db: Database, rowID: Int64, parent: Int64?, deletedAt: Double) throws {
        let links = try Data.fetchAll(db, sql: """
            SELECT s.uuid FROM workout_association a JOIN sample s ON s.id = a.sample_id WHERE a.workout_id = ?
            UNION ALL
            SELECT s.uuid FROM workout_association a JOIN sample s ON s.id = a.workout_id WHERE a.sample_id = ?
            """, arguments: [rowID, rowID])
        let copy = try db.cachedStatement(sql: """
            INSERT INTO recently_deleted (parent_id, uuid, type, kind, start, "end", activity_type, source_id, deleted_at, links, sealed)
            SELECT ?, uuid, \(SampleTypeCode.identifier(of: "sample.type")), kind, start, "end", activity_type, source_id, ?, ?, sealed
            FROM sample WHERE id = ?
            """)
        try copy.execute(arguments: [parent, deletedAt, links.isEmpty ? nil : Data(links.joined()), rowID])
        guard db.changesCount == 1 else { return }
        let itemID = db.lastInsertedRowID
        try db.execute(sql: """
            INSERT INTO recently_deleted_route_block (item_id, position, first, last, count, sealed)
            SELECT ?, position, first, last, count, sealed FROM route_block WHERE sample_id = ?
            """, arguments: [itemID, rowID])
        for member in try Int64.fetchAll(db, sql: "SELECT id FROM sample WHERE parent_id = ? ORDER BY id", arguments: [rowID]) {
            try keepRecentlyDeleted(db, rowID: member, parent: itemID, deletedAt: deletedAt)
        }
    }

    /// Forgets the entries of the "Recently deleted" list older than 30 days by the store's
    /// clock (their members and route blocks with them).
    func purgeRecentlyDeleted(_ db: Database) throws {
        let cutoff = now().timeIntervalSinceReferenceDate - Self.recentlyDeletedRetention
        try db.execute(sql: "DELETE FROM recently_deleted WHERE parent_id IS NULL AND deleted_at < ?", arguments: [cutoff])
    }

    /// Forgets the entries older than 30 days, in a transaction of its own (when the store opens).
    func purgeRecentlyDeleted() throws {
        try write { db in try purgeRecentlyDeleted(db) }
    }

    private static let recentlyDeletedColumns = """
        r.id, r.uuid, r.type, r.kind, r.start, r."end", r.activity_type, 0, r.sealed,
        src.bundle_identifier, src.name, src.version, src.product_type, src.os_version, r.deleted_at, r.links
        """

    /// The entries of the "Recently deleted" list, newest deletion first: all of them (`ids`
    /// nil) or those named, in the order named. Entries past their 30 days are left out.
    /// - Parameter forRestore: also make each entry's copy with a new UUID and open a route's locations.
    /// - Throws: `errorInvalidArgument` for a named entry that is not in the list.
    func recentlyDeleted(ids: [Int64]?, forRestore: Bool) async throws -> [RecentlyDeletedEntry] {
        let cutoff = now().timeIntervalSinceReferenceDate - Self.recentlyDeletedRetention
        return try await readAsync { db in
            let context = DecodingContext(cipher: cipher, db: db)
            var rows: [Row] = []
            let base = "SELECT \(Self.recentlyDeletedColumns) FROM recently_deleted r JOIN source src ON src.id = r.source_id"
            if let ids {
                let statement = try db.cachedStatement(sql: base + " WHERE r.id = ? AND r.parent_id IS NULL AND r.deleted_at >= ?")
                for id in ids {
                    guard let row = try Row.fetchOne(statement, arguments: [id, cutoff]) else {
                        throw HKError(.errorInvalidArgument,
                                      "Recently deleted has no item \(id) (it was restored, or deleted more than 30 days ago)")
                    }
                    rows.append(row)
                }
            } else {
                rows = try Row.fetchAll(db, sql: base + " WHERE r.parent_id IS NULL AND r.deleted_at >= ? ORDER BY r.deleted_at DESC, r.id DESC",
                                        arguments: [cutoff])
            }
            return try rows.map { row in try entry(db, row: row, forRestore: forRestore, context: context) }
        }
    }

    private func entry(_ db: Database, row: Row, forRestore: Bool, context: DecodingContext) throws -> RecentlyDeletedEntry {
        let item = try DecodedSampleRow(row: row, context: context)
        var members = Set<HKSample>()
        var memberCopies = Set<HKSample>()
        var seriesEntries: [QuantitySeriesEntry] = []
        if item.kind == .correlation || (forRestore && item.kind == .quantitySeries) {
            let statement = try db.cachedStatement(sql: """
                SELECT \(Self.recentlyDeletedColumns) FROM recently_deleted r JOIN source src ON src.id = r.source_id
                WHERE r.parent_id = ? ORDER BY r.id
                """)
            for memberRow in try Row.fetchAll(statement, arguments: [item.rowID]) {
                var member = try DecodedSampleRow(row: memberRow, context: context)
                if item.kind == .quantitySeries {
                    // A series' quantities: its copy is saved as a series again, with every one.
                    guard let quantity = try member.makeSample(members: [], context: context) as? HKQuantitySample else {
                        throw HealthStoreError(.corruptDatabase, "a recently deleted quantity series has a member that is not a quantity")
                    }
                    seriesEntries.append(QuantitySeriesEntry(quantity: quantity.quantity,
                                                             dateInterval: DateInterval(start: quantity.startDate, end: quantity.endDate)))
                    continue
                }
                members.insert(try member.makeSample(members: [], context: context))
                if forRestore {
                    member.uuid = UUID()
                    memberCopies.insert(try member.makeSample(members: [], context: context))
                }
            }
        }
        let sample = try item.makeSample(members: members, context: context)
        var copy: HKSample?
        var locations: [CLLocation]?
        if forRestore {
            if item.kind == .workoutRoute {
                var opened: [CLLocation] = []
                for block in try Row.fetchAll(db, sql: """
                    SELECT position, count, sealed FROM recently_deleted_route_block WHERE item_id = ? ORDER BY position
                    """, arguments: [item.rowID]) {
                    opened += try RouteBlock.open(block[2], route: item.uuid, position: block[0], count: block[1], cipher: cipher)
                }
                locations = opened
            } else if item.kind == .quantitySeries, let series = sample as? HKQuantitySample {
                copy = try PendingQuantitySeries(type: series.quantityType, entries: seriesEntries, start: series.startDate,
                                                 end: series.endDate, device: series.device, metadata: series.metadata)
            } else if item.kind == .heartbeatSeries {
                guard let extra = item.payload.extra else {
                    throw HealthStoreError(.corruptDatabase, "a recently deleted heartbeat series has no beats")
                }
                copy = HKHeartbeatSeriesSample(beats: try HeartbeatCodec.decode(extra), start: sample.startDate, device: sample.device,
                                               metadata: sample.metadata)
            } else {
                var fresh = item
                fresh.uuid = UUID()
                copy = try fresh.makeSample(members: memberCopies, context: context)
            }
        }
        var links: [UUID] = []
        if let blob = row[Self.sampleColumnCount + 1] as Data? {
            var offset = blob.startIndex
            while offset + 16 <= blob.endIndex {
                if let uuid = UUID(databaseBlob: Data(blob[offset..<(offset + 16)])) { links.append(uuid) }
                offset += 16
            }
        }
        return RecentlyDeletedEntry(id: item.rowID, sample: sample, copy: copy, revision: item.revision,
                                    deletedAt: Date(timeIntervalSinceReferenceDate: row[Self.sampleColumnCount]), links: links,
                                    locations: locations)
    }

    /// Removes restored entries from the list and links the restored samples as their
    /// originals were linked, inside the restore's transaction. `restored` maps each entry's
    /// old UUID to its copy's; a link names the copy when its other end was restored in the
    /// same transaction, else the stored sample with the old UUID, if any.
    /// - Throws: `errorInvalidArgument` when an entry is no longer in the list (restored by
    ///   another caller meanwhile) or its copy was not stored (a stored sample has its sync
    ///   identifier and an equal or newer version): the whole restore is rolled back.
    static func finishRestore(_ db: Database, entries: [(id: Int64, kind: SampleKind, links: [UUID])], oldUUIDs: [UUID],
                              restored: [UUID: UUID]) throws {
        let remove = try db.cachedStatement(sql: "DELETE FROM recently_deleted WHERE id = ? AND parent_id IS NULL")
        let lookup = try db.cachedStatement(sql: "SELECT id, kind FROM sample WHERE uuid = ?")
        let associate = try db.cachedStatement(sql: "INSERT OR IGNORE INTO workout_association (workout_id, sample_id) VALUES (?, ?)")
        // A restored clinical record may have been deleted before a one-time pass ran over the
        // stored records: the passes run again (each looks only for records lacking what it adds).
        if entries.contains(where: { $0.kind == .clinicalRecord }) {
            try db.execute(sql: "DELETE FROM store_info WHERE key LIKE 'pass:%'")
        }
        for (entry, oldUUID) in zip(entries, oldUUIDs) {
            try remove.execute(arguments: [entry.id])
            guard db.changesCount == 1 else {
                throw HKError(.errorInvalidArgument, "Recently deleted item \(entry.id) was restored meanwhile; nothing was restored")
            }
            guard let newUUID = restored[oldUUID], let own = try Row.fetchOne(lookup, arguments: [newUUID.databaseBlob]) else {
                // The insert dropped it: a sample with its sync identifier and a version as high is stored.
                throw HKError(.errorInvalidArgument, """
                    Recently deleted item \(entry.id) was not restored: a sample with the same sync identifier \
                    (HKMetadataKeySyncIdentifier) and an equal or newer version is stored; nothing was restored
                    """)
            }
            guard !entry.links.isEmpty else { continue }
            for link in entry.links {
                guard let other = try Row.fetchOne(lookup, arguments: [(restored[link] ?? link).databaseBlob]) else { continue }
                let isWorkout = entry.kind == .workout
                let workout: Row = isWorkout ? own : other
                let sample: Row = isWorkout ? other : own
                guard workout[1] as Int64 == SampleKind.workout.rawValue else { continue }
                try associate.execute(arguments: [workout[0] as Int64, sample[0] as Int64])
            }
        }
    }
}
