import Foundation

/// Where a workout takes place (HealthKit's `HKWorkoutSessionLocationType`, with its raw values).
public enum HKWorkoutSessionLocationType: Int, Sendable, Codable, CaseIterable {
    /// The location is not known.
    case unknown = 1
    /// Indoors.
    case indoor = 2
    /// Outdoors.
    case outdoor = 3
}

/// How a workout, or one activity of it, is set up (HealthKit's `HKWorkoutConfiguration`):
/// its activity type, indoors or outdoors, and for swimming the location and lap length.
public final class HKWorkoutConfiguration: NSObject, NSCopying, @unchecked Sendable {
    /// The activity type; `.other` until set.
    public var activityType: HKWorkoutActivityType = .other
    /// Indoors, outdoors or unknown (the default).
    public var locationType: HKWorkoutSessionLocationType = .unknown
    /// For swimming, a pool or open water; unknown by default.
    public var swimmingLocationType: HKWorkoutSwimmingLocationType = .unknown
    /// For pool swimming, the length of the pool.
    public var lapLength: HKQuantity?

    /// Creates a configuration for an `.other` activity at an unknown location, as HealthKit's `init()`.
    public override init() {
        super.init()
    }

    /// A copy that changes independently of this configuration.
    /// - Parameter zone: Ignored, as in Foundation.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = HKWorkoutConfiguration()
        copy.activityType = activityType
        copy.locationType = locationType
        copy.swimmingLocationType = swimmingLocationType
        copy.lapLength = lapLength
        return copy
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutConfiguration else { return false }
        return activityType == other.activityType && locationType == other.locationType
            && swimmingLocationType == other.swimmingLocationType && lapLength == other.lapLength
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(activityType.rawValue)
        hasher.combine(locationType)
        hasher.combine(swimmingLocationType)
        return hasher.finalize()
    }
}
