import Foundation

/// The access point for all health data (HealthKit's `HKHealthStore`).
///
/// `HKHealthStore()` opens the per-user default store (see ``Configuration``), encrypted at
/// rest, with per-type authorization as in HealthKit. Every method is safe to call from any
/// task or thread. Completion handlers run on a background task.
public final class HKHealthStore: NSObject, @unchecked Sendable {
    let engine: StoreEngine

    /// Opens the default store, as `HKHealthStore()` does in HealthKit. The database is opened
    /// on first use; errors (a wrong key, a corrupt file) are reported by each call.
    public override convenience init() {
        self.init(configuration: .default)
    }

    /// Opens a store with an explicit configuration (OpenHealthKit API).
    public init(configuration: Configuration) {
        engine = StoreEngine(configuration: configuration)
        super.init()
    }

    /// Whether health data is available: always true here.
    public class func isHealthDataAvailable() -> Bool { true }

    /// Opens the database now and reports any problem (wrong key, corrupt or foreign file)
    /// instead of waiting for the first query (OpenHealthKit API).
    public func open() throws {
        _ = try engine.database()
    }

    /// The configuration the store was opened with.
    public var configuration: Configuration { engine.configuration }

    /// The earliest date samples may be saved or read for: no limit here.
    public func earliestPermittedSampleDate() -> Date { .distantPast }

    /// Whether the store supports health records: true.
    public func supportsHealthRecords() -> Bool { true }

    // MARK: Saving

    /// Saves one object.
    public func save(_ object: HKObject) async throws {
        try await save([object])
    }

    /// Saves objects atomically: either all are stored or none.
    public func save(_ objects: [HKObject]) async throws {
        guard !objects.isEmpty else { return }
        let database = try await engine.databaseAsync()
        var types = Set<String>()
        var lastType = ""
        for object in objects {
            guard let sample = object as? HKSample else { throw HKError(.errorInvalidArgument, "only samples can be saved") }
            if sample is HKClinicalRecord || sample is HKVerifiableClinicalRecord {
                // Health records come from providers and cards, through the owner's import.
                guard engine.isOwner else {
                    throw HKError(.errorAuthorizationDenied, "apps cannot save clinical or verifiable records")
                }
            }
            // HealthKit authorizes correlations through the types of their members.
            if let correlation = sample as? HKCorrelation {
                for member in correlation.objects { types.insert(member.sampleType.identifier) }
            } else if sample.sampleType.identifier != lastType {
                // A batch is mostly runs of one type: hash each run's type once.
                lastType = sample.sampleType.identifier
                types.insert(sample.sampleType.identifier)
            }
        }
        for type in types.sorted() { try await engine.checkShare(type) }
        let preparer = SamplePreparer(cipher: database.cipher, bundleIdentifier: engine.bundleIdentifier)
        let prepared = try await preparer.prepare(objects)
        let changes = try await database.insert(prepared, revision: engine.revision)
        notify(changes)
    }

    /// Saves one object and calls `completion` with the outcome.
    public func save(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        save([object], withCompletion: completion)
    }

    /// Saves objects and calls `completion` with the outcome.
    public func save(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await save(objects)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    // MARK: Deleting

    /// Deletes one object the caller saved.
    public func delete(_ object: HKObject) async throws {
        try await delete([object])
    }

    /// Deletes objects the caller saved; deletions leave `HKDeletedObject` tombstones for
    /// anchored queries.
    /// - Throws: `errorAuthorizationDenied` for objects of other sources or of types the caller
    ///   may not share; `errorInvalidArgument` for objects not in the store.
    public func delete(_ objects: [HKObject]) async throws {
        guard !objects.isEmpty else { return }
        let (_, changes) = try await engine.databaseAsync().delete(uuids: objects.map(\.uuid), requireAll: true,
                                                                   permission: deletePermission())
        notify(changes)
    }

    /// Deletes the objects of a type that match a predicate and that the caller saved.
    /// - Returns: how many objects were deleted.
    @discardableResult
    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate) async throws -> Int {
        if let correlation = objectType as? HKCorrelationType {
            // Rows are checked one by one below; here the caller must share at least one member type.
            let decisions = engine.isOwner ? [:] : try await engine.decisionsAsync()
            if !correlation.memberTypes.contains(where: { (try? engine.check(share: $0, in: decisions)) != nil }) {
                for type in correlation.memberTypes.sorted() { try engine.check(share: type, in: decisions) }
            }
        } else {
            try await engine.checkShare(objectType.identifier)
        }
        let database = try await engine.databaseAsync()
        let scope: ReadScope = engine.isOwner ? .everything : .sources([engine.bundleIdentifier])
        let node = try HKQueryPredicate.node(from: predicate)
        let matches = try await database.fetchSamples(SampleFetch(types: [objectType.identifier],
                                                                  predicate: SQLPredicate(node, cipher: database.cipher), scope: scope))
        let (count, changes) = try await database.delete(uuids: matches.map(\.uuid), requireAll: false, permission: deletePermission())
        notify(changes)
        return count
    }

    /// Deletes the objects with these UUIDs that the caller may delete, of any type
    /// (OpenHealthKit API, for tools that know only UUIDs). UUIDs that are not in the store, or
    /// that the caller may not see, are ignored.
    /// - Returns: how many objects were deleted.
    /// - Throws: `errorAuthorizationDenied` when one of them belongs to another source or to a
    ///   type the caller may not share.
    @discardableResult
    public func deleteObjects(withUUIDs uuids: Set<UUID>) async throws -> Int {
        let (count, changes) = try await engine.databaseAsync().delete(uuids: Array(uuids), requireAll: false,
                                                                       permission: deletePermission())
        notify(changes)
        return count
    }

    /// Who may delete a row: the owner anything; an app its own objects of types it may share
    /// (for a correlation, its members' types). Rows the app may not even read are hidden, so
    /// a delete does not reveal that they exist.
    /// The caller's decisions are read once, before the delete's transaction, and the
    /// check runs on them (no database read inside the transaction).
    private func deletePermission() async throws -> @Sendable (_ type: String, _ source: String, _ memberTypes: [String])
        -> HealthDatabase.DeletePermission {
        let engine = engine
        let decisions = engine.isOwner ? [:] : try await engine.decisionsAsync()
        return { type, source, memberTypes in
            if engine.isOwner { return .allowed }
            let own = source == engine.bundleIdentifier
            let typesToShare = memberTypes.isEmpty ? [type] : memberTypes
            let visible = own || (memberTypes.isEmpty ? engine.canSee(type: type, source: source, in: decisions)
                                                      : memberTypes.allSatisfy { engine.canSee(type: $0, source: source, in: decisions) })
            guard visible else { return .hidden }
            guard own, typesToShare.allSatisfy({ (try? engine.check(share: $0, in: decisions)) != nil }) else { return .denied }
            return .allowed
        }
    }

    /// Deletes one object and calls `completion`.
    public func delete(_ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        delete([object], withCompletion: completion)
    }

    /// Deletes objects and calls `completion`.
    public func delete(_ objects: [HKObject], withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await delete(objects)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Deletes matching objects and calls `completion` with the count.
    public func deleteObjects(of objectType: HKObjectType, predicate: NSPredicate,
                              withCompletion completion: @escaping @Sendable (Bool, Int, (any Error)?) -> Void) {
        let predicate = UncheckedBox(predicate)
        Task {
            do {
                let count = try await deleteObjects(of: objectType, predicate: predicate.value)
                completion(true, count, nil)
            } catch {
                completion(false, 0, error)
            }
        }
    }

    // MARK: Workouts

    /// Associates saved samples with a saved workout.
    public func add(_ samples: [HKSample], to workout: HKWorkout) async throws {
        try await engine.checkShare(HKWorkoutTypeIdentifier)
        let engine = engine
        let decisions = engine.isOwner ? [:] : try await engine.decisionsAsync()
        let changes = try await engine.databaseAsync().associate(sampleUUIDs: samples.map(\.uuid), workoutUUID: workout.uuid,
                                                                 requester: engine.bundleIdentifier, mayModifyAny: engine.isOwner) { type, source in
            engine.isOwner || source == engine.bundleIdentifier || engine.canSee(type: type, source: source, in: decisions)
        }
        notify(changes)
    }

    /// Associates saved samples with a saved workout and calls `completion`.
    public func add(_ samples: [HKSample], to workout: HKWorkout, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        Task {
            do {
                try await add(samples, to: workout)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    // MARK: Queries

    /// Runs a query. Results arrive on the query's handlers; long-running queries keep
    /// delivering until `stop(_:)`.
    public func execute(_ query: HKQuery) {
        query.lifecycle.beginRun()
        Task {
            await query.start(in: self)
            query.lifecycle.endRun()
        }
    }

    /// Stops a long-running query; its handlers are not called afterwards.
    public func stop(_ query: HKQuery) {
        query.lifecycle.stop()
        engine.unregister(query)
    }

    /// Tells live queries about a committed change; a bulk write's own save not yet committed is told once it is
    /// (`HKHealthStore.withBulkWrite`).
    func notify(_ changes: StoreChangeSet) {
        guard !changes.isEmpty else { return }
        if HealthDatabase.bulkWriteOwner != nil, let database = try? engine.database(), database.deferUntilCommit(changes) { return }
        for query in engine.liveQueries { query.enqueue(changes) }
    }

    // MARK: Background delivery (accepted for source compatibility; delivery is in-process)

    /// Accepted for compatibility: observer queries already fire in-process on every change.
    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency,
                                         withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        completion(true, nil)
    }

    /// Accepted for compatibility.
    public func enableBackgroundDelivery(for type: HKObjectType, frequency: HKUpdateFrequency) async throws {}

    /// Accepted for compatibility.
    public func disableBackgroundDelivery(for type: HKObjectType, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        completion(true, nil)
    }

    /// Accepted for compatibility.
    public func disableAllBackgroundDelivery(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        completion(true, nil)
    }
}

/// How often background delivery may wake an app (HealthKit's `HKUpdateFrequency`).
public enum HKUpdateFrequency: Int, Sendable {
    case immediate = 1
    case hourly = 2
    case daily = 3
    case weekly = 4
}

/// Carries a non-Sendable Foundation value (an NSPredicate) into a task that only reads it.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
