import Foundation

/// A workout's or activity's statistics for one quantity type, as stored in the sealed
/// workout details (``WorkoutExtra``), in the type's canonical unit.
struct WorkoutStatisticsRecord: Codable, Sendable {
    var type: String
    var start: Double
    var end: Double
    var sum: Double?
    var average: Double?
    var minimum: Double?
    var maximum: Double?
    var mostRecent: Double?
    var mostRecentStart: Double?
    var mostRecentEnd: Double?
    var duration: Double?

    init(type: String, interval: DateInterval, values: StatisticsValues) {
        self.type = type
        start = interval.start.timeIntervalSinceReferenceDate
        end = interval.end.timeIntervalSinceReferenceDate
        sum = values.sum
        average = values.average
        minimum = values.minimum
        maximum = values.maximum
        mostRecent = values.mostRecent
        mostRecentStart = values.mostRecentInterval?.start.timeIntervalSinceReferenceDate
        mostRecentEnd = values.mostRecentInterval?.end.timeIntervalSinceReferenceDate
        duration = values.duration
    }

    /// The statistics object, or nil for a type this store does not know or a damaged interval.
    var statistics: HKStatistics? {
        guard let type = HKQuantityType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: self.type)),
              start.isFinite, end.isFinite, end >= start else { return nil }
        var interval: DateInterval?
        if let mostRecentStart, let mostRecentEnd, mostRecentStart.isFinite, mostRecentEnd >= mostRecentStart {
            interval = DateInterval(start: Date(timeIntervalSinceReferenceDate: mostRecentStart),
                                    end: Date(timeIntervalSinceReferenceDate: mostRecentEnd))
        }
        let values = StatisticsValues(sum: sum, average: average, minimum: minimum, maximum: maximum, mostRecent: mostRecent,
                                      mostRecentInterval: interval, duration: duration)
        return HKStatistics(quantityType: type, interval: DateInterval(start: Date(timeIntervalSinceReferenceDate: start),
                                                                        end: Date(timeIntervalSinceReferenceDate: end)),
                            values: values, bySource: nil, sourceTable: [:])
    }

    init(_ statistics: HKStatistics) {
        self.init(type: statistics.quantityType.identifier,
                  interval: DateInterval(start: statistics.startDate, end: max(statistics.startDate, statistics.endDate)),
                  values: statistics.values ?? StatisticsValues())
    }

    static func dictionary(_ records: [WorkoutStatisticsRecord]?) -> [HKQuantityType: HKStatistics] {
        var result: [HKQuantityType: HKStatistics] = [:]
        for record in records ?? [] {
            if let statistics = record.statistics { result[statistics.quantityType] = statistics }
        }
        return result
    }

    static func records(_ statistics: [HKQuantityType: HKStatistics]) -> [WorkoutStatisticsRecord]? {
        statistics.isEmpty ? nil : statistics.values.map(WorkoutStatisticsRecord.init).sorted { $0.type < $1.type }
    }
}

/// A workout activity as stored in the sealed workout details.
struct WorkoutActivityRecord: Codable, Sendable {
    var uuid: UUID
    var activityType: UInt
    var location: Int
    var swimmingLocation: Int
    var lapLengthMeters: Double?
    var start: Double
    var end: Double?
    var duration: Double
    /// Metadata in ``MetadataCodec``'s encoding.
    var metadata: Data?
    var events: [WorkoutExtra.Event]?
    var statistics: [WorkoutStatisticsRecord]?

    /// The record of `activity`.
    /// - Throws: `errorInvalidArgument` for metadata HealthKit does not accept, or a lap length that is not a length.
    init(_ activity: HKWorkoutActivity) throws {
        let configuration = activity.workoutConfiguration
        uuid = activity.uuid
        activityType = configuration.activityType.rawValue
        location = configuration.locationType.rawValue
        swimmingLocation = configuration.swimmingLocationType.rawValue
        if let lap = configuration.lapLength {
            guard let meters = try? lap.value(in: .meter()), meters.isFinite else {
                throw HKError(.errorInvalidArgument, "a workout configuration's lap length must be a finite length")
            }
            lapLengthMeters = meters
        }
        let start = activity.startDate.timeIntervalSinceReferenceDate
        let end = activity.endDate?.timeIntervalSinceReferenceDate
        self.start = start
        self.end = end
        guard start.isFinite, end.map({ $0.isFinite && $0 >= start }) ?? true else {
            throw HKError(.errorInvalidArgument, "a workout activity must end at or after its start")
        }
        duration = activity.duration
        let values = try activity.metadata.map(MetadataCodec.values) ?? [:]
        metadata = values.isEmpty ? nil : try MetadataCodec.encode(values)
        events = activity.workoutEvents.isEmpty ? nil : try activity.workoutEvents.map(WorkoutExtra.Event.init)
        statistics = WorkoutStatisticsRecord.records(activity.allStatistics)
    }

    /// The activity, or nil when the record is damaged.
    var activity: HKWorkoutActivity? {
        guard start.isFinite, end.map({ $0.isFinite && $0 >= start }) ?? true else { return nil }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = HKWorkoutActivityType(rawValue: activityType) ?? .other
        configuration.locationType = HKWorkoutSessionLocationType(rawValue: location) ?? .unknown
        configuration.swimmingLocationType = HKWorkoutSwimmingLocationType(rawValue: swimmingLocation) ?? .unknown
        configuration.lapLength = lapLengthMeters.map { HKQuantity(unit: .meter(), doubleValue: $0) }
        let metadata = metadata.flatMap { try? MetadataCodec.decode($0) }.map { $0.mapValues(\.anyValue) }
        return HKWorkoutActivity(uuid: uuid, configuration: configuration, start: Date(timeIntervalSinceReferenceDate: start),
                                 end: end.map(Date.init(timeIntervalSinceReferenceDate:)), duration: duration,
                                 metadata: metadata, events: (events ?? []).compactMap(\.event),
                                 statistics: WorkoutStatisticsRecord.dictionary(statistics))
    }
}

extension WorkoutExtra.Event {
    /// The record of `event`, its metadata included.
    /// - Throws: `errorInvalidArgument` for metadata HealthKit does not accept.
    init(_ event: HKWorkoutEvent) throws {
        let values = try event.metadata.map(MetadataCodec.values) ?? [:]
        self.init(type: event.type.rawValue, start: event.dateInterval.start.timeIntervalSinceReferenceDate,
                  end: event.dateInterval.end.timeIntervalSinceReferenceDate,
                  metadata: values.isEmpty ? nil : try MetadataCodec.encode(values))
    }

    /// The event, or nil when the record is damaged (unreadable metadata reads as none).
    var event: HKWorkoutEvent? {
        guard let type = HKWorkoutEventType(rawValue: type), start.isFinite, end.isFinite, end >= start else { return nil }
        let metadata = metadata.flatMap { try? MetadataCodec.decode($0) }.map { $0.mapValues(\.anyValue) }
        return HKWorkoutEvent(type: type, dateInterval: DateInterval(start: Date(timeIntervalSinceReferenceDate: start),
                                                                     end: Date(timeIntervalSinceReferenceDate: end)),
                              metadata: metadata)
    }
}

/// Computes the statistics a workout and its activities carry from the quantity samples
/// added to it: per quantity type, the sum for cumulative types and the average, minimum,
/// maximum and most recent value for discrete ones, over the part of each sample inside the
/// interval, by the same engine as `HKStatisticsQuery` (every source counted).
enum WorkoutStatisticsCalculator {
    static func statistics(of samples: [HKSample], in interval: DateInterval) -> [HKQuantityType: HKStatistics] {
        var byType: [HKQuantityType: [StatisticsSample]] = [:]
        for case let sample as HKQuantitySample in samples {
            let type = sample.quantityType
            guard let value = try? sample.quantity.value(in: type.canonicalUnit), value.isFinite else { continue }
            byType[type, default: []].append(StatisticsSample(start: sample.startDate.timeIntervalSinceReferenceDate,
                                                              end: sample.endDate.timeIntervalSinceReferenceDate, value: value))
        }
        var result: [HKQuantityType: HKStatistics] = [:]
        for (type, rows) in byType {
            let options: HKStatisticsOptions = type.aggregationStyle == .cumulative
                ? [.cumulativeSum] : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent]
            let sorted = rows.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
            // A zero-length interval (a workout that starts and ends at once) keeps the samples whole.
            let clip = interval.duration > 0 ? interval : nil
            guard let bucket = try? StatisticsEngine.statistics(of: sorted, style: type.aggregationStyle, options: options,
                                                                 clippingTo: clip) else { continue }
            result[type] = HKStatistics(quantityType: type, interval: clip ?? bucket.interval, values: bucket.values,
                                        bySource: nil, sourceTable: [:])
        }
        return result
    }
}

/// One `WorkoutStatistics` entry of another device's export: a workout's or activity's
/// statistics for one quantity type (OpenHealthKit API, for importers; HealthKit computes
/// these from samples).
public struct HKWorkoutImportedStatistics: Sendable {
    let record: WorkoutStatisticsRecord

    /// Creates statistics from an export's values.
    /// - Parameters:
    ///   - quantityType: The quantity type summarised.
    ///   - start: The start of the summarised interval.
    ///   - end: Its end, at or after `start`.
    ///   - sum: The sum, for cumulative types.
    ///   - average: The average, for discrete types.
    ///   - minimum: The minimum, for discrete types.
    ///   - maximum: The maximum, for discrete types.
    /// - Returns: nil when a quantity is not finite or not compatible with `quantityType`, or `end` is before `start`.
    public init?(quantityType: HKQuantityType, start: Date, end: Date, sum: HKQuantity?, average: HKQuantity?,
                 minimum: HKQuantity?, maximum: HKQuantity?) {
        guard end >= start, start.timeIntervalSinceReferenceDate.isFinite, end.timeIntervalSinceReferenceDate.isFinite else { return nil }
        var failed = false
        func canonical(_ quantity: HKQuantity?) -> Double? {
            guard let quantity else { return nil }
            guard let value = try? quantity.value(in: quantityType.canonicalUnit), value.isFinite else {
                failed = true
                return nil
            }
            return value
        }
        let values = StatisticsValues(sum: canonical(sum), average: canonical(average), minimum: canonical(minimum),
                                      maximum: canonical(maximum))
        guard !failed, values != StatisticsValues() else { return nil }
        record = WorkoutStatisticsRecord(type: quantityType.identifier, interval: DateInterval(start: start, end: end), values: values)
    }
}

extension HKWorkout {
    /// Gives an imported workout the activities and statistics its export lists, before it is
    /// saved (OpenHealthKit API, for importers; apps build them with `HKWorkoutBuilder`).
    /// - Parameters:
    ///   - activities: The activities, e.g. a multisport workout's swim, bike and run.
    ///   - statistics: The workout's statistics, one per quantity type (a later one for the same type wins).
    public func setImportedDetails(activities: [HKWorkoutActivity], statistics: [HKWorkoutImportedStatistics]) {
        storedActivities = activities.sorted { $0.startDate < $1.startDate }
        storedStatistics = WorkoutStatisticsRecord.dictionary(statistics.map(\.record))
    }
}

extension HKWorkoutActivity {
    /// An activity of another device's export (OpenHealthKit API, for importers), keeping the
    /// export's UUID so importing the same export again gives the same activity.
    /// - Parameters:
    ///   - uuid: The export's activity UUID.
    ///   - workoutConfiguration: The activity's type and location.
    ///   - startDate: Its start.
    ///   - endDate: Its end, at or after the start.
    ///   - duration: Its active duration in seconds, or nil for the time from start to end.
    ///   - metadata: Its metadata.
    ///   - statistics: Its statistics, one per quantity type.
    /// - Returns: nil when `endDate` is before `startDate` or `duration` is negative or not finite.
    public static func imported(uuid: UUID, workoutConfiguration: HKWorkoutConfiguration, start startDate: Date, end endDate: Date,
                                duration: TimeInterval?, metadata: [String: Any]?,
                                statistics: [HKWorkoutImportedStatistics]) -> HKWorkoutActivity? {
        guard endDate >= startDate, duration.map({ $0.isFinite && $0 >= 0 }) ?? true else { return nil }
        return HKWorkoutActivity(uuid: uuid, configuration: workoutConfiguration, start: startDate, end: endDate,
                                 duration: duration ?? endDate.timeIntervalSince(startDate), metadata: metadata, events: [],
                                 statistics: WorkoutStatisticsRecord.dictionary(statistics.map(\.record)))
    }
}
