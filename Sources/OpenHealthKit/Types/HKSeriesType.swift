import Foundation

/// A type of series samples (HealthKit's `HKSeriesType`): here the workout route type, whose
/// samples (``HKWorkoutRoute``) hold a series of locations.
///
/// Apps ask to read or share routes with `HKSeriesType.workoutRoute()`, as in HealthKit.
public final class HKSeriesType: HKSampleType, @unchecked Sendable {
    /// The known series type identifiers.
    static let known: Set<String> = [HKWorkoutRouteTypeIdentifier]

    init(seriesIdentifier: String) {
        super.init(identifier: seriesIdentifier)
    }

    /// The workout route type.
    public class func workoutRoute() -> HKSeriesType {
        HKSeriesType(seriesIdentifier: HKWorkoutRouteTypeIdentifier)
    }
}

extension HKObjectType {
    /// Returns the series type for an identifier, or nil when OpenHealthKit does not know it
    /// (HealthKit's `seriesType(forIdentifier:)`).
    public class func seriesType(forIdentifier identifier: String) -> HKSeriesType? {
        HKSeriesType.known.contains(identifier) ? HKSeriesType(seriesIdentifier: identifier) : nil
    }
}
