import Foundation

/// The kinds of workout event (HealthKit's `HKWorkoutEventType`, with its raw values).
public enum HKWorkoutEventType: Int, Sendable, Codable, CaseIterable {
    case pause = 1
    case resume = 2
    case lap = 3
    case marker = 4
    case motionPaused = 5
    case motionResumed = 6
    case segment = 7
    case pauseOrResumeRequest = 8
}

/// Something that happened during a workout: a pause, a lap, a segment.
public final class HKWorkoutEvent: NSObject, @unchecked Sendable {
    /// The event's kind.
    public let type: HKWorkoutEventType
    /// When it happened.
    public let dateInterval: DateInterval
    /// Its metadata.
    public let metadata: [String: Any]?

    /// Creates an event, as HealthKit's `init(type:dateInterval:metadata:)`.
    public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
        self.type = type
        self.dateInterval = dateInterval
        self.metadata = metadata
    }

    /// Creates an event at one moment, as HealthKit's `init(type:date:)` (iOS 8, deprecated in
    /// iOS 11 for `init(type:dateInterval:metadata:)`).
    public convenience init(type: HKWorkoutEventType, date: Date) {
        self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
    }

    /// Creates an event at one moment with metadata, as HealthKit's `init(type:date:metadata:)`
    /// (iOS 10, deprecated in iOS 11 for `init(type:dateInterval:metadata:)`).
    public convenience init(type: HKWorkoutEventType, date: Date, metadata: [String: Any]) {
        self.init(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: metadata)
    }

    /// The event's start (deprecated in HealthKit).
    public var date: Date { dateInterval.start }
}
