import Foundation

/// A sample that holds a workout's route (HealthKit's `HKWorkoutRoute`): its ``HKSeriesSample/count``
/// locations are read with ``HKWorkoutRouteQuery``, in batches.
///
/// Routes are made with ``HKWorkoutRouteBuilder``, which saves the route and associates it with
/// its workout; `HKQuery.predicateForObjects(from: workout)` finds a workout's routes. The
/// locations are sealed in the store in blocks, like other values.
public final class HKWorkoutRoute: HKSeriesSample, @unchecked Sendable {
    /// The locations to store, for a route not yet saved (nil for a route read from a store).
    let pendingLocations: [CLLocation]?
    /// The workout a route made by an importer is linked to when it is saved.
    let workoutLink: WorkoutLink?

    /// How a route being saved names its workout.
    enum WorkoutLink: Sendable {
        /// The workout with this UUID (``HKWorkoutRouteBuilder``), saved by `requiredSource`
        /// (a bundle identifier) unless that is nil (the store's owner).
        case uuid(UUID, requiredSource: String?)
        /// The workout with this sync identifier, saved by the source with this bundle identifier (an import).
        case syncIdentifier(String, bundleIdentifier: String)
    }

    init(locations: [CLLocation], link: WorkoutLink, device: HKDevice?, metadata: [String: Any]?) {
        pendingLocations = locations
        workoutLink = link
        let start = locations.first?.timestamp ?? Date(timeIntervalSinceReferenceDate: 0)
        let end = locations.last?.timestamp ?? start
        super.init(type: .workoutRoute(), count: locations.count, start: start, end: max(start, end), device: device, metadata: metadata)
    }

    init(count: Int, start: Date, end: Date, uuid: UUID, sourceRevision: HKSourceRevision, device: HKDevice?, metadata: [String: Any]?) {
        pendingLocations = nil
        workoutLink = nil
        super.init(type: .workoutRoute(), count: count, start: start, end: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }

    /// A route to save with `HKHealthStore.save(_:recordedAs:)` next to (or after) the workout
    /// whose `HKMetadataKeySyncIdentifier` is `workoutSyncIdentifier` and whose source is
    /// `workoutSource`: saving it links it to that workout in the same transaction, and fails
    /// when the workout is not stored (OpenHealthKit API, for importers of other devices'
    /// exports; apps use ``HKWorkoutRouteBuilder``).
    ///
    /// The locations are sorted by timestamp; the route spans the first to the last.
    /// - Throws: `errorInvalidArgument` when there are no locations.
    public static func imported(locations: [CLLocation], workoutSyncIdentifier: String, workoutSource: HKSource, device: HKDevice?,
                                metadata: [String: Any]?) throws -> HKWorkoutRoute {
        guard !locations.isEmpty else { throw HKError(.errorInvalidArgument, "a workout route needs at least one location") }
        return HKWorkoutRoute(locations: locations.sorted { $0.timestamp < $1.timestamp },
                              link: .syncIdentifier(workoutSyncIdentifier, bundleIdentifier: workoutSource.bundleIdentifier),
                              device: device, metadata: metadata)
    }
}
