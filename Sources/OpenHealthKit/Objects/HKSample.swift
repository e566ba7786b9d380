import Foundation

/// An object with a type and a time interval (HealthKit's `HKSample`).
open class HKSample: HKObject, @unchecked Sendable {
    /// The sample's type.
    public let sampleType: HKSampleType
    /// When the sample starts.
    public let startDate: Date
    /// When the sample ends (equal to `startDate` for an instant).
    public let endDate: Date

    /// Whether the sample has an undetermined duration (always false here).
    public var hasUndeterminedDuration: Bool { false }

    init(sampleType: HKSampleType, startDate: Date, endDate: Date, uuid: UUID = .timeOrdered(),
         sourceRevision: HKSourceRevision? = nil, device: HKDevice?, metadata: [String: Any]?) {
        self.sampleType = sampleType
        self.startDate = startDate
        self.endDate = endDate
        super.init(uuid: uuid, sourceRevision: sourceRevision ?? HKObject.defaultRevision(), device: device, metadata: metadata)
    }
}

/// The sort key HealthKit sorts samples by start date with.
public let HKSampleSortIdentifierStartDate = "startDate"
/// The sort key HealthKit sorts samples by end date with.
public let HKSampleSortIdentifierEndDate = "endDate"
/// The predicate key path of a sample's start date.
public let HKPredicateKeyPathStartDate = "startDate"
/// The predicate key path of a sample's end date.
public let HKPredicateKeyPathEndDate = "endDate"

/// The sort key HealthKit sorts workouts by duration with.
public let HKWorkoutSortIdentifierDuration = "HKWorkoutSortIdentifierDuration"
/// The sort key HealthKit sorts workouts by total distance with.
public let HKWorkoutSortIdentifierTotalDistance = "HKWorkoutSortIdentifierTotalDistance"
/// The sort key HealthKit sorts workouts by total energy burned with.
public let HKWorkoutSortIdentifierTotalEnergyBurned = "HKWorkoutSortIdentifierTotalEnergyBurned"
/// The sort key HealthKit sorts swimming workouts by stroke count with.
public let HKWorkoutSortIdentifierTotalSwimmingStrokeCount = "totalSwimmingStrokeCount"
/// The sort key HealthKit sorts workouts by flights climbed with.
public let HKWorkoutSortIdentifierTotalFlightsClimbed = "totalFlightsClimbed"

extension NSSortDescriptor {
    /// HealthKit's way of sorting samples: `NSSortDescriptor(key: HKSampleSortIdentifierStartDate,
    /// ascending: false)`. swift-corelibs-foundation has no key-value coding, so OpenHealthKit maps
    /// HealthKit's sort keys onto key paths: the sample sort keys (start and end date) and the
    /// workout sort keys (`HKWorkoutSortIdentifierDuration` and the totals; a workout without the
    /// total, and a sample that is not a workout, sorts as a missing value: first when ascending,
    /// last when descending). Other keys sort by start date.
    public convenience init(key: String, ascending: Bool) {
        switch key {
        case HKSampleSortIdentifierEndDate:
            self.init(keyPath: \HKSample.endDate, ascending: ascending)
        case HKWorkoutSortIdentifierDuration:
            self.init(keyPath: \HKWorkout.duration, ascending: ascending)
        case HKWorkoutSortIdentifierTotalDistance:
            self.init(keyPath: \HKWorkout.sortableTotalDistance, ascending: ascending)
        case HKWorkoutSortIdentifierTotalEnergyBurned:
            self.init(keyPath: \HKWorkout.sortableTotalEnergyBurned, ascending: ascending)
        case HKWorkoutSortIdentifierTotalSwimmingStrokeCount:
            self.init(keyPath: \HKWorkout.sortableTotalSwimmingStrokeCount, ascending: ascending)
        case HKWorkoutSortIdentifierTotalFlightsClimbed:
            self.init(keyPath: \HKWorkout.sortableTotalFlightsClimbed, ascending: ascending)
        default:
            self.init(keyPath: \HKSample.startDate, ascending: ascending)
        }
    }
}

extension HKWorkout {
    /// The totals as plain numbers for sorting: meters, kilocalories and counts; a missing total
    /// (or one in a unit that does not measure it) is the lowest value.
    var sortableTotalDistance: Double { Self.sortable(totalDistance, in: .meter()) }
    var sortableTotalEnergyBurned: Double { Self.sortable(totalEnergyBurned, in: .kilocalorie()) }
    var sortableTotalSwimmingStrokeCount: Double { Self.sortable(totalSwimmingStrokeCount, in: .count()) }
    var sortableTotalFlightsClimbed: Double { Self.sortable(totalFlightsClimbed, in: .count()) }

    private static func sortable(_ quantity: HKQuantity?, in unit: HKUnit) -> Double {
        (try? quantity?.value(in: unit)) ?? -.infinity
    }
}
