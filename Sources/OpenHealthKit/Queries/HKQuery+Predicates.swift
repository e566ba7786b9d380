import Foundation

extension HKQuery {
    // MARK: Objects

    /// Matches the object with this UUID.
    public class func predicateForObject(with uuid: UUID) -> NSPredicate {
        HKQueryPredicate(.uuids([uuid]))
    }

    /// Matches objects with any of these UUIDs.
    public class func predicateForObjects(with uuids: Set<UUID>) -> NSPredicate {
        HKQueryPredicate(.uuids(uuids))
    }

    /// Matches objects saved by this source.
    public class func predicateForObjects(from source: HKSource) -> NSPredicate {
        HKQueryPredicate(.sources([source.bundleIdentifier]))
    }

    /// Matches objects saved by any of these sources.
    public class func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
        HKQueryPredicate(.sources(Set(sources.map(\.bundleIdentifier))))
    }

    /// Matches objects saved by any of these source revisions. A revision whose version is
    /// `HKSourceRevisionAnyVersion` or product type is `HKSourceRevisionAnyProductType` matches
    /// any value there.
    public class func predicateForObjects(from sourceRevisions: Set<HKSourceRevision>) -> NSPredicate {
        HKQueryPredicate(.sourceRevisions(sourceRevisions.map {
            PredicateNode.RevisionMatch(
                bundleIdentifier: $0.source.bundleIdentifier,
                version: $0.version == HKSourceRevisionAnyVersion ? nil : $0.version,
                productType: $0.productType == HKSourceRevisionAnyProductType ? nil : $0.productType)
        }))
    }

    /// Matches objects produced by this device.
    public class func predicateForObjects(from devices: Set<HKDevice>) -> NSPredicate {
        HKQueryPredicate(.devices(Array(devices)))
    }

    /// Matches objects produced by a device whose property `key` (one of the
    /// `HKDevicePropertyKey…` constants) has one of `allowedValues`; objects without a device, or
    /// whose device lacks the property, do not match.
    public class func predicateForObjects(withDeviceProperty key: String, allowedValues: Set<String>) -> NSPredicate {
        HKQueryPredicate(.deviceProperty(key: key, values: allowedValues))
    }

    /// Matches objects that carry a metadata key.
    public class func predicateForObjects(withMetadataKey key: String) -> NSPredicate {
        HKQueryPredicate(.metadataExists(key))
    }

    /// Matches objects whose metadata value for `key` is one of `allowedValues`.
    public class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        let values = allowedValues.compactMap { try? MetadataCodec.Value($0, key: key) }
        return HKQueryPredicate(.metadataAllowed(key: key, values: values))
    }

    /// Matches objects whose metadata value for `key` compares with `value` by `operatorType`.
    public class func predicateForObjects(withMetadataKey key: String, operatorType: HKComparisonOperator, value: Any) -> NSPredicate {
        guard let value = try? MetadataCodec.Value(value, key: key) else { return HKQueryPredicate(.constant(false)) }
        if operatorType == .equalTo, value.indexForm != nil {
            return HKQueryPredicate(.metadataAllowed(key: key, values: [value]))
        }
        return HKQueryPredicate(.metadataCompare(key: key, operator: operatorType, value: value))
    }

    /// Matches samples that belong to no correlation.
    public class func predicateForObjectsWithNoCorrelation() -> NSPredicate {
        HKQueryPredicate(.noCorrelation)
    }

    /// Matches samples associated with a workout.
    public class func predicateForObjects(from workout: HKWorkout) -> NSPredicate {
        HKQueryPredicate(.fromWorkout(workout.uuid))
    }

    // MARK: Samples

    /// Matches samples in a time range; see `HKQueryOptions` for the exact rule.
    public class func predicateForSamples(withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = []) -> NSPredicate {
        HKQueryPredicate(.dates(start: startDate, end: endDate, options: options))
    }

    /// Matches quantity samples whose quantity compares with `quantity` by `operatorType`.
    public class func predicateForQuantitySamples(with operatorType: HKComparisonOperator, quantity: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.quantity(operatorType, quantity))
    }

    /// Matches category samples whose value compares with `value` by `operatorType`.
    public class func predicateForCategorySamples(with operatorType: HKComparisonOperator, value: Int) -> NSPredicate {
        HKQueryPredicate(.categoryValue(operatorType, value))
    }

    /// Matches category samples whose value is one of `values`.
    public class func predicateForCategorySamples(equalTo values: Set<Int>) -> NSPredicate {
        HKQueryPredicate(.categoryValues(values))
    }

    // MARK: Workouts

    /// Matches workouts of an activity type.
    public class func predicateForWorkouts(with workoutActivityType: HKWorkoutActivityType) -> NSPredicate {
        HKQueryPredicate(.workoutActivity(workoutActivityType))
    }

    /// Matches workouts whose duration compares with `duration` by `operatorType`.
    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, duration: TimeInterval) -> NSPredicate {
        HKQueryPredicate(.workoutDuration(operatorType, duration))
    }

    /// Matches workouts whose total energy burned compares with `totalEnergyBurned`.
    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalEnergyBurned: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutTotal(.energyBurned, operatorType, totalEnergyBurned))
    }

    /// Matches workouts whose total distance compares with `totalDistance`.
    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalDistance: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutTotal(.distance, operatorType, totalDistance))
    }

    /// Matches workouts whose total swimming stroke count compares with `totalSwimmingStrokeCount`.
    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalSwimmingStrokeCount: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutTotal(.swimmingStrokeCount, operatorType, totalSwimmingStrokeCount))
    }

    /// Matches workouts whose total flights climbed compares with `totalFlightsClimbed`.
    public class func predicateForWorkouts(with operatorType: HKComparisonOperator, totalFlightsClimbed: HKQuantity) -> NSPredicate {
        HKQueryPredicate(.workoutTotal(.flightsClimbed, operatorType, totalFlightsClimbed))
    }
}
