import Foundation

/// A workout (HealthKit's `HKWorkout`): an activity type, a time span and its totals.
///
/// Samples recorded during the workout are associated with
/// `HKHealthStore.add(_:to:withCompletion:)` and found again with
/// `HKQuery.predicateForObjects(from: workout)`.
public final class HKWorkout: HKSample, @unchecked Sendable {
    /// The kind of activity.
    public let workoutActivityType: HKWorkoutActivityType
    /// The active duration in seconds: the one given, or else from start to end less the time
    /// between pause and resume events.
    public let duration: TimeInterval
    /// Total active energy burned.
    public let totalEnergyBurned: HKQuantity?
    /// Total distance.
    public let totalDistance: HKQuantity?
    /// Total swimming strokes.
    public let totalSwimmingStrokeCount: HKQuantity?
    /// Total flights climbed.
    public let totalFlightsClimbed: HKQuantity?
    /// Pauses, laps and segments.
    public let workoutEvents: [HKWorkoutEvent]?

    /// The workout's type.
    public var workoutType: HKWorkoutType { HKWorkoutType() }

    /// The activities saved with the workout (by `HKWorkoutBuilder` or the Apple Health import).
    var storedActivities: [HKWorkoutActivity] = []
    /// The statistics saved with the workout, from the quantity samples added to its builder.
    var storedStatistics: [HKQuantityType: HKStatistics] = [:]

    /// The workout's activities, as HealthKit's `workoutActivities`: those it was built with
    /// (the swim, bike and run of a multisport workout), in time order, or else the one activity
    /// HealthKit assigns every workout, matching its activity type, dates, events and statistics.
    public var workoutActivities: [HKWorkoutActivity] {
        if !storedActivities.isEmpty { return storedActivities }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutActivityType
        // Derived from the workout's UUID, so it is the same at every read.
        var bytes = uuid.uuid
        bytes.15 ^= 0xA5
        return [HKWorkoutActivity(uuid: UUID(uuid: bytes), configuration: configuration, start: startDate, end: endDate,
                                  duration: duration, metadata: nil, events: workoutEvents ?? [], statistics: storedStatistics)]
    }

    /// Every statistic of the workout, one per quantity type of its samples, as HealthKit's `allStatistics`.
    public var allStatistics: [HKQuantityType: HKStatistics] { storedStatistics }

    /// The workout's statistics for `quantityType`, as HealthKit's `statistics(for:)`.
    /// - Parameter quantityType: The type of the quantity samples summarised.
    /// - Returns: nil when the workout has no samples of that type.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        storedStatistics[quantityType]
    }

    /// Creates a workout with every detail; the other initializers call this one.
    public init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
                totalSwimmingStrokeCount: HKQuantity? = nil, totalFlightsClimbed: HKQuantity? = nil,
                duration: TimeInterval? = nil, device: HKDevice?, metadata: [String: Any]?) {
        self.workoutActivityType = activityType
        // HealthKit's rule: without a duration, the time from start to end less paused intervals.
        self.duration = duration ?? WorkoutElapsedTime.elapsed(from: startDate, to: endDate, events: workoutEvents ?? [])
        self.totalEnergyBurned = totalEnergyBurned
        self.totalDistance = totalDistance
        self.totalSwimmingStrokeCount = totalSwimmingStrokeCount
        self.totalFlightsClimbed = totalFlightsClimbed
        self.workoutEvents = workoutEvents
        super.init(sampleType: HKWorkoutType(), startDate: startDate, endDate: endDate, device: device, metadata: metadata)
    }

    /// Creates a workout, as HealthKit's `init(activityType:start:end:)`.
    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil,
                  totalEnergyBurned: nil, totalDistance: nil, device: nil, metadata: nil)
    }

    /// Creates a workout, as HealthKit's `init(activityType:start:end:workoutEvents:totalEnergyBurned:totalDistance:metadata:)`.
    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                            workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
                            metadata: [String: Any]?) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: workoutEvents,
                  totalEnergyBurned: totalEnergyBurned, totalDistance: totalDistance, device: nil, metadata: metadata)
    }

    /// Creates a workout, as HealthKit's `init(activityType:start:end:duration:totalEnergyBurned:totalDistance:metadata:)`.
    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                            duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
                            metadata: [String: Any]?) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil,
                  totalEnergyBurned: totalEnergyBurned, totalDistance: totalDistance, duration: duration,
                  device: nil, metadata: metadata)
    }

    /// Creates a workout, as HealthKit's `init(activityType:start:end:duration:totalEnergyBurned:totalDistance:device:metadata:)`.
    public convenience init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                            duration: TimeInterval, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
                            device: HKDevice?, metadata: [String: Any]?) {
        self.init(activityType: activityType, start: startDate, end: endDate, workoutEvents: nil,
                  totalEnergyBurned: totalEnergyBurned, totalDistance: totalDistance, duration: duration,
                  device: device, metadata: metadata)
    }

    init(activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval,
         totals: WorkoutTotals, events: [HKWorkoutEvent]?, uuid: UUID, sourceRevision: HKSourceRevision,
         device: HKDevice?, metadata: [String: Any]?) {
        self.workoutActivityType = activityType
        self.duration = duration
        self.totalEnergyBurned = totals.energyBurned
        self.totalDistance = totals.distance
        self.totalSwimmingStrokeCount = totals.swimmingStrokeCount
        self.totalFlightsClimbed = totals.flightsClimbed
        self.workoutEvents = events
        super.init(sampleType: HKWorkoutType(), startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }

    var totals: WorkoutTotals {
        WorkoutTotals(energyBurned: totalEnergyBurned, distance: totalDistance,
                      swimmingStrokeCount: totalSwimmingStrokeCount, flightsClimbed: totalFlightsClimbed)
    }
}

/// The totals a workout carries, grouped for storage.
struct WorkoutTotals {
    var energyBurned: HKQuantity?
    var distance: HKQuantity?
    var swimmingStrokeCount: HKQuantity?
    var flightsClimbed: HKQuantity?
}
