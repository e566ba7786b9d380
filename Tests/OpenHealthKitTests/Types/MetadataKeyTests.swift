import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Metadata keys and value enums")
struct MetadataKeyTests {
    /// Raw strings as HealthKit's binaries hold them; many are not the constant's name.
    static let keys: [(String, String)] = [
        (HKMetadataKeySyncIdentifier, "HKMetadataKeySyncIdentifier"),
        (HKMetadataKeySyncVersion, "HKMetadataKeySyncVersion"),
        (HKMetadataKeyExternalUUID, "HKExternalUUID"),
        (HKMetadataKeyWasUserEntered, "HKWasUserEntered"),
        (HKMetadataKeyTimeZone, "HKTimeZone"),
        (HKMetadataKeyDeviceName, "HKDeviceName"),
        (HKMetadataKeyDeviceManufacturerName, "HKDeviceManufacturerName"),
        (HKMetadataKeyDeviceSerialNumber, "HKDeviceSerialNumber"),
        (HKMetadataKeyWasTakenInLab, "HKWasTakenInLab"),
        (HKMetadataKeyReferenceRangeLowerLimit, "HKReferenceRangeLowerLimit"),
        (HKMetadataKeyHeartRateMotionContext, "HKMetadataKeyHeartRateMotionContext"),
        (HKMetadataKeyHeartRateSensorLocation, "HKHeartRateSensorLocation"),
        (HKMetadataKeyBloodGlucoseMealTime, "HKBloodGlucoseMealTime"),
        (HKMetadataKeyInsulinDeliveryReason, "HKInsulinDeliveryReason"),
        (HKMetadataKeyIndoorWorkout, "HKIndoorWorkout"),
        (HKMetadataKeyWeatherTemperature, "HKWeatherTemperature"),
        (HKMetadataKeyWeatherHumidity, "HKWeatherHumidity"),
        (HKMetadataKeyAverageSpeed, "HKAverageSpeed"),
        (HKMetadataKeyElevationAscended, "HKElevationAscended"),
        (HKMetadataKeyLapLength, "HKLapLength"),
        (HKMetadataKeyMenstrualCycleStart, "HKMenstrualCycleStart"),
        (HKMetadataKeyVO2MaxTestType, "HKVO2MaxTestType"),
        (HKMetadataKeyHeartRateEventThreshold, "HKHeartRateEventThreshold"),
        (HKMetadataKeyAverageMETs, "HKAverageMETs"),
        (HKMetadataKeySessionEstimate, "HKMetadataKeySessionEstimate"),
        (HKMetadataKeyAudioExposureLevel, "HKMetadataKeyAudioExposureLevel"),
        (HKMetadataKeyAppleDeviceCalibrated, "HKMetadataKeyAppleDeviceCalibrated"),
        (HKMetadataKeyDigitalSignature, "HKDigitalSignature"),
        (HKMetadataKeyUDIDeviceIdentifier, "HKUDIDeviceIdentifier"),
        (HKMetadataKeyCyclingFunctionalThresholdPowerTestType, "HKCyclingCyclingFunctionalThresholdPowerTestType"),
        (HKMetadataKeyActivityType, "HKActivityType"),
        (HKMetadataKeyMaximumLightIntensity, "HKMetadataKeyMaximumLightIntensity"),
        (HKMetadataKeyAppleFitnessPlusCatalogIdentifier, "HKMetadataKeyAppleFitnessPlusCatalogIdentifier"),
    ]

    @Test("Raw strings match HealthKit", arguments: keys)
    func rawString(actual: String, expected: String) {
        #expect(actual == expected)
    }

    @Test("All 71 keys are distinct and HK-prefixed")
    func catalog() {
        let all = MetadataKeyCatalog.all
        #expect(all.count == 71)
        #expect(Set(all).count == all.count)
        #expect(all.allSatisfy { $0.hasPrefix("HK") })
    }

    /// (label, actual, HealthKit's raw value)
    static let enumRawValues: [(String, Int, Int)] = [
        ("HR motion notSet", HKHeartRateMotionContext.notSet.rawValue, 0),
        ("HR motion active", HKHeartRateMotionContext.active.rawValue, 2),
        ("user motion stationary", HKUserMotionContext.stationary.rawValue, 1),
        ("meal preprandial", HKBloodGlucoseMealTime.preprandial.rawValue, 1),
        ("meal postprandial", HKBloodGlucoseMealTime.postprandial.rawValue, 2),
        ("insulin basal", HKInsulinDeliveryReason.basal.rawValue, 1),
        ("insulin bolus", HKInsulinDeliveryReason.bolus.rawValue, 2),
        ("HR sensor other", HKHeartRateSensorLocation.other.rawValue, 0),
        ("HR sensor earLobe", HKHeartRateSensorLocation.earLobe.rawValue, 5),
        ("HR sensor foot", HKHeartRateSensorLocation.foot.rawValue, 6),
        ("temp gastroIntestinal", HKBodyTemperatureSensorLocation.gastroIntestinal.rawValue, 5),
        ("temp forehead", HKBodyTemperatureSensorLocation.forehead.rawValue, 11),
        ("weather none", HKWeatherCondition.none.rawValue, 0),
        ("weather partlyCloudy", HKWeatherCondition.partlyCloudy.rawValue, 3),
        ("weather tornado", HKWeatherCondition.tornado.rawValue, 27),
        ("stroke freestyle", HKSwimmingStrokeStyle.freestyle.rawValue, 2),
        ("stroke kickboard", HKSwimmingStrokeStyle.kickboard.rawValue, 6),
        ("swim openWater", HKWorkoutSwimmingLocationType.openWater.rawValue, 2),
        ("VO2 maxExercise", HKVO2MaxTestType.maxExercise.rawValue, 1),
        ("VO2 predictionNonExercise", HKVO2MaxTestType.predictionNonExercise.rawValue, 3),
        ("HRR predictionSubMaxExercise", HKHeartRateRecoveryTestType.predictionSubMaxExercise.rawValue, 2),
        ("ECG version2", HKAppleECGAlgorithmVersion.version2.rawValue, 2),
        ("placement central", HKDevicePlacementSide.central.rawValue, 3),
        ("salinity saltWater", HKWaterSalinity.saltWater.rawValue, 2),
        ("FTP rampTest", HKCyclingFunctionalThresholdPowerTestType.rampTest.rawValue, 3),
        ("effort deviceSensed", HKPhysicalEffortEstimationType.deviceSensed.rawValue, 2),
    ]

    @Test("Metadata value enums carry HealthKit's raw values", arguments: enumRawValues)
    func enumRawValue(label: String, actual: Int, expected: Int) {
        #expect(actual == expected, "\(label)")
    }

    @Test("Metadata value enum case counts")
    func enumCounts() {
        #expect(HKWeatherCondition.allCases.count == 28)
        #expect(HKBodyTemperatureSensorLocation.allCases.count == 12)
        #expect(HKHeartRateSensorLocation.allCases.count == 7)
        #expect(HKSwimmingStrokeStyle.allCases.count == 7)
        #expect(HKWeatherCondition.allCases.map(\.rawValue) == Array(0...27))
    }
}
