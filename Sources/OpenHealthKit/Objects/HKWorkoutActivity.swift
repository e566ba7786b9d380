import Foundation

/// One part of a workout (HealthKit's `HKWorkoutActivity`): the swim, bike or run of a
/// triathlon, or a work or rest interval. Activities are added with
/// `HKWorkoutBuilder.addWorkoutActivity(_:)` and read back in `HKWorkout.workoutActivities`,
/// each with its statistics from the workout's samples that fall inside it.
public final class HKWorkoutActivity: NSObject, NSCopying, @unchecked Sendable {
    /// The activity's identifier.
    public let uuid: UUID
    /// How this part of the workout was set up.
    public let workoutConfiguration: HKWorkoutConfiguration
    /// When the activity started.
    public let startDate: Date
    /// When it ended; nil while it is still running in a builder.
    public private(set) var endDate: Date?
    /// Its metadata.
    public private(set) var metadata: [String: Any]?
    /// The workout's events that fall inside the activity.
    public internal(set) var workoutEvents: [HKWorkoutEvent] = []
    /// Its statistics, one per quantity type of the samples inside it.
    public internal(set) var allStatistics: [HKQuantityType: HKStatistics] = [:]
    private var storedDuration: TimeInterval?

    /// Creates an activity, as HealthKit's `init(workoutConfiguration:start:end:metadata:)`.
    /// - Parameters:
    ///   - workoutConfiguration: The activity's type and location. In a `.swimBikeRun`
    ///     workout it must be swimming, cycling, running or (between them) transition.
    ///   - startDate: When the activity starts.
    ///   - endDate: When it ends, or nil to end it later with `HKWorkoutBuilder.updateActivity(uuid:end:)`.
    ///   - metadata: Its metadata.
    public init(workoutConfiguration: HKWorkoutConfiguration, start startDate: Date, end endDate: Date?,
                metadata: [String: Any]?) {
        self.uuid = UUID()
        // A copy, as HealthKit's @NSCopying property: later changes to the caller's object do not leak in.
        self.workoutConfiguration = workoutConfiguration.copy() as? HKWorkoutConfiguration ?? workoutConfiguration
        self.startDate = startDate
        self.endDate = endDate
        self.metadata = metadata
        super.init()
    }

    init(uuid: UUID, configuration: HKWorkoutConfiguration, start: Date, end: Date?, duration: TimeInterval?,
         metadata: [String: Any]?, events: [HKWorkoutEvent], statistics: [HKQuantityType: HKStatistics]) {
        self.uuid = uuid
        self.workoutConfiguration = configuration
        self.startDate = start
        self.endDate = end
        self.storedDuration = duration
        self.metadata = metadata
        self.workoutEvents = events
        self.allStatistics = statistics
        super.init()
    }

    /// The active time of the activity in seconds: from start to end, less the time between
    /// its pause and resume events; 0 while it has no end.
    public var duration: TimeInterval {
        if let storedDuration { return storedDuration }
        guard let endDate else { return 0 }
        return WorkoutElapsedTime.elapsed(from: startDate, to: endDate, events: workoutEvents)
    }

    /// The activity's statistics for `quantityType`, as HealthKit's `statistics(for:)`.
    /// - Parameter quantityType: The type of the quantity samples to summarise.
    /// - Returns: nil when no sample of that type falls inside the activity.
    public func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        allStatistics[quantityType]
    }

    /// A copy of the activity with the same UUID.
    /// - Parameter zone: Ignored, as in Foundation.
    public func copy(with zone: NSZone? = nil) -> Any {
        HKWorkoutActivity(uuid: uuid, configuration: workoutConfiguration, start: startDate, end: endDate,
                          duration: storedDuration, metadata: metadata, events: workoutEvents, statistics: allStatistics)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? HKWorkoutActivity)?.uuid == uuid
    }

    public override var hash: Int { uuid.hashValue }

    // MARK: Builder updates

    func setEnd(_ date: Date) { endDate = date }

    func addMetadata(_ more: [String: Any]) {
        metadata = (metadata ?? [:]).merging(more) { _, new in new }
    }

    func freezeDuration() { storedDuration = duration }
}

/// HealthKit's duration rule: the time from start to end less every interval in which the
/// workout is paused. The person's `.pause`/`.resume` and the system's `.motionPaused`/
/// `.motionResumed` are two separate pairs: the workout is paused while either is open (a
/// motion resume does not end a pause the person made); a pause with no resume pauses until
/// the end.
enum WorkoutElapsedTime {
    static func elapsed(from start: Date, to end: Date, events: [HKWorkoutEvent]) -> TimeInterval {
        guard end > start else { return 0 }
        var total: TimeInterval = 0
        var runningSince: Date? = start
        var userPaused = false
        var motionPaused = false
        let ordered = events.filter { [.pause, .resume, .motionPaused, .motionResumed].contains($0.type) }
            .sorted { $0.dateInterval.start < $1.dateInterval.start }
        for event in ordered {
            let at = min(max(event.dateInterval.start, start), end)
            switch event.type {
            case .pause: userPaused = true
            case .resume: userPaused = false
            case .motionPaused: motionPaused = true
            default: motionPaused = false
            }
            if userPaused || motionPaused {
                if let since = runningSince {
                    total += at.timeIntervalSince(since)
                    runningSince = nil
                }
            } else if runningSince == nil {
                runningSince = at
            }
        }
        if let since = runningSince { total += end.timeIntervalSince(since) }
        return max(0, total)
    }
}
