import Foundation

// Metadata keys, as declared in HealthKit's `HKMetadata.h` (iOS 18.1).
//
// The raw strings are HealthKit's own, not the constant names: many older keys drop the
// `MetadataKey` infix (`HKMetadataKeyTimeZone` is `"HKTimeZone"`), while newer ones keep it
// (`HKMetadataKeySyncIdentifier` is `"HKMetadataKeySyncIdentifier"`). Values were read out of
// HealthKit binaries (iOS shared caches and macOS 26) and agree with Apple Health exports.

/// Serial number of the device that created the object (String).
public let HKMetadataKeyDeviceSerialNumber = "HKDeviceSerialNumber"

/// Where a body temperature reading was taken (NSNumber of `HKBodyTemperatureSensorLocation`).
public let HKMetadataKeyBodyTemperatureSensorLocation = "HKBodyTemperatureSensorLocation"

/// Where a heart rate reading was taken (NSNumber of `HKHeartRateSensorLocation`).
public let HKMetadataKeyHeartRateSensorLocation = "HKHeartRateSensorLocation"

/// Motion context of a heart rate reading (NSNumber of `HKHeartRateMotionContext`).
public let HKMetadataKeyHeartRateMotionContext = "HKMetadataKeyHeartRateMotionContext"

/// The user's motion when the sample was taken (NSNumber of `HKUserMotionContext`).
public let HKMetadataKeyUserMotionContext = "HKMetadataKeyUserMotionContext"

/// Per-session estimate before longitudinal smoothing (HKQuantity).
public let HKMetadataKeySessionEstimate = "HKMetadataKeySessionEstimate"

/// Test used for a heart rate recovery value (NSNumber of `HKHeartRateRecoveryTestType`).
public let HKMetadataKeyHeartRateRecoveryTestType = "HKMetadataKeyHeartRateRecoveryTestType"

/// Activity preceding a heart rate recovery value (NSNumber of `HKWorkoutActivityType`).
public let HKMetadataKeyHeartRateRecoveryActivityType = "HKMetadataKeyHeartRateRecoveryActivityType"

/// Duration of the activity preceding a heart rate recovery value (HKQuantity, time).
public let HKMetadataKeyHeartRateRecoveryActivityDuration = "HKMetadataKeyHeartRateRecoveryActivityDuration"

/// Maximum heart rate observed during a heart rate recovery interval (HKQuantity, count/min).
public let HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate = "HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate"

/// Short description of the food consumed, e.g. "Banana" (String).
public let HKMetadataKeyFoodType = "HKFoodType"

/// Device identifier portion of a UDI (String).
public let HKMetadataKeyUDIDeviceIdentifier = "HKUDIDeviceIdentifier"

/// Production identifier portion of a UDI (String).
public let HKMetadataKeyUDIProductionIdentifier = "HKUDIProductionIdentifier"

/// Base64 CMS signature over the sample's values (String).
public let HKMetadataKeyDigitalSignature = "HKDigitalSignature"

/// Identifier set by the source; uniqueness is not enforced (String).
public let HKMetadataKeyExternalUUID = "HKExternalUUID"

/// Source-set identifier used to replace older versions of an object (String).
public let HKMetadataKeySyncIdentifier = "HKMetadataKeySyncIdentifier"

/// Version paired with `HKMetadataKeySyncIdentifier`; higher replaces lower (NSNumber).
public let HKMetadataKeySyncVersion = "HKMetadataKeySyncVersion"

/// Time zone name the user was in when the object was created (String).
public let HKMetadataKeyTimeZone = "HKTimeZone"

/// Name of the device that took the reading (String).
public let HKMetadataKeyDeviceName = "HKDeviceName"

/// Manufacturer of the device that took the reading (String).
public let HKMetadataKeyDeviceManufacturerName = "HKDeviceManufacturerName"

/// Whether the reading was taken in a lab (Bool).
public let HKMetadataKeyWasTakenInLab = "HKWasTakenInLab"

/// Lower limit of a lab result's reference range (NSNumber).
public let HKMetadataKeyReferenceRangeLowerLimit = "HKReferenceRangeLowerLimit"

/// Upper limit of a lab result's reference range (NSNumber).
public let HKMetadataKeyReferenceRangeUpperLimit = "HKReferenceRangeUpperLimit"

/// Whether the user entered the value manually (Bool).
public let HKMetadataKeyWasUserEntered = "HKWasUserEntered"

/// Brand name of a workout (String).
public let HKMetadataKeyWorkoutBrandName = "HKWorkoutBrandName"

/// Catalog identifier of the Apple Fitness+ workout a workout followed (String; iOS 18.2).
public let HKMetadataKeyAppleFitnessPlusCatalogIdentifier = "HKMetadataKeyAppleFitnessPlusCatalogIdentifier"

/// Whether the workout was part of a group fitness class (Bool).
public let HKMetadataKeyGroupFitness = "HKGroupFitness"

/// Whether the workout is a Fitness+ workout (Bool).
public let HKMetadataKeyAppleFitnessPlusSession = "HKMetadataKeyAppleFitnessPlusSession"

/// Whether the workout was performed indoors (Bool).
public let HKMetadataKeyIndoorWorkout = "HKIndoorWorkout"

/// Whether the workout was performed with a coach (Bool).
public let HKMetadataKeyCoachedWorkout = "HKCoachedWorkout"

/// Weather condition during the sample (NSNumber of `HKWeatherCondition`).
public let HKMetadataKeyWeatherCondition = "HKWeatherCondition"

/// Weather temperature during the sample (HKQuantity, temperature).
public let HKMetadataKeyWeatherTemperature = "HKWeatherTemperature"

/// Weather humidity during the sample (HKQuantity, percent).
public let HKMetadataKeyWeatherHumidity = "HKWeatherHumidity"

/// Whether protection was used during sexual activity (Bool).
public let HKMetadataKeySexualActivityProtectionUsed = "HKSexualActivityProtectionUsed"

/// Whether the sample starts a menstrual cycle; required for menstrual flow (Bool).
public let HKMetadataKeyMenstrualCycleStart = "HKMenstrualCycleStart"

/// Length of a lap recorded during a workout (HKQuantity, length).
public let HKMetadataKeyLapLength = "HKLapLength"

/// Swimming location type (NSNumber of `HKWorkoutSwimmingLocationType`).
public let HKMetadataKeySwimmingLocationType = "HKSwimmingLocationType"

/// Predominant stroke style of a lap (NSNumber of `HKSwimmingStrokeStyle`).
public let HKMetadataKeySwimmingStrokeStyle = "HKSwimmingStrokeStyle"

/// Reason for an insulin dose; required for insulin delivery (NSNumber of `HKInsulinDeliveryReason`).
public let HKMetadataKeyInsulinDeliveryReason = "HKInsulinDeliveryReason"

/// Timing of a blood glucose reading relative to a meal (NSNumber of `HKBloodGlucoseMealTime`).
public let HKMetadataKeyBloodGlucoseMealTime = "HKBloodGlucoseMealTime"

/// Test used to create a VO2 max sample (NSNumber of `HKVO2MaxTestType`).
public let HKMetadataKeyVO2MaxTestType = "HKVO2MaxTestType"

/// Average moving speed of a workout segment or distance sample (HKQuantity, speed).
public let HKMetadataKeyAverageSpeed = "HKAverageSpeed"

/// Maximum speed of a workout segment or distance sample (HKQuantity, speed).
public let HKMetadataKeyMaximumSpeed = "HKMaximumSpeed"

/// Grade of a ski run; 100% is a 45 degree slope (HKQuantity, percent).
public let HKMetadataKeyAlpineSlopeGrade = "HKAlpineSlopeGrade"

/// Cumulative elevation ascent (HKQuantity, length).
public let HKMetadataKeyElevationAscended = "HKElevationAscended"

/// Cumulative elevation descent (HKQuantity, length).
public let HKMetadataKeyElevationDescended = "HKElevationDescended"

/// Workout duration as shown by a GymKit fitness machine (HKQuantity, time).
public let HKMetadataKeyFitnessMachineDuration = "HKFitnessMachineDuration"

/// Distance covered during an indoor bike workout (HKQuantity, length).
public let HKMetadataKeyIndoorBikeDistance = "HKIndoorBikeDistance"

/// Distance covered during a cross trainer workout (HKQuantity, length).
public let HKMetadataKeyCrossTrainerDistance = "HKCrossTrainerDistance"

/// Threshold heart rate that triggered a heart rate event (HKQuantity, count/min).
public let HKMetadataKeyHeartRateEventThreshold = "HKHeartRateEventThreshold"

/// Average METs over a workout (HKQuantity, kcal/(kg*hr)).
public let HKMetadataKeyAverageMETs = "HKAverageMETs"

/// Audio level associated with an audio event (HKQuantity, dBASPL).
public let HKMetadataKeyAudioExposureLevel = "HKMetadataKeyAudioExposureLevel"

/// Duration covered by audio samples (HKQuantity, time).
public let HKMetadataKeyAudioExposureDuration = "HKMetadataKeyAudioExposureDuration"

/// ECG algorithm version (NSNumber of `HKAppleECGAlgorithmVersion`).
public let HKMetadataKeyAppleECGAlgorithmVersion = "HKMetadataKeyAppleECGAlgorithmVersion"

/// Detected device placement during walking (NSNumber of `HKDevicePlacementSide`).
public let HKMetadataKeyDevicePlacementSide = "HKMetadataKeyDevicePlacementSide"

/// Barometric pressure at the time of the sample (HKQuantity, pressure).
public let HKMetadataKeyBarometricPressure = "HKMetadataKeyBarometricPressure"

/// Whether the value was estimated with sufficient calibration data (Bool, read-only).
public let HKMetadataKeyAppleDeviceCalibrated = "HKMetadataKeyAppleDeviceCalibrated"

/// A VO2 max value associated with e.g. a cardio fitness event (HKQuantity, ml/(kg*min)).
public let HKMetadataKeyVO2MaxValue = "HKVO2MaxValue"

/// Threshold used to classify VO2 max values as low (HKQuantity, ml/(kg*min)).
public let HKMetadataKeyLowCardioFitnessEventThreshold = "HKLowCardioFitnessEventThreshold"

/// Earliest date of data used for an estimate (Date).
public let HKMetadataKeyDateOfEarliestDataUsedForEstimate = "HKDateOfEarliestDataUsedForEstimate"

/// Version of the algorithm that generated the sample (NSNumber).
public let HKMetadataKeyAlgorithmVersion = "HKAlgorithmVersion"

/// Strokes per length plus time per length for swimming (NSNumber).
public let HKMetadataKeySWOLFScore = "HKSWOLFScore"

/// Whether the quantity was clamped to a lower bound (Bool).
public let HKMetadataKeyQuantityClampedToLowerBound = "HKMetadataKeyQuantityClampedToLowerBound"

/// Whether the quantity was clamped to an upper bound (Bool).
public let HKMetadataKeyQuantityClampedToUpperBound = "HKMetadataKeyQuantityClampedToUpperBound"

/// Purpose of a glasses prescription (String).
public let HKMetadataKeyGlassesPrescriptionDescription = "HKMetadataKeyGlassesPrescriptionDescription"

/// Water salinity for underwater depth or water temperature (NSNumber of `HKWaterSalinity`).
public let HKMetadataKeyWaterSalinity = "HKMetadataKeyWaterSalinity"

/// Headphone gain associated with a headphone audio exposure event (HKQuantity, dBASPL).
public let HKMetadataKeyHeadphoneGain = "HKMetadataKeyHeadphoneGain"

/// Test used for a cycling FTP value (NSNumber of `HKCyclingFunctionalThresholdPowerTestType`). The doubled "Cycling" in the raw value is Apple's.
public let HKMetadataKeyCyclingFunctionalThresholdPowerTestType = "HKCyclingCyclingFunctionalThresholdPowerTestType"

/// Activity type related to the sample (NSNumber of `HKWorkoutActivityType`).
public let HKMetadataKeyActivityType = "HKActivityType"

/// Estimation used for a physical effort sample (NSNumber of `HKPhysicalEffortEstimationType`).
public let HKMetadataKeyPhysicalEffortEstimationType = "HKPhysicalEffortEstimationType"

/// Maximum light intensity for a time-in-daylight sample (HKQuantity, lux).
public let HKMetadataKeyMaximumLightIntensity = "HKMetadataKeyMaximumLightIntensity"

/// Every public metadata key above, for validation and tests.
enum MetadataKeyCatalog {
    /// All known keys' raw strings, in header order.
    static let all: [String] = [
        HKMetadataKeyDeviceSerialNumber,
        HKMetadataKeyBodyTemperatureSensorLocation,
        HKMetadataKeyHeartRateSensorLocation,
        HKMetadataKeyHeartRateMotionContext,
        HKMetadataKeyUserMotionContext,
        HKMetadataKeySessionEstimate,
        HKMetadataKeyHeartRateRecoveryTestType,
        HKMetadataKeyHeartRateRecoveryActivityType,
        HKMetadataKeyHeartRateRecoveryActivityDuration,
        HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate,
        HKMetadataKeyFoodType,
        HKMetadataKeyUDIDeviceIdentifier,
        HKMetadataKeyUDIProductionIdentifier,
        HKMetadataKeyDigitalSignature,
        HKMetadataKeyExternalUUID,
        HKMetadataKeySyncIdentifier,
        HKMetadataKeySyncVersion,
        HKMetadataKeyTimeZone,
        HKMetadataKeyDeviceName,
        HKMetadataKeyDeviceManufacturerName,
        HKMetadataKeyWasTakenInLab,
        HKMetadataKeyReferenceRangeLowerLimit,
        HKMetadataKeyReferenceRangeUpperLimit,
        HKMetadataKeyWasUserEntered,
        HKMetadataKeyWorkoutBrandName,
        HKMetadataKeyAppleFitnessPlusCatalogIdentifier,
        HKMetadataKeyGroupFitness,
        HKMetadataKeyAppleFitnessPlusSession,
        HKMetadataKeyIndoorWorkout,
        HKMetadataKeyCoachedWorkout,
        HKMetadataKeyWeatherCondition,
        HKMetadataKeyWeatherTemperature,
        HKMetadataKeyWeatherHumidity,
        HKMetadataKeySexualActivityProtectionUsed,
        HKMetadataKeyMenstrualCycleStart,
        HKMetadataKeyLapLength,
        HKMetadataKeySwimmingLocationType,
        HKMetadataKeySwimmingStrokeStyle,
        HKMetadataKeyInsulinDeliveryReason,
        HKMetadataKeyBloodGlucoseMealTime,
        HKMetadataKeyVO2MaxTestType,
        HKMetadataKeyAverageSpeed,
        HKMetadataKeyMaximumSpeed,
        HKMetadataKeyAlpineSlopeGrade,
        HKMetadataKeyElevationAscended,
        HKMetadataKeyElevationDescended,
        HKMetadataKeyFitnessMachineDuration,
        HKMetadataKeyIndoorBikeDistance,
        HKMetadataKeyCrossTrainerDistance,
        HKMetadataKeyHeartRateEventThreshold,
        HKMetadataKeyAverageMETs,
        HKMetadataKeyAudioExposureLevel,
        HKMetadataKeyAudioExposureDuration,
        HKMetadataKeyAppleECGAlgorithmVersion,
        HKMetadataKeyDevicePlacementSide,
        HKMetadataKeyBarometricPressure,
        HKMetadataKeyAppleDeviceCalibrated,
        HKMetadataKeyVO2MaxValue,
        HKMetadataKeyLowCardioFitnessEventThreshold,
        HKMetadataKeyDateOfEarliestDataUsedForEstimate,
        HKMetadataKeyAlgorithmVersion,
        HKMetadataKeySWOLFScore,
        HKMetadataKeyQuantityClampedToLowerBound,
        HKMetadataKeyQuantityClampedToUpperBound,
        HKMetadataKeyGlassesPrescriptionDescription,
        HKMetadataKeyWaterSalinity,
        HKMetadataKeyHeadphoneGain,
        HKMetadataKeyCyclingFunctionalThresholdPowerTestType,
        HKMetadataKeyActivityType,
        HKMetadataKeyPhysicalEffortEstimationType,
        HKMetadataKeyMaximumLightIntensity,
    ]
}
