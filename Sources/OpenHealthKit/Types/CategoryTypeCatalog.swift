import Foundation

/// Which integer values each category type accepts, following the value enum named for it in
/// `HKTypeIdentifiers.h` (iOS 18.1).
///
/// Types whose values are `HKCategoryValue` accept only `HKCategoryValue.notApplicable` (0).
/// Menstrual flow and the pregnancy bleeding types take `HKCategoryValueVaginalBleeding`, whose
/// raw values are the same as the older `HKCategoryValueMenstrualFlow`.
enum CategoryTypeCatalog {
    /// The allowed values for a category type, or `nil` for an identifier HealthKit does not define.
    static func allowedValues(for identifier: HKCategoryTypeIdentifier) -> Set<Int>? {
        table[identifier]
    }

    /// The value enum HealthKit names for a category type, e.g. `"HKCategoryValueSeverity"`.
    static func valueEnumName(for identifier: HKCategoryTypeIdentifier) -> String? {
        enumNames[identifier]
    }

    private static func values<E: RawRepresentable & CaseIterable>(_ type: E.Type) -> Set<Int> where E.RawValue == Int {
        Set(type.allCases.map(\.rawValue))
    }

    private static let groups: [(enumName: String, values: Set<Int>, identifiers: [HKCategoryTypeIdentifier])] = [
        (
            "HKCategoryValue", values(HKCategoryValue.self),
            [
                .highHeartRateEvent, .irregularHeartRhythmEvent, .lowHeartRateEvent, .mindfulSession, .handwashingEvent,
                .toothbrushingEvent, .infrequentMenstrualCycles, .intermenstrualBleeding, .irregularMenstrualCycles, .lactation,
                .persistentIntermenstrualBleeding, .pregnancy, .prolongedMenstrualPeriods, .sexualActivity, .sleepApneaEvent,
            ]
        ),
        ("HKCategoryValueSleepAnalysis", values(HKCategoryValueSleepAnalysis.self), [.sleepAnalysis]),
        ("HKCategoryValueAppleStandHour", values(HKCategoryValueAppleStandHour.self), [.appleStandHour]),
        ("HKCategoryValueVaginalBleeding", values(HKCategoryValueVaginalBleeding.self), [.bleedingAfterPregnancy, .bleedingDuringPregnancy, .menstrualFlow]),
        ("HKCategoryValueCervicalMucusQuality", values(HKCategoryValueCervicalMucusQuality.self), [.cervicalMucusQuality]),
        ("HKCategoryValueOvulationTestResult", values(HKCategoryValueOvulationTestResult.self), [.ovulationTestResult]),
        ("HKCategoryValuePregnancyTestResult", values(HKCategoryValuePregnancyTestResult.self), [.pregnancyTestResult]),
        ("HKCategoryValueProgesteroneTestResult", values(HKCategoryValueProgesteroneTestResult.self), [.progesteroneTestResult]),
        ("HKCategoryValueContraceptive", values(HKCategoryValueContraceptive.self), [.contraceptive]),
        (
            "HKCategoryValueSeverity", values(HKCategoryValueSeverity.self),
            [
                .abdominalCramps, .acne, .bladderIncontinence, .bloating, .breastPain,
                .chestTightnessOrPain, .chills, .constipation, .coughing, .diarrhea,
                .dizziness, .drySkin, .fainting, .fatigue, .fever,
                .generalizedBodyAche, .hairLoss, .headache, .heartburn, .hotFlashes,
                .lossOfSmell, .lossOfTaste, .lowerBackPain, .memoryLapse, .nausea,
                .nightSweats, .pelvicPain, .rapidPoundingOrFlutteringHeartbeat, .runnyNose, .shortnessOfBreath,
                .sinusCongestion, .skippedHeartbeat, .soreThroat, .vaginalDryness, .vomiting,
                .wheezing,
            ]
        ),
        ("HKCategoryValuePresence", values(HKCategoryValuePresence.self), [.moodChanges, .sleepChanges]),
        ("HKCategoryValueAppetiteChanges", values(HKCategoryValueAppetiteChanges.self), [.appetiteChanges]),
        ("HKCategoryValueEnvironmentalAudioExposureEvent", values(HKCategoryValueEnvironmentalAudioExposureEvent.self), [.environmentalAudioExposureEvent]),
        ("HKCategoryValueHeadphoneAudioExposureEvent", values(HKCategoryValueHeadphoneAudioExposureEvent.self), [.headphoneAudioExposureEvent]),
        ("HKCategoryValueLowCardioFitnessEvent", values(HKCategoryValueLowCardioFitnessEvent.self), [.lowCardioFitnessEvent]),
        ("HKCategoryValueAppleWalkingSteadinessEvent", values(HKCategoryValueAppleWalkingSteadinessEvent.self), [.appleWalkingSteadinessEvent]),
    ]

    private static let table: [HKCategoryTypeIdentifier: Set<Int>] = {
        var result: [HKCategoryTypeIdentifier: Set<Int>] = [:]
        for group in groups {
            for identifier in group.identifiers {
                result[identifier] = group.values
            }
        }
        return result
    }()

    private static let enumNames: [HKCategoryTypeIdentifier: String] = {
        var result: [HKCategoryTypeIdentifier: String] = [:]
        for group in groups {
            for identifier in group.identifiers {
                result[identifier] = group.enumName
            }
        }
        return result
    }()
}
