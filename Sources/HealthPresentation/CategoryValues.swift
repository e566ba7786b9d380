import Foundation
import OpenHealthKit

/// The named values of category types: sleep stages (`asleepDeep`, "Deep sleep"), stand hours,
/// menstrual flow, symptoms' severity… as people type and read them.
public enum CategoryValues {
    /// One value of a category type.
    public struct Value: Sendable, Equatable {
        /// The raw value HealthKit stores.
        public let rawValue: Int
        /// HealthKit's Swift name of the case: `asleepDeep`.
        public let name: String
        /// How the Health app writes it: "Deep sleep".
        public let label: String
    }

    private static func values<E: RawRepresentable & CaseIterable>(_ type: E.Type, labels: [String: String] = [:]) -> [Value]
        where E.RawValue == Int {
        type.allCases.map { value in
            let name = String(describing: value)
            return Value(rawValue: value.rawValue, name: name, label: labels[name] ?? words(name))
        }
    }

    /// "notPresent" → "Not present", "eggWhite" → "Egg white".
    private static func words(_ name: String) -> String {
        var text = ""
        for character in name {
            if character.isUppercase, !text.isEmpty { text.append(" ") }
            text.append(text.isEmpty ? Character(character.uppercased()) : Character(character.lowercased()))
        }
        return text
    }

    /// The value sets and the types that take them, as `HKTypeIdentifiers.h` names them.
    private static let groups: [(values: [Value], identifiers: [HKCategoryTypeIdentifier])] = [
        (values(HKCategoryValue.self, labels: ["notApplicable": "Recorded"]), [
            .highHeartRateEvent, .irregularHeartRhythmEvent, .lowHeartRateEvent, .mindfulSession, .handwashingEvent,
            .toothbrushingEvent, .infrequentMenstrualCycles, .intermenstrualBleeding, .irregularMenstrualCycles, .lactation,
            .persistentIntermenstrualBleeding, .pregnancy, .prolongedMenstrualPeriods, .sexualActivity, .sleepApneaEvent,
        ]),
        (values(HKCategoryValueSleepAnalysis.self, labels: [
            "inBed": "In bed", "asleepUnspecified": "Asleep", "awake": "Awake", "asleepCore": "Core sleep",
            "asleepDeep": "Deep sleep", "asleepREM": "REM sleep",
        ]), [.sleepAnalysis]),
        (values(HKCategoryValueAppleStandHour.self), [.appleStandHour]),
        (values(HKCategoryValueVaginalBleeding.self), [.bleedingAfterPregnancy, .bleedingDuringPregnancy, .menstrualFlow]),
        (values(HKCategoryValueCervicalMucusQuality.self), [.cervicalMucusQuality]),
        (values(HKCategoryValueOvulationTestResult.self, labels: ["luteinizingHormoneSurge": "LH surge"]), [.ovulationTestResult]),
        (values(HKCategoryValuePregnancyTestResult.self), [.pregnancyTestResult]),
        (values(HKCategoryValueProgesteroneTestResult.self), [.progesteroneTestResult]),
        (values(HKCategoryValueContraceptive.self, labels: ["intrauterineDevice": "IUD"]), [.contraceptive]),
        (values(HKCategoryValueSeverity.self), [
            .abdominalCramps, .acne, .bladderIncontinence, .bloating, .breastPain,
            .chestTightnessOrPain, .chills, .constipation, .coughing, .diarrhea,
            .dizziness, .drySkin, .fainting, .fatigue, .fever,
            .generalizedBodyAche, .hairLoss, .headache, .heartburn, .hotFlashes,
            .lossOfSmell, .lossOfTaste, .lowerBackPain, .memoryLapse, .nausea,
            .nightSweats, .pelvicPain, .rapidPoundingOrFlutteringHeartbeat, .runnyNose, .shortnessOfBreath,
            .sinusCongestion, .skippedHeartbeat, .soreThroat, .vaginalDryness, .vomiting,
            .wheezing,
        ]),
        (values(HKCategoryValuePresence.self), [.moodChanges, .sleepChanges]),
        (values(HKCategoryValueAppetiteChanges.self), [.appetiteChanges]),
        (values(HKCategoryValueEnvironmentalAudioExposureEvent.self), [.environmentalAudioExposureEvent]),
        (values(HKCategoryValueHeadphoneAudioExposureEvent.self), [.headphoneAudioExposureEvent]),
        (values(HKCategoryValueLowCardioFitnessEvent.self), [.lowCardioFitnessEvent]),
        (values(HKCategoryValueAppleWalkingSteadinessEvent.self), [.appleWalkingSteadinessEvent]),
    ]

    private static let byIdentifier: [String: [Value]] = {
        var table: [String: [Value]] = [:]
        for group in groups {
            for identifier in group.identifiers { table[identifier.rawValue] = group.values }
        }
        return table
    }()

    /// The values a category type takes, or nil for a type this table does not know.
    public static func values(for type: HKCategoryType) -> [Value]? {
        byIdentifier[type.identifier]
    }

    /// Whether the type's only value is `notApplicable`: an event or a session, which needs no
    /// value typed.
    public static func isValueless(_ type: HKCategoryType) -> Bool {
        values(for: type).map { $0.count == 1 && $0[0].name == "notApplicable" } ?? false
    }

    /// The value a person typed: a name (`asleepDeep`), a label (`Deep sleep`), in any case,
    /// or the raw number HealthKit stores.
    /// - Throws: ``HealthPresentationError/unknownCategoryValue(_:type:accepted:)`` listing the
    ///   type's value names.
    public static func value(_ text: String, for type: HKCategoryType) throws(HealthPresentationError) -> Int {
        let key = normalized(text)
        let known = values(for: type) ?? []
        if let match = known.first(where: { normalized($0.name) == key || normalized($0.label) == key }) { return match.rawValue }
        if let number = Int(text.trimmingCharacters(in: .whitespaces)), known.isEmpty || known.contains(where: { $0.rawValue == number }) {
            return number
        }
        throw .unknownCategoryValue(text, type: type.displayName, accepted: known.map(\.name))
    }

    /// How the Health app writes a value: "Core sleep"; the raw number for a value the table
    /// does not know.
    public static func label(of rawValue: Int, for type: HKCategoryType) -> String {
        values(for: type)?.first { $0.rawValue == rawValue }?.label ?? "value \(rawValue)"
    }

    /// HealthKit's name of a value: "asleepCore"; nil for a value the table does not know.
    public static func name(of rawValue: Int, for type: HKCategoryType) -> String? {
        values(for: type)?.first { $0.rawValue == rawValue }?.name
    }

    private static func normalized(_ text: String) -> String {
        text.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" }
    }
}
