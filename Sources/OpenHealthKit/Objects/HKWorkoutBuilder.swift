import Foundation

/// Builds a workout step by step and saves it (HealthKit's `HKWorkoutBuilder`).
///
/// Begin collection at the workout's start, add samples, events, metadata and (for a
/// multisport workout) activities as they happen, end collection, then finish: the workout is
/// saved with its duration (pauses excluded, as ``elapsedTime(at:)`` computes it), its totals
/// and statistics from the quantity samples added, its activities, and the samples associated
/// with it. Samples are saved when they are added. After ``finishWorkout()`` or
/// ``discardWorkout()`` the builder refuses more data.
public final class HKWorkoutBuilder: NSObject, @unchecked Sendable {
    private enum State { case new, collecting, ended, finished, discarded }

    private let healthStore: HKHealthStore
    private let lock = NSLock()
    private var state = State.new
    private var start: Date?
    private var end: Date?
    private var addedMetadata: [String: Any] = [:]
    private var events: [HKWorkoutEvent] = []
    private var activities: [HKWorkoutActivity] = []
    private var samples: [HKSample] = []
    private var routeBuilder: HKWorkoutRouteBuilder?
    /// The workout once ``finishWorkout()`` saved it: a retry after a failed association only
    /// associates the samples again, and never saves a second workout.
    private var savedWorkout: HKWorkout?

    /// The device the workout is recorded with.
    public let device: HKDevice?
    /// The workout's configuration (a copy of the one given).
    public let workoutConfiguration: HKWorkoutConfiguration

    /// Creates a builder that saves to `healthStore`, as HealthKit's `init(healthStore:configuration:device:)`.
    /// - Parameters:
    ///   - healthStore: The store the workout and its samples are saved to.
    ///   - configuration: The workout's activity type and location.
    ///   - device: The device recording the workout, or nil.
    public init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        self.healthStore = healthStore
        self.workoutConfiguration = configuration.copy() as? HKWorkoutConfiguration ?? configuration
        self.device = device
        super.init()
    }

    // MARK: State

    /// The workout's start, once collection has begun.
    public var startDate: Date? { lock.withLock { start } }
    /// The workout's end, once collection has ended.
    public var endDate: Date? { lock.withLock { end } }
    /// The metadata the workout will be saved with.
    public var metadata: [String: Any] { lock.withLock { addedMetadata } }
    /// The events added so far, in time order.
    public var workoutEvents: [HKWorkoutEvent] { lock.withLock { events } }
    /// The activities added so far, in time order.
    public var workoutActivities: [HKWorkoutActivity] { lock.withLock { activities } }

    /// The workout's duration at `date`, as HealthKit's `elapsedTime(at:)`: the time from the
    /// start to `date` (or the end, if earlier) less the time between pause and resume events.
    /// A pause event added later for a past moment makes it shorter.
    /// - Parameter date: The moment to compute the duration at.
    /// - Returns: 0 before collection begins.
    public func elapsedTime(at date: Date) -> TimeInterval {
        let (start, end, events) = lock.withLock { (self.start, self.end, self.events) }
        guard let start else { return 0 }
        return WorkoutElapsedTime.elapsed(from: start, to: min(date, end ?? date), events: events)
    }

    /// The statistics of the quantity samples of `quantityType` added so far, as HealthKit's `statistics(for:)`.
    /// - Parameter quantityType: The type of the samples to summarise.
    /// - Returns: nil when no sample of that type was added.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        allStatistics[quantityType]
    }

    /// The statistics of every quantity type added so far, over the workout's interval (to now while collecting).
    public var allStatistics: [HKQuantityType: HKStatistics] {
        let (start, end, samples) = lock.withLock { (self.start, self.end, self.samples) }
        guard let start else { return [:] }
        let stop = max(start, end ?? samples.map(\.endDate).max() ?? start)
        return WorkoutStatisticsCalculator.statistics(of: samples, in: DateInterval(start: start, end: stop))
    }

    /// The builder of a series of `seriesType` for this workout, as HealthKit's `seriesBuilder(for:)`:
    /// one `HKWorkoutRouteBuilder` for `HKSeriesType.workoutRoute()` (finish it with the
    /// finished workout), nil for other types.
    /// - Parameter seriesType: The series type.
    public func seriesBuilder(for seriesType: HKSeriesType) -> HKSeriesBuilder? {
        guard seriesType.identifier == HKWorkoutRouteTypeIdentifier else { return nil }
        return lock.withLock {
            if let routeBuilder { return routeBuilder }
            let builder = HKWorkoutRouteBuilder(healthStore: healthStore, device: device)
            routeBuilder = builder
            return builder
        }
    }

    // MARK: Collecting

    /// Sets the start and begins collecting, as HealthKit's `beginCollection(withStart:completion:)`.
    /// - Parameter startDate: The workout's start.
    /// - Throws: `errorInvalidArgument` when collection has already begun.
    public func beginCollection(at startDate: Date) async throws {
        try lock.withLock {
            guard state == .new else { throw HKError(.errorInvalidArgument, "the workout builder has already begun collecting") }
            guard startDate.timeIntervalSinceReferenceDate.isFinite else { throw HKError(.errorInvalidArgument, "the start date is not valid") }
            start = startDate
            state = .collecting
        }
    }

    /// Sets the start, begins collecting and calls `completion`.
    /// - Parameters:
    ///   - startDate: The workout's start.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func beginCollection(withStart startDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run(completion) { try await self.beginCollection(at: startDate) }
    }

    /// Sets the end and stops collecting, as HealthKit's `endCollection(withEnd:completion:)`.
    /// - Parameter endDate: The workout's end, at or after its start.
    /// - Throws: `errorInvalidArgument` when collection is not running or `endDate` is before the start.
    public func endCollection(at endDate: Date) async throws {
        try lock.withLock {
            guard state == .collecting, let start else { throw HKError(.errorInvalidArgument, "the workout builder is not collecting") }
            guard endDate >= start else { throw HKError(.errorInvalidArgument, "a workout cannot end before it starts") }
            end = endDate
            state = .ended
        }
    }

    /// Sets the end, stops collecting and calls `completion`.
    /// - Parameters:
    ///   - endDate: The workout's end, at or after its start.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func endCollection(withEnd endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run(completion) { try await self.endCollection(at: endDate) }
    }

    /// Saves quantity and category samples and adds them to the workout, as HealthKit's `add(_:completion:)`.
    /// - Parameter samples: The samples recorded during the workout.
    /// - Throws: `errorInvalidArgument` for another kind of sample or a finished builder; the
    ///   errors of `HKHealthStore.save(_:)`.
    public func addSamples(_ samples: [HKSample]) async throws {
        try requireOpen()
        guard samples.allSatisfy({ $0 is HKQuantitySample || $0 is HKCategorySample }) else {
            throw HKError(.errorInvalidArgument, "a workout builder takes quantity and category samples")
        }
        guard !samples.isEmpty else { return }
        try await healthStore.save(samples)
        lock.withLock { self.samples.append(contentsOf: samples) }
    }

    /// Saves samples, adds them to the workout and calls `completion`.
    /// - Parameters:
    ///   - samples: The samples recorded during the workout.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func add(_ samples: [HKSample], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let samples = UncheckedBox(samples)
        run(completion) { try await self.addSamples(samples.value) }
    }

    /// Adds events (pauses, resumes, laps, segments, markers), as HealthKit's `addWorkoutEvents(_:completion:)`.
    /// Each event's metadata is saved with the workout and reads back on its `workoutEvents`.
    /// - Parameter workoutEvents: The events.
    /// - Throws: `errorInvalidArgument` for a finished builder or an event's metadata HealthKit does not accept.
    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
        for event in workoutEvents { _ = try event.metadata.map(MetadataCodec.values) }
        try lock.withLock {
            guard state == .new || state == .collecting || state == .ended else {
                throw HKError(.errorInvalidArgument, "the workout builder was finished or discarded")
            }
            events.append(contentsOf: workoutEvents)
            events.sort { $0.dateInterval.start < $1.dateInterval.start }
        }
    }

    /// Adds events and calls `completion`.
    /// - Parameters:
    ///   - workoutEvents: The events.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let workoutEvents = UncheckedBox(workoutEvents)
        run(completion) { try await self.addWorkoutEvents(workoutEvents.value) }
    }

    /// Adds metadata to the workout; a key given again replaces the earlier value.
    /// - Parameter metadata: The metadata.
    /// - Throws: `errorInvalidArgument` for a value HealthKit does not accept or a finished builder.
    public func addMetadata(_ metadata: [String: Any]) async throws {
        _ = try MetadataCodec.values(metadata)
        try requireOpen()
        lock.withLock { addedMetadata.merge(metadata) { _, new in new } }
    }

    /// Adds metadata and calls `completion`.
    /// - Parameters:
    ///   - metadata: The metadata.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func addMetadata(_ metadata: [String: Any], completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let metadata = UncheckedBox(metadata)
        run(completion) { try await self.addMetadata(metadata.value) }
    }

    // MARK: Activities

    /// Adds an activity (a part of a multisport or interval workout), as HealthKit's `addWorkoutActivity(_:completion:)`.
    /// - Parameter workoutActivity: The activity; in a `.swimBikeRun` workout, a swimming,
    ///   cycling, running or transition activity.
    /// - Throws: `errorInvalidArgument` for an activity added twice, one that starts before the
    ///   workout, an activity type a `.swimBikeRun` workout cannot hold, or a finished builder.
    public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity) async throws {
        _ = try workoutActivity.metadata.map(MetadataCodec.values)
        if workoutConfiguration.activityType == .swimBikeRun {
            let allowed: Set<HKWorkoutActivityType> = [.swimming, .cycling, .running, .transition]
            guard allowed.contains(workoutActivity.workoutConfiguration.activityType) else {
                throw HKError(.errorInvalidArgument, "a swimBikeRun workout's activities are swimming, cycling, running or transition")
            }
        }
        try lock.withLock {
            guard state == .collecting || state == .ended else { throw HKError(.errorInvalidArgument, "the workout builder is not collecting") }
            guard !activities.contains(where: { $0.uuid == workoutActivity.uuid }) else {
                throw HKError(.errorInvalidArgument, "the workout activity was already added")
            }
            if let start, workoutActivity.startDate < start {
                throw HKError(.errorInvalidArgument, "a workout activity cannot start before its workout")
            }
            let copy = workoutActivity.copy() as? HKWorkoutActivity ?? workoutActivity
            activities.append(copy)
            activities.sort { $0.startDate < $1.startDate }
        }
    }

    /// Adds an activity and calls `completion`.
    /// - Parameters:
    ///   - workoutActivity: The activity.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func addWorkoutActivity(_ workoutActivity: HKWorkoutActivity, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run(completion) { try await self.addWorkoutActivity(workoutActivity) }
    }

    /// Sets the end of an activity added before, as HealthKit's `updateActivity(uuid:end:completion:)`.
    /// - Parameters:
    ///   - UUID: The activity's UUID.
    ///   - endDate: Its end, at or after its start.
    /// - Throws: `errorInvalidArgument` for an unknown activity or an end before its start.
    public func updateActivity(uuid UUID: UUID, end endDate: Date) async throws {
        try lock.withLock {
            guard state == .collecting || state == .ended else { throw HKError(.errorInvalidArgument, "the workout builder is not collecting") }
            guard let activity = activities.first(where: { $0.uuid == UUID }) else {
                throw HKError(.errorInvalidArgument, "no workout activity with that UUID was added")
            }
            guard endDate >= activity.startDate else { throw HKError(.errorInvalidArgument, "a workout activity cannot end before it starts") }
            activity.setEnd(endDate)
        }
    }

    /// Sets the end of an activity and calls `completion`.
    /// - Parameters:
    ///   - UUID: The activity's UUID.
    ///   - endDate: Its end.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func updateActivity(uuid UUID: UUID, end endDate: Date, completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        run(completion) { try await self.updateActivity(uuid: UUID, end: endDate) }
    }

    /// Adds metadata to an activity added before, as HealthKit's `updateActivity(uuid:adding:completion:)`.
    /// - Parameters:
    ///   - UUID: The activity's UUID.
    ///   - metadata: The metadata to add; a key given again replaces the earlier value.
    /// - Throws: `errorInvalidArgument` for an unknown activity or a value HealthKit does not accept.
    public func updateActivity(uuid UUID: UUID, adding metadata: [String: Any]) async throws {
        _ = try MetadataCodec.values(metadata)
        try lock.withLock {
            guard state == .collecting || state == .ended else { throw HKError(.errorInvalidArgument, "the workout builder is not collecting") }
            guard let activity = activities.first(where: { $0.uuid == UUID }) else {
                throw HKError(.errorInvalidArgument, "no workout activity with that UUID was added")
            }
            activity.addMetadata(metadata)
        }
    }

    /// Adds metadata to an activity and calls `completion`.
    /// - Parameters:
    ///   - UUID: The activity's UUID.
    ///   - metadata: The metadata to add.
    ///   - completion: Called with whether it succeeded and the error if not.
    public func updateActivity(uuid UUID: UUID, adding metadata: [String: Any],
                               completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let metadata = UncheckedBox(metadata)
        run(completion) { try await self.updateActivity(uuid: UUID, adding: metadata.value) }
    }

    // MARK: Finishing

    /// Saves the workout, as HealthKit's `finishWorkout(completion:)`, and associates the samples added with it.
    /// - Returns: the saved workout.
    /// - Throws: `errorInvalidArgument` before `endCollection(at:)` or after finishing or
    ///   discarding; the errors of `HKHealthStore.save(_:)` (a failed save leaves the builder
    ///   ended, so it can be retried).
    public func finishWorkout() async throws -> HKWorkout? {
        let (snapshot, saved) = try lock.withLock { () throws -> (BuilderSnapshot, HKWorkout?) in
            guard state == .ended, let start = self.start, let end = self.end else {
                let finished = state == .finished || state == .discarded
                throw HKError(.errorInvalidArgument, finished ? "the workout builder was finished or discarded"
                                                              : "end collection before finishing the workout")
            }
            state = .finished
            return (BuilderSnapshot(start: start, end: end, events: self.events, activities: self.activities, samples: self.samples,
                                    metadata: addedMetadata), savedWorkout)
        }
        let (start, end, events, activities, samples, metadata) = (snapshot.start, snapshot.end, snapshot.events,
                                                                   snapshot.activities, snapshot.samples, snapshot.metadata)
        do {
            let workout: HKWorkout
            if let saved {
                workout = saved
            } else {
                workout = makeWorkout(start: start, end: end, events: events, activities: activities, samples: samples, metadata: metadata)
                try await healthStore.save(workout)
                lock.withLock { savedWorkout = workout }
            }
            if !samples.isEmpty { try await healthStore.add(samples, to: workout) }
            return workout
        } catch {
            lock.withLock { state = .ended }
            throw error
        }
    }

    /// Saves the workout and calls `completion` with it.
    /// - Parameter completion: Called with the workout, or nil and the error.
    public func finishWorkout(completion: @escaping @Sendable (HKWorkout?, (any Error)?) -> Void) {
        Task {
            do {
                completion(try await finishWorkout(), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// Stops collecting and drops the workout without saving it, as HealthKit's
    /// `discardWorkout()`. Samples already added stay saved, as in HealthKit.
    public func discardWorkout() {
        lock.withLock {
            state = .discarded
            activities = []
            events = []
            addedMetadata = [:]
        }
    }

    // MARK: Internals

    private struct BuilderSnapshot {
        var start: Date
        var end: Date
        var events: [HKWorkoutEvent]
        var activities: [HKWorkoutActivity]
        var samples: [HKSample]
        var metadata: [String: Any]
    }

    private func makeWorkout(start: Date, end: Date, events: [HKWorkoutEvent], activities: [HKWorkoutActivity],
                             samples: [HKSample], metadata: [String: Any]) -> HKWorkout {
        let interval = DateInterval(start: start, end: end)
        let statistics = WorkoutStatisticsCalculator.statistics(of: samples, in: interval)
        func sum(_ identifiers: [HKQuantityTypeIdentifier]) -> HKQuantity? {
            identifiers.lazy.compactMap { statistics[HKQuantityType($0)]?.sumQuantity() }.first
        }
        var metadata = metadata
        let configuration = workoutConfiguration
        if metadata[HKMetadataKeyIndoorWorkout] == nil, configuration.locationType != .unknown {
            metadata[HKMetadataKeyIndoorWorkout] = configuration.locationType == .indoor
        }
        if configuration.activityType == .swimming {
            if metadata[HKMetadataKeySwimmingLocationType] == nil, configuration.swimmingLocationType != .unknown {
                metadata[HKMetadataKeySwimmingLocationType] = configuration.swimmingLocationType.rawValue
            }
            if metadata[HKMetadataKeyLapLength] == nil, let lap = configuration.lapLength { metadata[HKMetadataKeyLapLength] = lap }
        }
        let workout = HKWorkout(activityType: configuration.activityType, start: start, end: end,
                                workoutEvents: events.isEmpty ? nil : events,
                                totalEnergyBurned: sum([.activeEnergyBurned]),
                                totalDistance: sum([.distanceWalkingRunning, .distanceCycling, .distanceSwimming, .distanceWheelchair,
                                                    .distanceDownhillSnowSports]),
                                totalSwimmingStrokeCount: sum([.swimmingStrokeCount]), totalFlightsClimbed: sum([.flightsClimbed]),
                                duration: WorkoutElapsedTime.elapsed(from: start, to: end, events: events),
                                device: device, metadata: metadata.isEmpty ? nil : metadata)
        workout.storedStatistics = statistics
        workout.storedActivities = activities.map { activity in
            let activityEnd = max(activity.startDate, min(activity.endDate ?? end, end))
            let span = DateInterval(start: activity.startDate, end: activityEnd)
            let copy = HKWorkoutActivity(uuid: activity.uuid, configuration: activity.workoutConfiguration, start: activity.startDate,
                                         end: activityEnd, duration: nil, metadata: activity.metadata,
                                         events: events.filter { span.contains($0.dateInterval.start) },
                                         statistics: WorkoutStatisticsCalculator.statistics(of: samples, in: span))
            copy.freezeDuration()
            return copy
        }
        return workout
    }

    private func requireOpen() throws {
        try lock.withLock {
            guard state == .collecting || state == .ended else {
                throw HKError(.errorInvalidArgument, state == .new ? "begin collection before adding data to the workout builder"
                                                                   : "the workout builder was finished or discarded")
            }
        }
    }

    private func run(_ completion: @escaping @Sendable (Bool, (any Error)?) -> Void,
                     _ body: @escaping @Sendable () async throws -> Void) {
        Task {
            do {
                try await body()
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
    }
}
