import Foundation

extension HKHealthStore {
    /// A sample in the owner's "Recently deleted" list (OpenHealthKit extension, not HealthKit
    /// API): what was deleted, and when.
    ///
    /// Every delete (`delete(_:)`, `deleteObjects(of:predicate:)`, `deleteObjects(withUUIDs:)`,
    /// by the owner or by an app) moves the deleted
    /// sample into the list in the same transaction, sealed with the store's key as samples are;
    /// anchored queries still report the deletion. The list keeps a sample for 30 days; only
    /// the store's owner sees it, and ``HKHealthStore/restoreRecentlyDeleted(_:)`` brings
    /// samples back as new ones.
    public struct RecentlyDeletedItem: Sendable {
        /// The item's number in the list, which ``HKHealthStore/restoreRecentlyDeleted(_:)`` takes.
        public let id: Int64
        /// The sample as it was when deleted: its type, value, dates, source, device, metadata
        /// and old UUID (a correlation with its members).
        public let sample: HKSample
        /// When it was deleted.
        public let deletedAt: Date
        /// When the list forgets it: 30 days after `deletedAt`.
        public var expiresAt: Date { deletedAt.addingTimeInterval(HealthDatabase.recentlyDeletedRetention) }
    }

    /// The owner's "Recently deleted" list, newest deletion first (OpenHealthKit extension, not
    /// HealthKit API). Items deleted more than 30 days ago (by the store's clock) are not listed.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner: apps never
    ///   see this list.
    public func recentlyDeletedItems() async throws -> [RecentlyDeletedItem] {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may see recently deleted samples")
        }
        return try await engine.databaseAsync().recentlyDeleted(ids: nil, forRestore: false).map {
            RecentlyDeletedItem(id: $0.id, sample: $0.sample, deletedAt: $0.deletedAt)
        }
    }

    /// Restores items of the "Recently deleted" list as new samples (OpenHealthKit extension,
    /// not HealthKit API), in one transaction: each gets a new UUID and keeps its value, dates,
    /// source, device and metadata; a correlation comes back with its members, a workout route
    /// with its locations. Links to workouts come back too, to the workout restored in the same
    /// call or still stored. Restored items leave the list; anchored queries report the new
    /// samples as added.
    /// - Parameter ids: the items' ``RecentlyDeletedItem/id``s.
    /// - Returns: the new samples' UUIDs, in the order of `ids` (repeated ids once).
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner;
    ///   `errorInvalidArgument` when an item is not in the list (nothing is restored then).
    @discardableResult
    public func restoreRecentlyDeleted(_ ids: [Int64]) async throws -> [UUID] {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may restore recently deleted samples")
        }
        var seen = Set<Int64>()
        let unique = ids.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return [] }
        let database = try await engine.databaseAsync()
        let entries = try await database.recentlyDeleted(ids: unique, forRestore: true)
        var preparers: [String: SamplePreparer] = [:]
        var prepared: [PreparedSample] = []
        var restored: [UUID: UUID] = [:]
        var kinds: [(id: Int64, kind: SampleKind, links: [UUID])] = []
        for entry in entries {
            let bundle = entry.revision.bundleIdentifier
            let preparer = preparers[bundle] ?? SamplePreparer(cipher: database.cipher, bundleIdentifier: bundle)
            preparers[bundle] = preparer
            var sample: PreparedSample
            if let copy = entry.copy {
                sample = try preparer.prepare(copy)
            } else {
                guard let route = entry.sample as? HKWorkoutRoute, let locations = entry.locations else {
                    throw HealthStoreError(.corruptDatabase, "a recently deleted sample cannot be restored")
                }
                // Linked to its workout in `finishRestore`, as other samples are.
                let copy = HKWorkoutRoute(locations: locations, link: .uuid(UUID(), requiredSource: nil), device: route.device,
                                          metadata: route.metadata)
                sample = try preparer.prepare(copy)
                sample.workoutLink = nil
            }
            sample.revision = entry.revision
            restored[entry.sample.uuid] = sample.uuid
            kinds.append((entry.id, sample.kind, entry.links))
            prepared.append(sample)
        }
        let oldUUIDs = entries.map(\.sample.uuid)
        let links = kinds
        let map = restored
        let changes = try await database.insert(prepared, revision: engine.revision) { db in
            try HealthDatabase.finishRestore(db, entries: links, oldUUIDs: oldUUIDs, restored: map)
        }
        notify(changes)
        return prepared.map(\.uuid)
    }
}
