import Foundation

// HealthKit's predicate key paths: the names HealthKit gives the properties its predicate format
// strings (`NSPredicate(format: "%K >= %@", HKPredicateKeyPathQuantity, …)`) filter on. Each has
// HealthKit's own value.
//
// swift-corelibs-foundation cannot parse predicate format strings (`NSPredicate(format:)` is
// unavailable there), so on this platform the constants exist for code that names them; build the
// predicate with the `HKQuery.predicateFor…` method that matches the same property instead (the
// comment on each constant names it).

/// The key path of an object's UUID (`HKQuery.predicateForObject(with:)`).
public let HKPredicateKeyPathUUID = "UUID"
/// The key path of an object's source (`HKQuery.predicateForObjects(from:)` with sources).
public let HKPredicateKeyPathSource = "source"
/// The key path of an object's metadata (`HKQuery.predicateForObjects(withMetadataKey:…)`).
public let HKPredicateKeyPathMetadata = "metadata"
/// The key path of the correlation a sample belongs to (`HKQuery.predicateForObjectsWithNoCorrelation()`).
public let HKPredicateKeyPathCorrelation = "correlation"
/// The key path of the workout a sample is associated with (`HKQuery.predicateForObjects(from:)` with a workout).
public let HKPredicateKeyPathWorkout = "workout"
/// The key path of an object's device (`HKQuery.predicateForObjects(from:)` with devices, and
/// `predicateForObjects(withDeviceProperty:allowedValues:)`).
public let HKPredicateKeyPathDevice = "device"
/// The key path of an object's source revision (`HKQuery.predicateForObjects(from:)` with revisions).
public let HKPredicateKeyPathSourceRevision = "sourceRevision"
/// The key path of a quantity sample's quantity (`HKQuery.predicateForQuantitySamples(with:quantity:)`).
public let HKPredicateKeyPathQuantity = "quantity"
/// The key path of a category sample's value (`HKQuery.predicateForCategorySamples(with:value:)`).
public let HKPredicateKeyPathCategoryValue = "value"
/// The key path of an activity summary's date components (`HKQuery.predicateForActivitySummary(with:)`).
public let HKPredicateKeyPathDateComponents = "dateComponents"

/// The key path of a workout's type (`HKQuery.predicateForWorkouts(with:)`).
public let HKPredicateKeyPathWorkoutType = "workoutType"
/// The key path of a workout's duration (`HKQuery.predicateForWorkouts(with:duration:)`).
public let HKPredicateKeyPathWorkoutDuration = "duration"
/// The key path of a workout's total distance (`HKQuery.predicateForWorkouts(with:totalDistance:)`); HealthKit
/// deprecates it for `HKPredicateKeyPathWorkoutSumQuantity`.
public let HKPredicateKeyPathWorkoutTotalDistance = "totalDistance"
/// The key path of a workout's total energy burned (`HKQuery.predicateForWorkouts(with:totalEnergyBurned:)`).
public let HKPredicateKeyPathWorkoutTotalEnergyBurned = "totalEnergyBurned"
/// The key path of a swimming workout's stroke count (`HKQuery.predicateForWorkouts(with:totalSwimmingStrokeCount:)`).
public let HKPredicateKeyPathWorkoutTotalSwimmingStrokeCount = "totalSwimmingStrokeCount"
/// The key path of a workout's flights climbed (`HKQuery.predicateForWorkouts(with:totalFlightsClimbed:)`).
public let HKPredicateKeyPathWorkoutTotalFlightsClimbed = "totalFlightsClimbed"
/// The key path of a workout's sum of a quantity type (`HKQuery.predicateForWorkouts(operatorType:quantityType:sumQuantity:)`).
public let HKPredicateKeyPathWorkoutSumQuantity = "sumQuantity"
/// The key path of a workout's minimum of a quantity type (`…minimumQuantity:`).
public let HKPredicateKeyPathWorkoutMinimumQuantity = "minimumQuantity"
/// The key path of a workout's maximum of a quantity type (`…maximumQuantity:`).
public let HKPredicateKeyPathWorkoutMaximumQuantity = "maximumQuantity"
/// The key path of a workout's average of a quantity type (`…averageQuantity:`).
public let HKPredicateKeyPathWorkoutAverageQuantity = "averageQuantity"

/// The key path of a workout's activities (`HKQuery.predicateForWorkouts(activityPredicate:)`).
public let HKPredicateKeyPathWorkoutActivity = "workoutActivity"
/// The key path of an activity's type (`HKQuery.predicateForWorkoutActivities(workoutActivityType:)`).
public let HKPredicateKeyPathWorkoutActivityType = "activityType"
/// The key path of an activity's start date (`HKQuery.predicateForWorkoutActivities(start:end:options:)`).
public let HKPredicateKeyPathWorkoutActivityStartDate = "activityStartDate"
/// The key path of an activity's end date (`HKQuery.predicateForWorkoutActivities(start:end:options:)`).
public let HKPredicateKeyPathWorkoutActivityEndDate = "activityEndDate"
/// The key path of an activity's duration (`HKQuery.predicateForWorkoutActivities(operatorType:duration:)`).
public let HKPredicateKeyPathWorkoutActivityDuration = "activityDuration"
/// The key path of an activity's sum of a quantity type (`…predicateForWorkoutActivities(operatorType:quantityType:sumQuantity:)`).
public let HKPredicateKeyPathWorkoutActivitySumQuantity = "activitySumQuantity"
/// The key path of an activity's minimum of a quantity type (`…minimumQuantity:`).
public let HKPredicateKeyPathWorkoutActivityMinimumQuantity = "activityMinimumQuantity"
/// The key path of an activity's maximum of a quantity type (`…maximumQuantity:`).
public let HKPredicateKeyPathWorkoutActivityMaximumQuantity = "activityMaximumQuantity"
/// The key path of an activity's average of a quantity type (`…averageQuantity:`).
public let HKPredicateKeyPathWorkoutActivityAverageQuantity = "activityAverageQuantity"

/// The key path of a statistic's sum in a predicate over statistics.
public let HKPredicateKeyPathSum = "quantity"
/// The key path of a statistic's average in a predicate over statistics.
public let HKPredicateKeyPathAverage = "quantity"
/// The key path of a statistic's minimum in a predicate over statistics.
public let HKPredicateKeyPathMin = "min"
/// The key path of a statistic's maximum in a predicate over statistics.
public let HKPredicateKeyPathMax = "max"
/// The key path of a statistic's most recent quantity in a predicate over statistics.
public let HKPredicateKeyPathMostRecent = "most_recent"
/// The key path of the start date of a statistic's most recent quantity.
public let HKPredicateKeyPathMostRecentStartDate = "most_recent_start_date"
/// The key path of the end date of a statistic's most recent quantity.
public let HKPredicateKeyPathMostRecentEndDate = "most_recent_end_date"
/// The key path of the duration of a statistic's most recent quantity.
public let HKPredicateKeyPathMostRecentDuration = "most_recent_duration"
/// The key path of a quantity sample's count (the quantities of a series).
public let HKPredicateKeyPathCount = "count"

/// The key path of a clinical record's FHIR resource type (`HKQuery.predicateForClinicalRecords(withFHIRResourceType:)`).
public let HKPredicateKeyPathClinicalRecordFHIRResourceType = "FHIRResource.resourceType"
/// The key path of a clinical record's FHIR resource identifier
/// (`HKQuery.predicateForClinicalRecords(from:fhirResourceType:identifier:)`).
public let HKPredicateKeyPathClinicalRecordFHIRResourceIdentifier = "FHIRResource.identifier"

/// The key path of a CDA document's title. OpenHealthKit keeps no CDA documents (see docs/semantics.md).
public let HKPredicateKeyPathCDATitle = "title"
/// The key path of a CDA document's patient name. OpenHealthKit keeps no CDA documents.
public let HKPredicateKeyPathCDAPatientName = "patient_name"
/// The key path of a CDA document's author name. OpenHealthKit keeps no CDA documents.
public let HKPredicateKeyPathCDAAuthorName = "author_name"
/// The key path of a CDA document's custodian name. OpenHealthKit keeps no CDA documents.
public let HKPredicateKeyPathCDACustodianName = "custodian_name"
