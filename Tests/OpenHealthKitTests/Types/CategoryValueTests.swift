import Foundation
import Testing
@testable import OpenHealthKit

/// Calls the deprecated aliases through a protocol so the test target builds without warnings.
private protocol DeprecatedAliasProvider {
    static func aliasRawValues() -> [String: Int]
}

private enum DeprecatedAliases: DeprecatedAliasProvider {
    @available(*, deprecated)
    static func aliasRawValues() -> [String: Int] {
        [
            "HKCategoryValueSleepAnalysis.asleep": HKCategoryValueSleepAnalysis.asleep.rawValue,
            "HKCategoryValueOvulationTestResult.positive": HKCategoryValueOvulationTestResult.positive.rawValue,
            "HKQuantityAggregationStyle.discrete": HKQuantityAggregationStyle.discrete.rawValue,
            "HKCategoryValueAudioExposureEvent.loudEnvironment": HKCategoryValueAudioExposureEvent.loudEnvironment.rawValue,
            "HKWorkoutActivityType.dance": Int(HKWorkoutActivityType.dance.rawValue),
            "HKWorkoutActivityType.danceInspiredTraining": Int(HKWorkoutActivityType.danceInspiredTraining.rawValue),
            "HKWorkoutActivityType.mixedMetabolicCardioTraining": Int(HKWorkoutActivityType.mixedMetabolicCardioTraining.rawValue),
            "HKCategoryTypeIdentifier.audioExposureEvent":
                HKCategoryTypeIdentifier.audioExposureEvent == .environmentalAudioExposureEvent ? 1 : 0,
        ]
    }
}

private func aliasRawValues<P: DeprecatedAliasProvider>(from provider: P.Type) -> [String: Int] {
    provider.aliasRawValues()
}

@Suite("Category and other value enums")
struct CategoryValueTests {
    /// (description, actual raw value, HealthKit's raw value)
    static let rawValues: [(String, Int, Int)] = [
        ("notApplicable", HKCategoryValue.notApplicable.rawValue, 0),
        ("sleep inBed", HKCategoryValueSleepAnalysis.inBed.rawValue, 0),
        ("sleep asleepUnspecified", HKCategoryValueSleepAnalysis.asleepUnspecified.rawValue, 1),
        ("sleep awake", HKCategoryValueSleepAnalysis.awake.rawValue, 2),
        ("sleep asleepCore", HKCategoryValueSleepAnalysis.asleepCore.rawValue, 3),
        ("sleep asleepDeep", HKCategoryValueSleepAnalysis.asleepDeep.rawValue, 4),
        ("sleep asleepREM", HKCategoryValueSleepAnalysis.asleepREM.rawValue, 5),
        ("stand stood", HKCategoryValueAppleStandHour.stood.rawValue, 0),
        ("stand idle", HKCategoryValueAppleStandHour.idle.rawValue, 1),
        ("flow unspecified", HKCategoryValueMenstrualFlow.unspecified.rawValue, 1),
        ("flow heavy", HKCategoryValueMenstrualFlow.heavy.rawValue, 4),
        ("flow none", HKCategoryValueMenstrualFlow.none.rawValue, 5),
        ("bleeding none", HKCategoryValueVaginalBleeding.none.rawValue, 5),
        ("mucus dry", HKCategoryValueCervicalMucusQuality.dry.rawValue, 1),
        ("mucus eggWhite", HKCategoryValueCervicalMucusQuality.eggWhite.rawValue, 5),
        ("ovulation negative", HKCategoryValueOvulationTestResult.negative.rawValue, 1),
        ("ovulation LH surge", HKCategoryValueOvulationTestResult.luteinizingHormoneSurge.rawValue, 2),
        ("ovulation indeterminate", HKCategoryValueOvulationTestResult.indeterminate.rawValue, 3),
        ("ovulation estrogen surge", HKCategoryValueOvulationTestResult.estrogenSurge.rawValue, 4),
        ("severity unspecified", HKCategoryValueSeverity.unspecified.rawValue, 0),
        ("severity notPresent", HKCategoryValueSeverity.notPresent.rawValue, 1),
        ("severity severe", HKCategoryValueSeverity.severe.rawValue, 4),
        ("presence present", HKCategoryValuePresence.present.rawValue, 0),
        ("presence notPresent", HKCategoryValuePresence.notPresent.rawValue, 1),
        ("appetite increased", HKCategoryValueAppetiteChanges.increased.rawValue, 3),
        ("environmental momentaryLimit", HKCategoryValueEnvironmentalAudioExposureEvent.momentaryLimit.rawValue, 1),
        ("headphone sevenDayLimit", HKCategoryValueHeadphoneAudioExposureEvent.sevenDayLimit.rawValue, 1),
        ("cardio lowFitness", HKCategoryValueLowCardioFitnessEvent.lowFitness.rawValue, 1),
        ("steadiness repeatVeryLow", HKCategoryValueAppleWalkingSteadinessEvent.repeatVeryLow.rawValue, 4),
        ("pregnancy test positive", HKCategoryValuePregnancyTestResult.positive.rawValue, 2),
        ("progesterone indeterminate", HKCategoryValueProgesteroneTestResult.indeterminate.rawValue, 3),
        ("contraceptive unspecified", HKCategoryValueContraceptive.unspecified.rawValue, 1),
        ("contraceptive patch", HKCategoryValueContraceptive.patch.rawValue, 7),
        ("aggregation cumulative", HKQuantityAggregationStyle.cumulative.rawValue, 0),
        ("aggregation arithmetic", HKQuantityAggregationStyle.discreteArithmetic.rawValue, 1),
        ("aggregation temporally weighted", HKQuantityAggregationStyle.discreteTemporallyWeighted.rawValue, 2),
        ("aggregation equivalent level", HKQuantityAggregationStyle.discreteEquivalentContinuousLevel.rawValue, 3),
        ("auth notDetermined", HKAuthorizationStatus.notDetermined.rawValue, 0),
        ("auth sharingDenied", HKAuthorizationStatus.sharingDenied.rawValue, 1),
        ("auth sharingAuthorized", HKAuthorizationStatus.sharingAuthorized.rawValue, 2),
        ("request unknown", HKAuthorizationRequestStatus.unknown.rawValue, 0),
        ("request shouldRequest", HKAuthorizationRequestStatus.shouldRequest.rawValue, 1),
        ("request unnecessary", HKAuthorizationRequestStatus.unnecessary.rawValue, 2),
    ]

    @Test("Raw values match HealthKit", arguments: rawValues)
    func rawValue(label: String, actual: Int, expected: Int) {
        #expect(actual == expected, "\(label)")
    }

    @Test("Case counts match HealthKit")
    func caseCounts() {
        #expect(HKCategoryValueSleepAnalysis.allCases.count == 6)
        #expect(HKCategoryValueSeverity.allCases.count == 5)
        #expect(HKCategoryValueMenstrualFlow.allCases.count == 5)
        #expect(HKCategoryValueVaginalBleeding.allCases.count == 5)
        #expect(HKCategoryValueContraceptive.allCases.count == 7)
        #expect(HKCategoryValueOvulationTestResult.allCases.count == 4)
        #expect(HKQuantityAggregationStyle.allCases.count == 4)
    }

    @Test("Menstrual flow and vaginal bleeding share raw values")
    func flowMatchesBleeding() {
        #expect(HKCategoryValueMenstrualFlow.allCases.map(\.rawValue) == HKCategoryValueVaginalBleeding.allCases.map(\.rawValue))
    }

    @Test("Deprecated aliases point at their replacements")
    func deprecatedAliases() {
        let values = aliasRawValues(from: DeprecatedAliases.self)
        #expect(values["HKCategoryValueSleepAnalysis.asleep"] == 1)
        #expect(values["HKCategoryValueOvulationTestResult.positive"] == 2)
        #expect(values["HKQuantityAggregationStyle.discrete"] == 1)
        #expect(values["HKCategoryValueAudioExposureEvent.loudEnvironment"] == 1)
        #expect(values["HKWorkoutActivityType.dance"] == 14)
        #expect(values["HKWorkoutActivityType.danceInspiredTraining"] == 15)
        #expect(values["HKWorkoutActivityType.mixedMetabolicCardioTraining"] == 30)
        #expect(values["HKCategoryTypeIdentifier.audioExposureEvent"] == 1)
    }
}
