import Foundation

// Type identifiers that HealthKit declares as plain `NSString` constants rather than string enums.

/// The identifier of the workout type (`HKWorkoutType`).
public let HKWorkoutTypeIdentifier = "HKWorkoutTypeIdentifier"

/// The identifier of the workout route series type (`HKSeriesType.workoutRoute()`).
public let HKWorkoutRouteTypeIdentifier = "HKWorkoutRouteTypeIdentifier"

/// The identifier of the heartbeat series type (`HKSeriesType.heartbeat()`).
public let HKDataTypeIdentifierHeartbeatSeries = "HKDataTypeIdentifierHeartbeatSeries"
