import Foundation
import GRDB
import Synchronization

/// The key path of a workout effort relationship in predicates (HealthKit's
/// `HKPredicateKeyPathWorkoutEffortRelationship`).
public let HKPredicateKeyPathWorkoutEffortRelationship = "relationship"

/// Which effort samples a workout effort relationship query returns (HealthKit's
/// `HKWorkoutEffortRelationshipQueryOptions`).
public enum HKWorkoutEffortRelationshipQueryOptions: Int, Sendable {
    /// Every effort sample related to each workout.
    case `default` = 0
    /// Only the most relevant effort sample of each workout: the person's own rating
    /// (`workoutEffortScore`) before the estimate (`estimatedWorkoutEffortScore`), and of those
    /// the one related last.
    case mostRelevant = 1
}

/// A workout and the effort samples related to it or to one of its activities (HealthKit's
/// `HKWorkoutEffortRelationship`, iOS 18).
///
/// Relate an effort sample with `HKHealthStore.relateWorkoutEffortSample(_:with:activity:completion:)`
/// and read the relationships with ``HKWorkoutEffortRelationshipQuery`` or
/// ``HKWorkoutEffortRelationshipQueryDescriptor``.
public final class HKWorkoutEffortRelationship: NSObject, NSCopying, @unchecked Sendable {
    /// The workout.
    public let workout: HKWorkout
    /// The activity of the workout the samples are related to, or nil for the whole workout.
    public let activity: HKWorkoutActivity?
    /// The related effort samples the caller may read.
    public let samples: [HKSample]?

    init(workout: HKWorkout, activity: HKWorkoutActivity?, samples: [HKSample]?) {
        self.workout = workout
        self.activity = activity
        self.samples = samples
    }

    /// Returns the relationship itself: it is immutable.
    /// - Parameter zone: Ignored.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutEffortRelationship else { return false }
        return other.workout.uuid == workout.uuid && other.activity?.uuid == activity?.uuid
            && (other.samples ?? []).map(\.uuid) == (samples ?? []).map(\.uuid)
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(workout.uuid)
        hasher.combine(activity?.uuid)
        return hasher.finalize()
    }

    /// The types of sample that can be related to a workout's effort.
    static let effortTypes: Set<String> = [
        HKQuantityTypeIdentifier.workoutEffortScore.rawValue, HKQuantityTypeIdentifier.estimatedWorkoutEffortScore.rawValue,
    ]
}

/// Reads workout effort relationships (HealthKit's `HKWorkoutEffortRelationshipQuery`, iOS 18).
///
/// The predicate selects workouts (any workout predicate); the anchor limits the results to
/// relationships made after it. Relationships removed with
/// `unrelateWorkoutEffortSample(_:from:activity:completion:)` are no longer returned.
public final class HKWorkoutEffortRelationshipQuery: HKQuery, @unchecked Sendable {
    private let anchor: HKQueryAnchor?
    private let options: HKWorkoutEffortRelationshipQueryOptions
    private let resultsHandler: @Sendable (HKWorkoutEffortRelationshipQuery, [HKWorkoutEffortRelationship]?, HKQueryAnchor?, (any Error)?) -> Void

    /// Creates a query, as HealthKit's `init(predicate:anchor:options:resultsHandler:)`.
    /// - Parameters:
    ///   - predicate: Selects the workouts; nil for all.
    ///   - anchor: Returns only the relationships made after this anchor; nil for all.
    ///   - options: All related samples, or only the most relevant one of each workout.
    ///   - resultsHandler: Called once with the relationships and the anchor to continue from, or an error.
    public init(predicate: NSPredicate?, anchor: HKQueryAnchor?, options: HKWorkoutEffortRelationshipQueryOptions,
                resultsHandler: @escaping @Sendable (HKWorkoutEffortRelationshipQuery, [HKWorkoutEffortRelationship]?, HKQueryAnchor?,
                                                     (any Error)?) -> Void) {
        self.anchor = anchor
        self.options = options
        self.resultsHandler = resultsHandler
        super.init(objectType: HKObjectType.workoutType(), predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        do {
            let (relationships, anchor) = try await WorkoutEffortRead.run(store: store, predicate: predicate, anchor: anchor, options: options)
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, relationships, anchor, nil)
        } catch {
            guard !lifecycle.isStopped else { return }
            resultsHandler(self, nil, nil, error)
        }
    }
}

/// The async form of ``HKWorkoutEffortRelationshipQuery`` (HealthKit's
/// `HKWorkoutEffortRelationshipQueryDescriptor`, iOS 18).
public struct HKWorkoutEffortRelationshipQueryDescriptor: Sendable {
    /// What one read returns (HealthKit's `HKWorkoutEffortRelationshipQueryDescriptor.Result`).
    public struct Result: Sendable {
        /// The relationships made since the anchor.
        public let relationships: [HKWorkoutEffortRelationship]
        /// The anchor to read later relationships from.
        public let newAnchor: HKQueryAnchor
    }

    /// Selects the workouts; nil for all.
    public var predicate: NSPredicate? {
        get { predicateBox.value }
        set { predicateBox = UncheckedPredicate(newValue) }
    }
    private var predicateBox: UncheckedPredicate
    /// Returns only the relationships made after this anchor; nil for all.
    public var anchor: HKQueryAnchor?
    /// All related samples, or only the most relevant one of each workout.
    public var option: HKWorkoutEffortRelationshipQueryOptions

    /// Creates a descriptor, as HealthKit's `init(predicate:anchor:option:)`.
    /// - Parameters:
    ///   - predicate: Selects the workouts; nil for all.
    ///   - anchor: Returns only the relationships made after this anchor; nil for all.
    ///   - option: All related samples, or only the most relevant one of each workout.
    public init(predicate: NSPredicate?, anchor: HKQueryAnchor?, option: HKWorkoutEffortRelationshipQueryOptions) {
        self.predicateBox = UncheckedPredicate(predicate)
        self.anchor = anchor
        self.option = option
    }

    /// Reads the relationships made since ``anchor``.
    /// - Parameter healthStore: The store to read.
    /// - Returns: The relationships and the anchor to continue from.
    /// - Throws: The store's error (an anchor of another store, a denied read).
    public func result(for healthStore: HKHealthStore) async throws -> Result {
        let (relationships, anchor) = try await WorkoutEffortRead.run(store: healthStore, predicate: predicate, anchor: anchor, options: option)
        return Result(relationships: relationships, newAnchor: anchor)
    }

    /// The sequence ``results(for:)`` returns (HealthKit's
    /// `HKWorkoutEffortRelationshipQueryDescriptor.Results`): one ``Result`` at a time.
    public typealias Results = QueryDescriptorResults<Result>

    /// The relationships made since ``anchor``, then those made later, each with the
    /// anchor to continue from, until the consumer stops iterating (or its task is cancelled).
    /// - Parameter healthStore: The store to read.
    /// - Returns: The sequence of results; a read that fails ends it with the error.
    public func results(for healthStore: HKHealthStore) -> Results {
        let predicate = UncheckedPredicate(predicate)
        let (anchor, option) = (anchor, option)
        return Results(stream: AsyncThrowingStream { continuation in
            let query = WorkoutEffortUpdatesQuery(predicate: predicate.value, anchor: anchor, options: option) { result in
                switch result {
                case .success(let delivered): continuation.yield(delivered)
                case .failure(let error): continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in healthStore.stop(query) }
            healthStore.execute(query)
        })
    }
}

/// The long-running query behind ``HKWorkoutEffortRelationshipQueryDescriptor/results(for:)``:
/// delivers the relationships since the anchor, then, after each change to workouts or their
/// relationships, what changed since the last delivery (an update that finds nothing new is
/// not delivered).
final class WorkoutEffortUpdatesQuery: HKQuery, @unchecked Sendable {
    private let anchor: Mutex<HKQueryAnchor?>
    private let options: HKWorkoutEffortRelationshipQueryOptions
    private let deliver: @Sendable (Result<HKWorkoutEffortRelationshipQueryDescriptor.Result, any Error>) -> Void

    init(predicate: NSPredicate?, anchor: HKQueryAnchor?, options: HKWorkoutEffortRelationshipQueryOptions,
         deliver: @escaping @Sendable (Result<HKWorkoutEffortRelationshipQueryDescriptor.Result, any Error>) -> Void) {
        self.anchor = Mutex(anchor)
        self.options = options
        self.deliver = deliver
        super.init(objectType: HKObjectType.workoutType(), predicate: predicate)
    }

    override func start(in store: HKHealthStore) async {
        await listen(to: store) { [self] in
            await read(store, first: true)
        }
    }

    override func storeDidChange(_ changes: StoreChangeSet, in store: HKHealthStore) async {
        guard changes.sourcesByType[HKWorkoutTypeIdentifier] != nil else { return }
        await read(store, first: false)
    }

    /// Reads from the current anchor and delivers what it found (always the first time).
    private func read(_ store: HKHealthStore, first: Bool) async {
        do {
            let from = anchor.withLock { $0 }
            let (relationships, next) = try await WorkoutEffortRead.run(store: store, predicate: predicate, anchor: from, options: options)
            anchor.withLock { $0 = next }
            guard !lifecycle.isStopped, first || !relationships.isEmpty else { return }
            deliver(.success(HKWorkoutEffortRelationshipQueryDescriptor.Result(relationships: relationships, newAnchor: next)))
        } catch {
            guard !lifecycle.isStopped else { return }
            deliver(.failure(error))
        }
    }
}

/// An `NSPredicate` kept in a `Sendable` value: the store's predicates are immutable.
private struct UncheckedPredicate: @unchecked Sendable {
    let value: NSPredicate?
    init(_ value: NSPredicate?) { self.value = value }
}

extension HKQuery {
    /// Matches the effort samples related to a workout (HealthKit's
    /// `predicateForWorkoutEffortSamplesRelated(workout:activity:)`, iOS 18).
    /// - Parameters:
    ///   - workout: The workout.
    ///   - activity: Only the samples related to this activity of the workout; nil for every
    ///     sample related to the workout, to itself or to any of its activities.
    /// - Returns: A predicate for sample queries.
    public class func predicateForWorkoutEffortSamplesRelated(workout: HKWorkout, activity: HKWorkoutActivity?) -> NSPredicate {
        HKQueryPredicate(.workoutEffort(workout: workout.uuid, activity: activity?.uuid))
    }
}

extension HKHealthStore {
    /// Relates a workout effort sample to a workout or one of its activities (HealthKit's
    /// `relateWorkoutEffortSample(_:with:activity:completion:)`, iOS 18).
    ///
    /// The sample must be a saved `workoutEffortScore` or `estimatedWorkoutEffortScore` sample,
    /// the workout a saved workout, and the activity (when given) one of the workout's. Relating
    /// the same sample again moves it to the activity given.
    /// - Parameters:
    ///   - sample: The effort sample.
    ///   - workout: The workout.
    ///   - activity: One of the workout's activities, or nil for the whole workout.
    ///   - completion: Called with true, or false and the error.
    public func relateWorkoutEffortSample(_ sample: HKSample, with workout: HKWorkout, activity: HKWorkoutActivity?,
                                          completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let boxed = UncheckedEffortArguments(sample: sample, workout: workout, activity: activity)
        Task {
            do {
                completion(try await relateWorkoutEffortSample(boxed.sample, with: boxed.workout, activity: boxed.activity), nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Relates a workout effort sample to a workout or one of its activities (the async form
    /// of `relateWorkoutEffortSample(_:with:activity:completion:)`).
    /// - Parameters:
    ///   - sample: The effort sample.
    ///   - workout: The workout.
    ///   - activity: One of the workout's activities, or nil for the whole workout.
    /// - Returns: true once related.
    /// - Throws: `errorInvalidArgument` for a sample of another type, an unsaved sample or
    ///   workout, or an activity of another workout; `errorAuthorizationDenied` when the caller
    ///   may not share the sample's type.
    @discardableResult
    public func relateWorkoutEffortSample(_ sample: HKSample, with workout: HKWorkout, activity: HKWorkoutActivity?) async throws -> Bool {
        let type = sample.sampleType.identifier
        guard HKWorkoutEffortRelationship.effortTypes.contains(type) else {
            throw HKError(.errorInvalidArgument, "only workout effort score samples can be related to a workout's effort")
        }
        if let activity, !workout.workoutActivities.contains(where: { $0.uuid == activity.uuid }) {
            throw HKError(.errorInvalidArgument, "the activity is not one of the workout's")
        }
        try await engine.checkShare(type)
        let changes = try await engine.databaseAsync().relateEffort(sample: sample.uuid, workout: workout.uuid, activity: activity?.uuid)
        notify(changes)
        return true
    }

    /// Removes an effort sample's relationship with a workout (HealthKit's
    /// `unrelateWorkoutEffortSample(_:from:activity:completion:)`, iOS 18). The sample stays saved.
    /// - Parameters:
    ///   - sample: The effort sample.
    ///   - workout: The workout it is related to.
    ///   - activity: The activity it is related to, or nil for the whole workout.
    ///   - completion: Called with true, or false and the error.
    public func unrelateWorkoutEffortSample(_ sample: HKSample, from workout: HKWorkout, activity: HKWorkoutActivity?,
                                            completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let boxed = UncheckedEffortArguments(sample: sample, workout: workout, activity: activity)
        Task {
            do {
                completion(try await unrelateWorkoutEffortSample(boxed.sample, from: boxed.workout, activity: boxed.activity), nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Removes an effort sample's relationship with a workout (the async form of
    /// `unrelateWorkoutEffortSample(_:from:activity:completion:)`).
    /// - Parameters:
    ///   - sample: The effort sample.
    ///   - workout: The workout it is related to.
    ///   - activity: The activity it is related to, or nil for the whole workout.
    /// - Returns: true once the relationship is removed.
    /// - Throws: `errorInvalidArgument` when the sample is not related so; `errorAuthorizationDenied`
    ///   when the caller may not share the sample's type.
    @discardableResult
    public func unrelateWorkoutEffortSample(_ sample: HKSample, from workout: HKWorkout, activity: HKWorkoutActivity?) async throws -> Bool {
        try await engine.checkShare(sample.sampleType.identifier)
        let changes = try await engine.databaseAsync().unrelateEffort(sample: sample.uuid, workout: workout.uuid, activity: activity?.uuid)
        notify(changes)
        return true
    }
}

/// The arguments of a completion-handler call, carried into its task (HealthKit objects are immutable).
private struct UncheckedEffortArguments: @unchecked Sendable {
    let sample: HKSample
    let workout: HKWorkout
    let activity: HKWorkoutActivity?
}

/// One read of workout effort relationships, shared by the query and its descriptor.
enum WorkoutEffortRead {
    static func run(store: HKHealthStore, predicate: NSPredicate?, anchor: HKQueryAnchor?,
                    options: HKWorkoutEffortRelationshipQueryOptions) async throws -> ([HKWorkoutEffortRelationship], HKQueryAnchor) {
        let database = try await store.engine.databaseAsync()
        let after = try anchor?.position(in: database) ?? Int64.min
        let (rows, through) = try await database.effortRelationships(after: after)
        let newAnchor = HKQueryAnchor(storeID: database.storeID, sequence: through)
        guard !rows.isEmpty else { return ([], newAnchor) }
        // The workouts and samples as the caller may read them: authorization and the predicate apply.
        let workoutUUIDs = Set(rows.map(\.workout))
        var workoutPredicate = HKQuery.predicateForObjects(with: workoutUUIDs)
        if let predicate { workoutPredicate = NSCompoundPredicate(andPredicateWithSubpredicates: [predicate, workoutPredicate]) }
        let workouts = try await store.readSamples(type: HKObjectType.workoutType(), predicate: workoutPredicate, order: [], limit: 0)
            .compactMap { $0 as? HKWorkout }
        var samples: [UUID: HKSample] = [:]
        for type in Set(rows.map(\.type)).sorted() {
            guard let quantityType = HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: type)) else { continue }
            let uuids = Set(rows.filter { $0.type == type }.map(\.sample))
            let read = (try? await store.readSamples(type: quantityType, predicate: HKQuery.predicateForObjects(with: uuids),
                                                     order: [], limit: 0)) ?? []
            for sample in read { samples[sample.uuid] = sample }
        }
        let byUUID = Dictionary(workouts.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        // One relationship per workout and activity, in the order they were last related.
        var groups: [(key: EffortGroupKey, rows: [EffortRow])] = []
        var index: [EffortGroupKey: Int] = [:]
        for row in rows {
            let key = EffortGroupKey(workout: row.workout, activity: row.activity)
            if let position = index[key] {
                groups[position].rows.append(row)
            } else {
                index[key] = groups.count
                groups.append((key, [row]))
            }
        }
        var relationships: [HKWorkoutEffortRelationship] = []
        for group in groups {
            guard let workout = byUUID[group.key.workout] else { continue }
            let activity = group.key.activity.flatMap { uuid in workout.workoutActivities.first { $0.uuid == uuid } }
            var related = group.rows.compactMap { samples[$0.sample] }
            if options == .mostRelevant, !related.isEmpty {
                // The person's own rating before an estimate; of those, the one related last.
                let own = related.filter { $0.sampleType.identifier == HKQuantityTypeIdentifier.workoutEffortScore.rawValue }
                related = (own.isEmpty ? related : own).suffix(1)
            }
            relationships.append(HKWorkoutEffortRelationship(workout: workout, activity: activity, samples: related.isEmpty ? nil : related))
        }
        return (relationships, newAnchor)
    }
}

/// A workout, and the activity of it, that samples are related to.
struct EffortGroupKey: Hashable {
    var workout: UUID
    var activity: UUID?
}

/// One stored relationship: the sample, its type, the workout and activity, in the order made.
struct EffortRow: Sendable {
    var anchor: Int64
    var workout: UUID
    var sample: UUID
    var type: String
    var activity: UUID?
}

extension HealthDatabase {
    /// Relates an effort sample to a workout (and activity), replacing an earlier relationship
    /// of the same sample with the same workout; each relationship gets the next change number.
    func relateEffort(sample: UUID, workout: UUID, activity: UUID?) async throws -> StoreChangeSet {
        try await writeAsync { db in
            guard let workoutRow = try Row.fetchOne(db, sql: """
                SELECT s.id, src.bundle_identifier FROM sample s JOIN source src ON src.id = s.source_id
                WHERE s.uuid = ? AND s.kind = ? AND s.parent_id IS NULL
                """, arguments: [workout.databaseBlob, SampleKind.workout.rawValue]) else {
                throw HKError(.errorInvalidArgument, "the workout is not saved in this store")
            }
            let typeColumn = SampleTypeCode.identifier(of: "sample.type")
            guard let sampleRow = try Row.fetchOne(db, sql: "SELECT id, \(typeColumn) FROM sample WHERE uuid = ? AND parent_id IS NULL",
                                                   arguments: [sample.databaseBlob]) else {
                throw HKError(.errorInvalidArgument, "the effort sample is not saved in this store")
            }
            let sequence = try Self.sequence(db) + 1
            try db.execute(sql: """
                INSERT OR REPLACE INTO workout_effort (workout_id, sample_id, activity_uuid, anchor) VALUES (?, ?, ?, ?)
                """, arguments: [workoutRow[0] as Int64, sampleRow[0] as Int64, activity?.databaseBlob, sequence])
            try Self.setSequence(db, sequence)
            var changes = StoreChangeSet()
            changes.insert(type: HKWorkoutTypeIdentifier, source: workoutRow[1])
            return changes
        }
    }

    /// Removes an effort sample's relationship with a workout (and activity).
    /// - Throws: `errorInvalidArgument` when there is no such relationship.
    func unrelateEffort(sample: UUID, workout: UUID, activity: UUID?) async throws -> StoreChangeSet {
        try await writeAsync { db in
            try db.execute(sql: """
                DELETE FROM workout_effort WHERE workout_id = (SELECT id FROM sample WHERE uuid = ? AND kind = ? AND parent_id IS NULL)
                AND sample_id = (SELECT id FROM sample WHERE uuid = ? AND parent_id IS NULL) AND activity_uuid IS ?
                """, arguments: [workout.databaseBlob, SampleKind.workout.rawValue, sample.databaseBlob, activity?.databaseBlob])
            guard db.changesCount > 0 else {
                throw HKError(.errorInvalidArgument, "the sample is not related to this workout and activity")
            }
            var changes = StoreChangeSet()
            changes.insert(type: HKWorkoutTypeIdentifier, source: "")
            return changes
        }
    }

    /// The relationships made after change number `after`, in the order made, and the change
    /// number read through.
    func effortRelationships(after: Int64) async throws -> (rows: [EffortRow], through: Int64) {
        try await readAsync { db in
            let through = try Self.sequence(db)
            let rows = try Row.fetchAll(db, sql: """
                SELECT e.anchor, w.uuid, s.uuid, \(SampleTypeCode.identifier(of: "s.type")), e.activity_uuid FROM workout_effort e
                JOIN sample w ON w.id = e.workout_id JOIN sample s ON s.id = e.sample_id
                WHERE e.anchor > ? AND e.anchor <= ? ORDER BY e.anchor
                """, arguments: [after, through])
            let effortRows: [EffortRow] = rows.compactMap { row in
                guard let workout = UUID(databaseBlob: row[1] as Data), let sample = UUID(databaseBlob: row[2] as Data) else { return nil }
                let activity = (row[4] as Data?).flatMap { UUID(databaseBlob: $0) }
                return EffortRow(anchor: row[0], workout: workout, sample: sample, type: row[3], activity: activity)
            }
            return (effortRows, through)
        }
    }
}
