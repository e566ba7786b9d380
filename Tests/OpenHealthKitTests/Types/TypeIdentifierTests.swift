import Foundation
import Testing
@testable import OpenHealthKit

@Suite("Type identifiers")
struct TypeIdentifierTests {
    /// Raw values as HealthKit's binaries and SDK headers give them.
    static let quantityRawValues: [(HKQuantityTypeIdentifier, String)] = [
        (.stepCount, "HKQuantityTypeIdentifierStepCount"),
        (.heartRate, "HKQuantityTypeIdentifierHeartRate"),
        (.vo2Max, "HKQuantityTypeIdentifierVO2Max"),
        (.heartRateVariabilitySDNN, "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"),
        (.uvExposure, "HKQuantityTypeIdentifierUVExposure"),
        (.forcedExpiratoryVolume1, "HKQuantityTypeIdentifierForcedExpiratoryVolume1"),
        (.dietaryVitaminB12, "HKQuantityTypeIdentifierDietaryVitaminB12"),
        (.dietaryVitaminB6, "HKQuantityTypeIdentifierDietaryVitaminB6"),
        (.dietaryFatPolyunsaturated, "HKQuantityTypeIdentifierDietaryFatPolyunsaturated"),
        (.dietaryPantothenicAcid, "HKQuantityTypeIdentifierDietaryPantothenicAcid"),
        (.dietaryWater, "HKQuantityTypeIdentifierDietaryWater"),
        (.distanceDownhillSnowSports, "HKQuantityTypeIdentifierDistanceDownhillSnowSports"),
        (.appleSleepingWristTemperature, "HKQuantityTypeIdentifierAppleSleepingWristTemperature"),
        (.appleSleepingBreathingDisturbances, "HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances"),
        (.sixMinuteWalkTestDistance, "HKQuantityTypeIdentifierSixMinuteWalkTestDistance"),
        (.heartRateRecoveryOneMinute, "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute"),
        (.cyclingFunctionalThresholdPower, "HKQuantityTypeIdentifierCyclingFunctionalThresholdPower"),
        (.estimatedWorkoutEffortScore, "HKQuantityTypeIdentifierEstimatedWorkoutEffortScore"),
        (.nikeFuel, "HKQuantityTypeIdentifierNikeFuel"),
        (.timeInDaylight, "HKQuantityTypeIdentifierTimeInDaylight"),
    ]

    static let categoryRawValues: [(HKCategoryTypeIdentifier, String)] = [
        (.sleepAnalysis, "HKCategoryTypeIdentifierSleepAnalysis"),
        (.appleStandHour, "HKCategoryTypeIdentifierAppleStandHour"),
        (.mindfulSession, "HKCategoryTypeIdentifierMindfulSession"),
        (.menstrualFlow, "HKCategoryTypeIdentifierMenstrualFlow"),
        (.highHeartRateEvent, "HKCategoryTypeIdentifierHighHeartRateEvent"),
        (.irregularHeartRhythmEvent, "HKCategoryTypeIdentifierIrregularHeartRhythmEvent"),
        // HealthKit keeps the iOS 13 string for the renamed environmental event.
        (.environmentalAudioExposureEvent, "HKCategoryTypeIdentifierAudioExposureEvent"),
        (.headphoneAudioExposureEvent, "HKCategoryTypeIdentifierHeadphoneAudioExposureEvent"),
        (.rapidPoundingOrFlutteringHeartbeat, "HKCategoryTypeIdentifierRapidPoundingOrFlutteringHeartbeat"),
        (.chestTightnessOrPain, "HKCategoryTypeIdentifierChestTightnessOrPain"),
        (.persistentIntermenstrualBleeding, "HKCategoryTypeIdentifierPersistentIntermenstrualBleeding"),
        (.sleepApneaEvent, "HKCategoryTypeIdentifierSleepApneaEvent"),
        (.bleedingDuringPregnancy, "HKCategoryTypeIdentifierBleedingDuringPregnancy"),
        (.appleWalkingSteadinessEvent, "HKCategoryTypeIdentifierAppleWalkingSteadinessEvent"),
    ]

    @Test("Quantity identifiers carry HealthKit's raw values", arguments: quantityRawValues)
    func quantityRawValue(identifier: HKQuantityTypeIdentifier, expected: String) {
        #expect(identifier.rawValue == expected)
    }

    @Test("Category identifiers carry HealthKit's raw values", arguments: categoryRawValues)
    func categoryRawValue(identifier: HKCategoryTypeIdentifier, expected: String) {
        #expect(identifier.rawValue == expected)
    }

    @Test("Characteristic, correlation and plain-string identifiers")
    func otherIdentifiers() {
        #expect(HKCharacteristicTypeIdentifier.biologicalSex.rawValue == "HKCharacteristicTypeIdentifierBiologicalSex")
        #expect(HKCharacteristicTypeIdentifier.bloodType.rawValue == "HKCharacteristicTypeIdentifierBloodType")
        #expect(HKCharacteristicTypeIdentifier.dateOfBirth.rawValue == "HKCharacteristicTypeIdentifierDateOfBirth")
        #expect(HKCharacteristicTypeIdentifier.fitzpatrickSkinType.rawValue == "HKCharacteristicTypeIdentifierFitzpatrickSkinType")
        #expect(HKCharacteristicTypeIdentifier.wheelchairUse.rawValue == "HKCharacteristicTypeIdentifierWheelchairUse")
        #expect(HKCharacteristicTypeIdentifier.activityMoveMode.rawValue == "HKCharacteristicTypeIdentifierActivityMoveMode")
        #expect(HKCorrelationTypeIdentifier.bloodPressure.rawValue == "HKCorrelationTypeIdentifierBloodPressure")
        #expect(HKCorrelationTypeIdentifier.food.rawValue == "HKCorrelationTypeIdentifierFood")
        #expect(HKWorkoutTypeIdentifier == "HKWorkoutTypeIdentifier")
        #expect(HKWorkoutRouteTypeIdentifier == "HKWorkoutRouteTypeIdentifier")
        #expect(HKDataTypeIdentifierHeartbeatSeries == "HKDataTypeIdentifierHeartbeatSeries")
    }

    @Test("Both initializers build equal identifiers, and unknown strings are kept")
    func initializers() {
        #expect(HKQuantityTypeIdentifier("HKQuantityTypeIdentifierStepCount") == .stepCount)
        #expect(HKQuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierStepCount") == .stepCount)
        #expect(HKCategoryTypeIdentifier("HKCategoryTypeIdentifierSleepAnalysis") == .sleepAnalysis)
        #expect(HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBloodType") == .bloodType)
        #expect(HKCorrelationTypeIdentifier("HKCorrelationTypeIdentifierFood") == .food)
        let custom = HKQuantityTypeIdentifier("com.example.Custom")
        #expect(custom.rawValue == "com.example.Custom")
        #expect(!HKQuantityTypeIdentifier.allKnown.contains(custom))
    }

    @Test("Identifier counts match HealthKit's iOS 18 header")
    func counts() {
        #expect(HKQuantityTypeIdentifier.allKnown.count == 120)
        #expect(HKQuantityTypeIdentifier.allKnown.filter { $0.rawValue.hasPrefix("HKQuantityTypeIdentifierDietary") }.count == 39)
        #expect(HKCategoryTypeIdentifier.allKnown.count == 68)
        #expect(HKCharacteristicTypeIdentifier.allKnown.count == 6)
        #expect(HKCorrelationTypeIdentifier.allKnown.count == 2)
    }

    @Test("No two known identifiers share a raw value")
    func noDuplicateRawValues() {
        let quantity = HKQuantityTypeIdentifier.allKnown.map(\.rawValue)
        #expect(Set(quantity).count == quantity.count)
        let category = HKCategoryTypeIdentifier.allKnown.map(\.rawValue)
        #expect(Set(category).count == category.count)
        let characteristic = HKCharacteristicTypeIdentifier.allKnown.map(\.rawValue)
        #expect(Set(characteristic).count == characteristic.count)
    }

    @Test("allKnown lists match the static lets declared in the sources")
    func allKnownMatchesDeclarations() throws {
        let quantity = try SourceDeclarations.constants(inTypesFile: "HKQuantityTypeIdentifier.swift", typeName: "HKQuantityTypeIdentifier")
        #expect(quantity.count == 120)
        #expect(quantity.allSatisfy { !$0.isDeprecated })
        #expect(quantity.map(\.rawValue) == HKQuantityTypeIdentifier.allKnown.map(\.rawValue))

        let category = try SourceDeclarations.constants(inTypesFile: "HKCategoryTypeIdentifier.swift", typeName: "HKCategoryTypeIdentifier")
        let current = category.filter { !$0.isDeprecated }
        #expect(current.map(\.rawValue) == HKCategoryTypeIdentifier.allKnown.map(\.rawValue))
        #expect(category.filter(\.isDeprecated).map(\.name) == ["audioExposureEvent"])
    }

    @Test("Raw values spell the Swift name after the type prefix (ignoring case)")
    func rawValuesFollowNames() throws {
        let quantity = try SourceDeclarations.constants(inTypesFile: "HKQuantityTypeIdentifier.swift", typeName: "HKQuantityTypeIdentifier")
        for constant in quantity {
            #expect(constant.rawValue.lowercased() == ("HKQuantityTypeIdentifier" + constant.name).lowercased(), "\(constant.name)")
        }
        let category = try SourceDeclarations.constants(inTypesFile: "HKCategoryTypeIdentifier.swift", typeName: "HKCategoryTypeIdentifier")
        for constant in category where constant.name != "environmentalAudioExposureEvent" {
            #expect(constant.rawValue.lowercased() == ("HKCategoryTypeIdentifier" + constant.name).lowercased(), "\(constant.name)")
        }
    }
}
