import Foundation

/// Which integer values each category type accepts, following the value enum named for it in
/// `HKTypeIdentifiers.h` (iOS 18.1).
///
/// Types whose values are `HKCategoryValue` accept only `HKCategoryValue.notApplicable` (0).
/// Menstrual flow and the pregnancy bleeding types take `HKCategoryValueVaginalBleeding`, whose
/// raw values are the same as the older `HKCategoryValueMenstrualFlow`.
package enum CategoryTypeCatalog {
    /// The allowed values for a category type, or `nil` for an identifier HealthKit does not define.
    static func allowedValues(for identifier: HKCategoryTypeIdentifier) -> Set<Int>? {
        table[identifier]
    }

    /// The value enum HealthKit names for a category type, e.g. `"HKCategoryValueSeverity"`.
    static func valueEnumName(for identifier: HKCategoryTypeIdentifier) -> String? {
        enumNames[identifier]
    }

    /// One case of a value enum: the raw value HealthKit stores and the case's Swift name
    /// (`asleepCore`).
    package struct ValueCase: Sendable, Hashable {
        /// The raw value.
        package let rawValue: Int
        /// The case's name in Swift.
        package let name: String
    }

    /// A value enum, its cases, and the category types that take it: the one table the store's
    /// checks and the words people read and type (HealthPresentation) are built from.
    package struct ValueEnum: Sendable {
        /// HealthKit's name of the enum, e.g. `"HKCategoryValueSleepAnalysis"`.
        package let enumName: String
        /// Its cases, in declaration order.
        package let cases: [ValueCase]
        /// The types whose values it gives.
        package let identifiers: [HKCategoryTypeIdentifier]
    }

    /// Every value enum, with its types.
    package static var valueEnums: [ValueEnum] {
        groups.map { ValueEnum(enumName: $0.enumName, cases: $0.values, identifiers: $0.identifiers) }
    }

    private static func values<E: RawRepresentable & CaseIterable>(_ type: E.Type) -> [ValueCase] where E.RawValue == Int {
        type.allCases.map { ValueCase(rawValue: $0.rawValue, name: String(describing: $0)) }
    }

    private static let groups: [(enumName: String, values: [ValueCase], identifiers: [HKCategoryTypeIdentifier])] = [
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
                result[identifier] = Set(group.values.map(\.rawValue))
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
