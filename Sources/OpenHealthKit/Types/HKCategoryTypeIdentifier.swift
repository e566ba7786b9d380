import Foundation

/// Identifies a category type, such as sleep analysis or a symptom.
///
/// Mirrors HealthKit's `HKCategoryTypeIdentifier` string enum: the raw value is the Objective-C constant's string,
/// e.g. `"HKCategoryTypeIdentifierSleepAnalysis"`. Allowed values per type live in the internal `CategoryTypeCatalog`.
public struct HKCategoryTypeIdentifier: RawRepresentable, Hashable, Sendable, Codable {
    /// The identifier string, exactly as HealthKit spells it.
    public let rawValue: String

    /// Creates an identifier from its raw string. Unknown strings are allowed, as in HealthKit.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates an identifier from its raw string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HKCategoryTypeIdentifier {
    // MARK: Fitness

    /// Apple stand hour (values: `HKCategoryValueAppleStandHour`).
    public static let appleStandHour = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAppleStandHour")

    // MARK: Hearing Health

    /// Environmental audio exposure event (values: `HKCategoryValueEnvironmentalAudioExposureEvent`).
    ///
    /// HealthKit's constant holds the pre-iOS 14 string `"HKCategoryTypeIdentifierAudioExposureEvent"`, shared with the
    /// deprecated `audioExposureEvent`; this mirrors that exactly.
    public static let environmentalAudioExposureEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAudioExposureEvent")

    /// Headphone audio exposure event (values: `HKCategoryValueHeadphoneAudioExposureEvent`).
    public static let headphoneAudioExposureEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHeadphoneAudioExposureEvent")

    // MARK: Heart

    /// High heart rate event (values: `HKCategoryValue`).
    public static let highHeartRateEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHighHeartRateEvent")

    /// Irregular heart rhythm event (values: `HKCategoryValue`).
    public static let irregularHeartRhythmEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierIrregularHeartRhythmEvent")

    /// Low cardio fitness event (values: `HKCategoryValueLowCardioFitnessEvent`).
    public static let lowCardioFitnessEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierLowCardioFitnessEvent")

    /// Low heart rate event (values: `HKCategoryValue`).
    public static let lowHeartRateEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierLowHeartRateEvent")

    // MARK: Mindfulness

    /// Mindful session (values: `HKCategoryValue`).
    public static let mindfulSession = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierMindfulSession")

    // MARK: Mobility

    /// Apple walking steadiness event (values: `HKCategoryValueAppleWalkingSteadinessEvent`).
    public static let appleWalkingSteadinessEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAppleWalkingSteadinessEvent")

    // MARK: Other

    /// Handwashing event (values: `HKCategoryValue`).
    public static let handwashingEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHandwashingEvent")

    /// Toothbrushing event (values: `HKCategoryValue`).
    public static let toothbrushingEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierToothbrushingEvent")

    // MARK: Reproductive Health

    /// Bleeding after pregnancy (values: `HKCategoryValueVaginalBleeding`).
    public static let bleedingAfterPregnancy = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierBleedingAfterPregnancy")

    /// Bleeding during pregnancy (values: `HKCategoryValueVaginalBleeding`).
    public static let bleedingDuringPregnancy = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierBleedingDuringPregnancy")

    /// Cervical mucus quality (values: `HKCategoryValueCervicalMucusQuality`).
    public static let cervicalMucusQuality = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierCervicalMucusQuality")

    /// Contraceptive (values: `HKCategoryValueContraceptive`).
    public static let contraceptive = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierContraceptive")

    /// Infrequent menstrual cycles (values: `HKCategoryValue`).
    public static let infrequentMenstrualCycles = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierInfrequentMenstrualCycles")

    /// Intermenstrual bleeding (values: `HKCategoryValue`).
    public static let intermenstrualBleeding = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierIntermenstrualBleeding")

    /// Irregular menstrual cycles (values: `HKCategoryValue`).
    public static let irregularMenstrualCycles = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierIrregularMenstrualCycles")

    /// Lactation (values: `HKCategoryValue`).
    public static let lactation = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierLactation")

    /// Menstrual flow (values: `HKCategoryValueVaginalBleeding`).
    public static let menstrualFlow = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierMenstrualFlow")

    /// Ovulation test result (values: `HKCategoryValueOvulationTestResult`).
    public static let ovulationTestResult = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierOvulationTestResult")

    /// Persistent intermenstrual bleeding (values: `HKCategoryValue`).
    public static let persistentIntermenstrualBleeding = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierPersistentIntermenstrualBleeding")

    /// Pregnancy (values: `HKCategoryValue`).
    public static let pregnancy = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierPregnancy")

    /// Pregnancy test result (values: `HKCategoryValuePregnancyTestResult`).
    public static let pregnancyTestResult = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierPregnancyTestResult")

    /// Progesterone test result (values: `HKCategoryValueProgesteroneTestResult`).
    public static let progesteroneTestResult = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierProgesteroneTestResult")

    /// Prolonged menstrual periods (values: `HKCategoryValue`).
    public static let prolongedMenstrualPeriods = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierProlongedMenstrualPeriods")

    /// Sexual activity (values: `HKCategoryValue`).
    public static let sexualActivity = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSexualActivity")

    // MARK: Respiratory

    /// Sleep apnea event (values: `HKCategoryValue`).
    public static let sleepApneaEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSleepApneaEvent")

    // MARK: Sleep

    /// Sleep analysis (values: `HKCategoryValueSleepAnalysis`).
    public static let sleepAnalysis = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSleepAnalysis")

    // MARK: Symptoms

    /// Abdominal cramps (values: `HKCategoryValueSeverity`).
    public static let abdominalCramps = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAbdominalCramps")

    /// Acne (values: `HKCategoryValueSeverity`).
    public static let acne = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAcne")

    /// Appetite changes (values: `HKCategoryValueAppetiteChanges`).
    public static let appetiteChanges = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAppetiteChanges")

    /// Bladder incontinence (values: `HKCategoryValueSeverity`).
    public static let bladderIncontinence = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierBladderIncontinence")

    /// Bloating (values: `HKCategoryValueSeverity`).
    public static let bloating = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierBloating")

    /// Breast pain (values: `HKCategoryValueSeverity`).
    public static let breastPain = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierBreastPain")

    /// Chest tightness or pain (values: `HKCategoryValueSeverity`).
    public static let chestTightnessOrPain = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierChestTightnessOrPain")

    /// Chills (values: `HKCategoryValueSeverity`).
    public static let chills = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierChills")

    /// Constipation (values: `HKCategoryValueSeverity`).
    public static let constipation = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierConstipation")

    /// Coughing (values: `HKCategoryValueSeverity`).
    public static let coughing = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierCoughing")

    /// Diarrhea (values: `HKCategoryValueSeverity`).
    public static let diarrhea = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierDiarrhea")

    /// Dizziness (values: `HKCategoryValueSeverity`).
    public static let dizziness = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierDizziness")

    /// Dry skin (values: `HKCategoryValueSeverity`).
    public static let drySkin = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierDrySkin")

    /// Fainting (values: `HKCategoryValueSeverity`).
    public static let fainting = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierFainting")

    /// Fatigue (values: `HKCategoryValueSeverity`).
    public static let fatigue = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierFatigue")

    /// Fever (values: `HKCategoryValueSeverity`).
    public static let fever = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierFever")

    /// Generalized body ache (values: `HKCategoryValueSeverity`).
    public static let generalizedBodyAche = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierGeneralizedBodyAche")

    /// Hair loss (values: `HKCategoryValueSeverity`).
    public static let hairLoss = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHairLoss")

    /// Headache (values: `HKCategoryValueSeverity`).
    public static let headache = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHeadache")

    /// Heartburn (values: `HKCategoryValueSeverity`).
    public static let heartburn = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHeartburn")

    /// Hot flashes (values: `HKCategoryValueSeverity`).
    public static let hotFlashes = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierHotFlashes")

    /// Loss of smell (values: `HKCategoryValueSeverity`).
    public static let lossOfSmell = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierLossOfSmell")

    /// Loss of taste (values: `HKCategoryValueSeverity`).
    public static let lossOfTaste = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierLossOfTaste")

    /// Lower back pain (values: `HKCategoryValueSeverity`).
    public static let lowerBackPain = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierLowerBackPain")

    /// Memory lapse (values: `HKCategoryValueSeverity`).
    public static let memoryLapse = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierMemoryLapse")

    /// Mood changes (values: `HKCategoryValuePresence`).
    public static let moodChanges = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierMoodChanges")

    /// Nausea (values: `HKCategoryValueSeverity`).
    public static let nausea = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierNausea")

    /// Night sweats (values: `HKCategoryValueSeverity`).
    public static let nightSweats = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierNightSweats")

    /// Pelvic pain (values: `HKCategoryValueSeverity`).
    public static let pelvicPain = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierPelvicPain")

    /// Rapid pounding or fluttering heartbeat (values: `HKCategoryValueSeverity`).
    public static let rapidPoundingOrFlutteringHeartbeat = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierRapidPoundingOrFlutteringHeartbeat")

    /// Runny nose (values: `HKCategoryValueSeverity`).
    public static let runnyNose = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierRunnyNose")

    /// Shortness of breath (values: `HKCategoryValueSeverity`).
    public static let shortnessOfBreath = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierShortnessOfBreath")

    /// Sinus congestion (values: `HKCategoryValueSeverity`).
    public static let sinusCongestion = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSinusCongestion")

    /// Skipped heartbeat (values: `HKCategoryValueSeverity`).
    public static let skippedHeartbeat = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSkippedHeartbeat")

    /// Sleep changes (values: `HKCategoryValuePresence`).
    public static let sleepChanges = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSleepChanges")

    /// Sore throat (values: `HKCategoryValueSeverity`).
    public static let soreThroat = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierSoreThroat")

    /// Vaginal dryness (values: `HKCategoryValueSeverity`).
    public static let vaginalDryness = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierVaginalDryness")

    /// Vomiting (values: `HKCategoryValueSeverity`).
    public static let vomiting = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierVomiting")

    /// Wheezing (values: `HKCategoryValueSeverity`).
    public static let wheezing = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierWheezing")

    // MARK: Deprecated

    /// Environmental audio exposure event, under its iOS 13 name (same raw value as `environmentalAudioExposureEvent`).
    @available(*, deprecated, renamed: "environmentalAudioExposureEvent")
    public static let audioExposureEvent = HKCategoryTypeIdentifier(rawValue: "HKCategoryTypeIdentifierAudioExposureEvent")
}

extension HKCategoryTypeIdentifier {
    /// Every non-deprecated category identifier declared above, in header order. Kept in step with
    /// the `static let`s and with `CategoryTypeCatalog` by the tests.
    static let allKnown: [HKCategoryTypeIdentifier] = [
        .appleStandHour,
        .environmentalAudioExposureEvent,
        .headphoneAudioExposureEvent,
        .highHeartRateEvent,
        .irregularHeartRhythmEvent,
        .lowCardioFitnessEvent,
        .lowHeartRateEvent,
        .mindfulSession,
        .appleWalkingSteadinessEvent,
        .handwashingEvent,
        .toothbrushingEvent,
        .bleedingAfterPregnancy,
        .bleedingDuringPregnancy,
        .cervicalMucusQuality,
        .contraceptive,
        .infrequentMenstrualCycles,
        .intermenstrualBleeding,
        .irregularMenstrualCycles,
        .lactation,
        .menstrualFlow,
        .ovulationTestResult,
        .persistentIntermenstrualBleeding,
        .pregnancy,
        .pregnancyTestResult,
        .progesteroneTestResult,
        .prolongedMenstrualPeriods,
        .sexualActivity,
        .sleepApneaEvent,
        .sleepAnalysis,
        .abdominalCramps,
        .acne,
        .appetiteChanges,
        .bladderIncontinence,
        .bloating,
        .breastPain,
        .chestTightnessOrPain,
        .chills,
        .constipation,
        .coughing,
        .diarrhea,
        .dizziness,
        .drySkin,
        .fainting,
        .fatigue,
        .fever,
        .generalizedBodyAche,
        .hairLoss,
        .headache,
        .heartburn,
        .hotFlashes,
        .lossOfSmell,
        .lossOfTaste,
        .lowerBackPain,
        .memoryLapse,
        .moodChanges,
        .nausea,
        .nightSweats,
        .pelvicPain,
        .rapidPoundingOrFlutteringHeartbeat,
        .runnyNose,
        .shortnessOfBreath,
        .sinusCongestion,
        .skippedHeartbeat,
        .sleepChanges,
        .soreThroat,
        .vaginalDryness,
        .vomiting,
        .wheezing,
    ]
}
