import Foundation
import OpenHealthKit

/// Reads the `WorkoutActivity` and `WorkoutStatistics` children of an export's `Workout`
/// element into OpenHealthKit's workout activities and statistics.
///
/// The export gives an activity its UUID, dates, duration, metadata and statistics but not
/// its activity type. A single-activity workout's activity has the workout's type; in a
/// swim-bike-run workout the type comes from the distance or stroke statistics the activity
/// carries (swimming, cycling, walking and running), and an activity with none of them is the
/// transition between two legs.
enum WorkoutActivityElements {
    /// The statistics of a `WorkoutStatistics` element, or nil when its type or values cannot be read.
    static func statistics(_ element: ExportElement) -> HKWorkoutImportedStatistics? {
        guard let identifier = element["type"],
              let type = HKQuantityType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: identifier)),
              let start = element["startDate"].flatMap(ExportValues.date),
              let end = element["endDate"].flatMap(ExportValues.date) else { return nil }
        func quantity(_ attribute: String) -> HKQuantity? {
            guard let text = element[attribute], let value = Double(text), value.isFinite,
                  let unitText = element["unit"], let unit = try? HKUnit.parse(unitText) else { return nil }
            return HKQuantity(unit: unit, doubleValue: value)
        }
        return HKWorkoutImportedStatistics(quantityType: type, start: start, end: end, sum: quantity("sum"), average: quantity("average"),
                                           minimum: quantity("minimum"), maximum: quantity("maximum"))
    }

    /// The activity of a `WorkoutActivity` element of a workout of `workoutType`, or why it cannot be read.
    static func activity(_ element: ExportElement, workoutType: HKWorkoutActivityType) -> Result<HKWorkoutActivity, ActivityError> {
        guard let uuid = element["uuid"].flatMap(UUID.init(uuidString:)) else { return .failure(ActivityError("WorkoutActivity without a UUID")) }
        guard let start = element["startDate"].flatMap(ExportValues.date) else {
            return .failure(ActivityError("WorkoutActivity without a start date"))
        }
        let end = element["endDate"].flatMap(ExportValues.date) ?? start
        var duration: TimeInterval?
        if let text = element["duration"] {
            guard let value = Double(text), value.isFinite, value >= 0,
                  let unit = try? HKUnit.parse(element["durationUnit"] ?? "min"),
                  HKQuantity(unit: unit, doubleValue: value).is(compatibleWith: .second()) else {
                return .failure(ActivityError("WorkoutActivity with an unreadable duration"))
            }
            duration = HKQuantity(unit: unit, doubleValue: value).doubleValue(for: .second())
        }
        var metadata: [String: Any] = [:]
        var collected: [HKWorkoutImportedStatistics] = []
        var statisticsTypes: Set<String> = []
        for child in element.children {
            switch child.name {
            case "MetadataEntry":
                if let key = child["key"], let value = child["value"] { metadata[key] = ExportValues.metadataValue(value) }
            case "WorkoutStatistics":
                if let read = statistics(child), let type = child["type"] {
                    collected.append(read)
                    statisticsTypes.insert(type)
                }
            default:
                break  // events of an activity are the workout's own events, read there
            }
        }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutType == .swimBikeRun ? legType(statisticsTypes) : workoutType
        if let indoor = metadata[HKMetadataKeyIndoorWorkout] as? Bool {
            configuration.locationType = indoor ? .indoor : .outdoor
        } else if let indoor = metadata[HKMetadataKeyIndoorWorkout] as? Int {
            configuration.locationType = indoor != 0 ? .indoor : .outdoor
        }
        if let location = metadata[HKMetadataKeySwimmingLocationType] as? Int,
           let swimming = HKWorkoutSwimmingLocationType(rawValue: location) {
            configuration.swimmingLocationType = swimming
        }
        guard let activity = HKWorkoutActivity.imported(uuid: uuid, workoutConfiguration: configuration, start: start, end: max(start, end),
                                                        duration: duration, metadata: metadata.isEmpty ? nil : metadata,
                                                        statistics: collected) else {
            return .failure(ActivityError("WorkoutActivity with an unreadable duration"))
        }
        return .success(activity)
    }

    /// The leg of a swim-bike-run workout its statistics show.
    static func legType(_ types: Set<String>) -> HKWorkoutActivityType {
        if types.contains(HKQuantityTypeIdentifier.distanceSwimming.rawValue)
            || types.contains(HKQuantityTypeIdentifier.swimmingStrokeCount.rawValue) { return .swimming }
        if types.contains(HKQuantityTypeIdentifier.distanceCycling.rawValue) { return .cycling }
        if types.contains(HKQuantityTypeIdentifier.distanceWalkingRunning.rawValue) { return .running }
        return .transition
    }

    /// Why an activity was not read.
    struct ActivityError: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
