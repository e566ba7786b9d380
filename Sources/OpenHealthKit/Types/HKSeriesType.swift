import Foundation

/// A type of series samples (HealthKit's `HKSeriesType`): the workout route type, whose
/// samples (``HKWorkoutRoute``) hold a series of locations, and the heartbeat series type, whose
/// samples (``HKHeartbeatSeriesSample``) hold a series of heartbeats.
///
/// Apps ask to read or share them with `HKSeriesType.workoutRoute()` and
/// `HKSeriesType.heartbeat()`, as in HealthKit.
public final class HKSeriesType: HKSampleType, @unchecked Sendable {
    /// The known series type identifiers.
    static let known: Set<String> = [HKWorkoutRouteTypeIdentifier, HKDataTypeIdentifierHeartbeatSeries]

    init(seriesIdentifier: String) {
        super.init(identifier: seriesIdentifier)
    }

    /// The workout route type.
    public class func workoutRoute() -> HKSeriesType {
        HKSeriesType(seriesIdentifier: HKWorkoutRouteTypeIdentifier)
    }

    /// The heartbeat series type (`HKDataTypeIdentifierHeartbeatSeries`).
    public class func heartbeat() -> Self {
        Self(seriesIdentifier: HKDataTypeIdentifierHeartbeatSeries)
    }
}

extension HKObjectType {
    /// Returns the series type for an identifier, or nil when OpenHealthKit does not know it
    /// (HealthKit's `seriesType(forIdentifier:)`).
    public class func seriesType(forIdentifier identifier: String) -> HKSeriesType? {
        HKSeriesType.known.contains(identifier) ? HKSeriesType(seriesIdentifier: identifier) : nil
    }
}
