import Foundation

/// A workout (HealthKit's `HKWorkout`): an activity type, a time span and its totals.
///
/// Samples recorded during the workout are associated with
/// `HKHealthStore.add(_:to:withCompletion:)` and found again with
/// `HKQuery.predicateForObjects(from: workout)`.
public final class HKWorkout: HKSample, @unchecked Sendable {
    /// The kind of activity.
    public let workoutActivityType: HKWorkoutActivityType
    /// The active duration in seconds (excluding pauses when the caller says so).
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

    /// Creates a workout with every detail; the other initializers call this one.
    public init(activityType: HKWorkoutActivityType, start startDate: Date, end endDate: Date,
                workoutEvents: [HKWorkoutEvent]?, totalEnergyBurned: HKQuantity?, totalDistance: HKQuantity?,
                totalSwimmingStrokeCount: HKQuantity? = nil, totalFlightsClimbed: HKQuantity? = nil,
                duration: TimeInterval? = nil, device: HKDevice?, metadata: [String: Any]?) {
        self.workoutActivityType = activityType
        self.duration = duration ?? endDate.timeIntervalSince(startDate)
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
