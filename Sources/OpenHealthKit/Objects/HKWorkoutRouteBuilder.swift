import Foundation

/// Builds a workout route from locations given while the workout runs, then saves it and
/// associates it with its workout (HealthKit's `HKWorkoutRouteBuilder`).
///
/// Locations may arrive in any order; the route holds them in time order and spans the first
/// to the last. Saving needs share permission for `HKSeriesType.workoutRoute()`; an app may add
/// a route only to a workout it saved. After ``finishRoute(with:metadata:)`` or ``discard()``
/// the builder refuses more data.
public final class HKWorkoutRouteBuilder: HKSeriesBuilder, @unchecked Sendable {
    private let healthStore: HKHealthStore
    private let device: HKDevice?
    private let lock = NSLock()
    private var locations: [CLLocation] = []
    private var metadata: [String: Any] = [:]
    private var closed = false

    /// Creates a builder that saves to `healthStore`, as HealthKit's `init(healthStore:device:)`.
    public init(healthStore: HKHealthStore, device: HKDevice?) {
        self.healthStore = healthStore
        self.device = device
        super.init()
    }

    /// Adds locations to the route.
    /// - Throws: `errorInvalidArgument` for an empty array, a location off the Earth or with a
    ///   value that is not finite, or a builder already finished or discarded.
    public func insertRouteData(_ routeData: [CLLocation]) async throws {
        try RouteBlock.validate(routeData)
        try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the route builder was finished or discarded") }
            locations.append(contentsOf: routeData)
        }
    }

    /// Adds locations to the route and calls `completion`.
    public func insertRouteData(_ routeData: [CLLocation], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let routeData = UncheckedBox(routeData)
        Task {
            do {
                try await insertRouteData(routeData.value)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Adds metadata to the route; a key given again replaces the earlier value.
    public func addMetadata(_ metadata: [String: Any]) async throws {
        _ = try MetadataCodec.values(metadata)
        try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the route builder was finished or discarded") }
            self.metadata.merge(metadata) { _, new in new }
        }
    }

    /// Adds metadata to the route and calls `completion`.
    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let metadata = UncheckedBox(metadata)
        Task {
            do {
                try await addMetadata(metadata.value)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }

    /// Saves the route and associates it with `workout`, which must be saved already, in one
    /// transaction, as HealthKit's `finishRoute(with:metadata:)`.
    /// - Returns: the saved route.
    /// - Throws: `errorInvalidArgument` when no location was given, the workout is not saved or
    ///   the builder was finished or discarded; `errorAuthorizationDenied` or
    ///   `errorAuthorizationNotDetermined` without share permission for routes, or for a
    ///   workout of another app. A failed save leaves the builder open, so it can be retried.
    public func finishRoute(with workout: HKWorkout, metadata: [String: Any]?) async throws -> HKWorkoutRoute {
        let (points, merged) = try lock.withLock {
            guard !closed else { throw HKError(.errorInvalidArgument, "the route builder was finished or discarded") }
            closed = true
            return (locations, self.metadata.merging(metadata ?? [:]) { _, new in new })
        }
        do {
            guard !points.isEmpty else { throw HKError(.errorInvalidArgument, "a workout route needs at least one location") }
            let engine = healthStore.engine
            let route = HKWorkoutRoute(locations: points.sorted { $0.timestamp < $1.timestamp },
                                       link: .uuid(workout.uuid, requiredSource: engine.isOwner ? nil : engine.bundleIdentifier),
                                       device: device, metadata: merged.isEmpty ? nil : merged)
            try await healthStore.save(route)
            lock.withLock { locations = [] }
            return HKWorkoutRoute(count: route.count, start: route.startDate, end: route.endDate, uuid: route.uuid,
                                  sourceRevision: engine.revision.revision, device: device, metadata: route.metadata)
        } catch {
            lock.withLock { closed = false }
            throw error
        }
    }

    /// Saves the route, associates it with `workout` and calls `completion` with it.
    public func finishRoute(with workout: HKWorkout, metadata: [String: Any]?,
                            completion: @escaping @Sendable (HKWorkoutRoute?, (any Error)?) -> Void) {
        let metadata = UncheckedBox(metadata)
        Task {
            do {
                completion(try await finishRoute(with: workout, metadata: metadata.value), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// Drops the locations and metadata given so far; later calls fail.
    public override func discard() {
        lock.withLock {
            closed = true
            locations = []
            metadata = [:]
        }
    }
}
