import Foundation

/// A condition on one workout activity, built by `HKQuery.predicateForWorkoutActivities(…)`.
indirect enum WorkoutActivityCondition: Sendable {
    case activityType(HKWorkoutActivityType)
    case duration(HKComparisonOperator, TimeInterval)
    case dates(start: Date?, end: Date?, options: HKQueryOptions)
    case statistic(WorkoutStatisticKind, HKComparisonOperator, HKQuantityType, HKQuantity)
    case and([WorkoutActivityCondition])
    case or([WorkoutActivityCondition])
    case not(WorkoutActivityCondition)

    func matches(_ activity: HKWorkoutActivity) -> Bool {
        switch self {
        case .activityType(let type):
            return activity.workoutConfiguration.activityType == type
        case .duration(let op, let duration):
            return op.holds(activity.duration, duration)
        case .dates(let start, let end, let options):
            // As HealthKit's sample date predicate; an activity without an end has not ended yet.
            let activityEnd = activity.endDate ?? .distantFuture
            if let start, !(options.contains(.strictStartDate) ? activity.startDate >= start : activityEnd >= start) { return false }
            if let end, !(options.contains(.strictEndDate) ? activityEnd <= end : activity.startDate < end) { return false }
            return true
        case .statistic(let kind, let op, let type, let quantity):
            return kind.holds(activity.statistics(for: type), op, quantity)
        case .and(let conditions):
            return conditions.allSatisfy { $0.matches(activity) }
        case .or(let conditions):
            return conditions.contains { $0.matches(activity) }
        case .not(let condition):
            return !condition.matches(activity)
        }
    }

    /// Reads a tree of activity predicates and `NSCompoundPredicate`s; nil for anything else.
    static func read(_ predicate: NSPredicate) -> WorkoutActivityCondition? {
        if let ours = predicate as? HKWorkoutActivityPredicate { return ours.condition }
        guard let compound = predicate as? NSCompoundPredicate else { return nil }
        var children: [WorkoutActivityCondition] = []
        for child in compound.subpredicates {
            guard let condition = read(child) else { return nil }
            children.append(condition)
        }
        switch compound.compoundPredicateType {
        case .and: return .and(children)
        case .or: return .or(children)
        case .not: return children.first.map { .not($0) }
        @unknown default: return nil
        }
    }
}

/// Which statistic a workout or activity predicate compares.
enum WorkoutStatisticKind: Sendable {
    case sum, average, minimum, maximum

    func holds(_ statistics: HKStatistics?, _ op: HKComparisonOperator, _ quantity: HKQuantity) -> Bool {
        let value: HKQuantity?
        switch self {
        case .sum: value = statistics?.sumQuantity()
        case .average: value = statistics?.averageQuantity()
        case .minimum: value = statistics?.minimumQuantity()
        case .maximum: value = statistics?.maximumQuantity()
        }
        guard let value, let order = try? value.compare(to: quantity) else { return false }
        return op.holds(order)
    }
}

/// A condition on a workout decided after decryption: one of its activities matches, or one
/// of its statistics compares as asked.
enum WorkoutMatch: Sendable {
    case activity(WorkoutActivityCondition)
    case statistic(WorkoutStatisticKind, HKComparisonOperator, HKQuantityType, HKQuantity)

    func matches(_ workout: HKWorkout) -> Bool {
        switch self {
        case .activity(let condition):
            return workout.workoutActivities.contains { condition.matches($0) }
        case .statistic(let kind, let op, let type, let quantity):
            return kind.holds(workout.statistics(for: type), op, quantity)
        }
    }
}

/// The predicate HealthKit's activity factories return: it matches workout activities, so it
/// runs only inside `HKQuery.predicateForWorkouts(activityPredicate:)`.
final class HKWorkoutActivityPredicate: NSPredicate {
    let condition: WorkoutActivityCondition

    init(_ condition: WorkoutActivityCondition) {
        self.condition = condition
        super.init(value: true)
    }

    required init?(coder: NSCoder) { nil }
}

/// What `predicateForWorkouts(activityPredicate:)` returns for a predicate that is not made of
/// activity predicates: a query with it fails with `unsupportedPredicate`.
final class UnsupportedWorkoutActivityPredicate: NSPredicate {
    init() { super.init(value: false) }
    required init?(coder: NSCoder) { nil }

    /// Equal only to itself, so the store never takes it for `NSPredicate(value: false)`.
    override func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }
    override var hash: Int { ObjectIdentifier(self).hashValue }
}

extension HKQuery {
    // MARK: Workout activities

    /// Matches workout activities of an activity type, as HealthKit's `predicateForWorkoutActivities(workoutActivityType:)`.
    /// Wrap it in ``predicateForWorkouts(activityPredicate:)`` to query workouts.
    /// - Parameter workoutActivityType: The activity type.
    public class func predicateForWorkoutActivities(workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKWorkoutActivityPredicate(.activityType(workoutActivityType))
    }

    /// Matches workout activities whose duration compares with `duration`, as HealthKit's
    /// `predicateForWorkoutActivities(operatorType:duration:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - duration: The duration in seconds.
    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, duration: TimeInterval) -> NSPredicate {
        HKWorkoutActivityPredicate(.duration(operatorType, duration))
    }

    /// Matches workout activities between two dates, as HealthKit's `predicateForWorkoutActivities(start:end:options:)`.
    /// - Parameters:
    ///   - startDate: The start of the range, or nil for none.
    ///   - endDate: The end of the range, or nil for none.
    ///   - options: `strictStartDate` and `strictEndDate`, as for samples.
    public class func predicateForWorkoutActivities(start startDate: Date?, end endDate: Date?,
                                                    options: HKQueryOptions = []) -> NSPredicate {
        HKWorkoutActivityPredicate(.dates(start: startDate, end: endDate, options: options))
    }

    /// Matches workout activities by the sum of a quantity type, as HealthKit's
    /// `predicateForWorkoutActivities(operatorType:quantityType:sumQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the activity's statistics.
    ///   - sumQuantity: The value to compare the sum with.
    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    sumQuantity: HKQuantity) -> NSPredicate {
        HKWorkoutActivityPredicate(.statistic(.sum, operatorType, quantityType, sumQuantity))
    }

    /// Matches workout activities by the minimum of a quantity type, as HealthKit's
    /// `predicateForWorkoutActivities(operatorType:quantityType:minimumQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the activity's statistics.
    ///   - minimumQuantity: The value to compare the minimum with.
    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    minimumQuantity: HKQuantity) -> NSPredicate {
        HKWorkoutActivityPredicate(.statistic(.minimum, operatorType, quantityType, minimumQuantity))
    }

    /// Matches workout activities by the maximum of a quantity type, as HealthKit's
    /// `predicateForWorkoutActivities(operatorType:quantityType:maximumQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the activity's statistics.
    ///   - maximumQuantity: The value to compare the maximum with.
    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    maximumQuantity: HKQuantity) -> NSPredicate {
        HKWorkoutActivityPredicate(.statistic(.maximum, operatorType, quantityType, maximumQuantity))
    }

    /// Matches workout activities by the average of a quantity type, as HealthKit's
    /// `predicateForWorkoutActivities(operatorType:quantityType:averageQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the activity's statistics.
    ///   - averageQuantity: The value to compare the average with.
    public class func predicateForWorkoutActivities(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                                    averageQuantity: HKQuantity) -> NSPredicate {
        HKWorkoutActivityPredicate(.statistic(.average, operatorType, quantityType, averageQuantity))
    }

    /// Matches workouts with at least one activity matching `activityPredicate`, as HealthKit's
    /// `predicateForWorkouts(activityPredicate:)`. A predicate not built from
    /// `predicateForWorkoutActivities(…)` and `NSCompoundPredicate` makes the query fail with `unsupportedPredicate`.
    /// - Parameter activityPredicate: The activity predicate.
    public class func predicateForWorkouts(activityPredicate: NSPredicate) -> NSPredicate {
        guard let condition = WorkoutActivityCondition.read(activityPredicate) else { return UnsupportedWorkoutActivityPredicate() }
        return HKQueryPredicate(.workoutMatch(.activity(condition)))
    }

    // MARK: Workout statistics

    /// Matches workouts by the sum of a quantity type, as HealthKit's `predicateForWorkouts(operatorType:quantityType:sumQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the workout's statistics.
    ///   - sumQuantity: The value to compare the sum with.
    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           sumQuantity: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutMatch(.statistic(.sum, operatorType, quantityType, sumQuantity)))
    }

    /// Matches workouts by the minimum of a quantity type, as HealthKit's `predicateForWorkouts(operatorType:quantityType:minimumQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the workout's statistics.
    ///   - minimumQuantity: The value to compare the minimum with.
    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           minimumQuantity: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutMatch(.statistic(.minimum, operatorType, quantityType, minimumQuantity)))
    }

    /// Matches workouts by the maximum of a quantity type, as HealthKit's `predicateForWorkouts(operatorType:quantityType:maximumQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the workout's statistics.
    ///   - maximumQuantity: The value to compare the maximum with.
    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           maximumQuantity: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutMatch(.statistic(.maximum, operatorType, quantityType, maximumQuantity)))
    }

    /// Matches workouts by the average of a quantity type, as HealthKit's `predicateForWorkouts(operatorType:quantityType:averageQuantity:)`.
    /// - Parameters:
    ///   - operatorType: The comparison.
    ///   - quantityType: The quantity type of the workout's statistics.
    ///   - averageQuantity: The value to compare the average with.
    public class func predicateForWorkouts(operatorType: HKComparisonOperator, quantityType: HKQuantityType,
                                           averageQuantity: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutMatch(.statistic(.average, operatorType, quantityType, averageQuantity)))
    }
}
