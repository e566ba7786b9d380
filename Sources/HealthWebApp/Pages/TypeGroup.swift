import Foundation
import HealthPresentation
import Mustache
import OpenHealthKit

/// The groups of the Browse page, as the Health app groups types.
enum TypeGroup: String, CaseIterable, Sendable {
    case activity, body, cycle, hearing, heart, medications, mental, mobility, nutrition, respiratory, sleep, symptoms, vitals, other

    var name: String {
        switch self {
        case .activity: "Activity"
        case .body: "Body Measurements"
        case .cycle: "Cycle Tracking"
        case .hearing: "Hearing"
        case .heart: "Heart"
        case .medications: "Medications"
        case .mental: "Mental Wellbeing"
        case .mobility: "Mobility"
        case .nutrition: "Nutrition"
        case .respiratory: "Respiratory"
        case .sleep: "Sleep"
        case .symptoms: "Symptoms"
        case .vitals: "Vitals"
        case .other: "Other Data"
        }
    }

    private static let members: [TypeGroup: Set<String>] = [
        .activity: ["StepCount", "DistanceWalkingRunning", "DistanceCycling", "DistanceSwimming", "ActiveEnergyBurned", "BasalEnergyBurned",
                    "FlightsClimbed", "AppleExerciseTime", "AppleStandTime", "AppleStandHour", "AppleMoveTime", "PushCount",
                    "DistanceWheelchair", "SwimmingStrokeCount", "NikeFuel", "PhysicalEffort", "CrossCountrySkiingSpeed", "CyclingCadence",
                    "CyclingFunctionalThresholdPower", "CyclingPower", "CyclingSpeed", "DistanceCrossCountrySkiing", "DistanceDownhillSnowSports",
                    "DistancePaddleSports", "DistanceRowing", "DistanceSkatingSports", "EstimatedWorkoutEffortScore", "PaddleSportsSpeed",
                    "RowingSpeed", "RunningPower", "RunningSpeed", "UnderwaterDepth", "WorkoutEffortScore"],
        .body: ["BodyMass", "BodyMassIndex", "BodyFatPercentage", "LeanBodyMass", "Height", "WaistCircumference", "ElectrodermalActivity"],
        .cycle: ["BleedingAfterPregnancy", "BleedingDuringPregnancy", "CervicalMucusQuality", "Contraceptive", "InfrequentMenstrualCycles",
                 "IntermenstrualBleeding", "IrregularMenstrualCycles", "Lactation", "MenstrualFlow", "OvulationTestResult",
                 "PersistentIntermenstrualBleeding", "Pregnancy", "PregnancyTestResult", "ProgesteroneTestResult", "ProlongedMenstrualPeriods",
                 "SexualActivity", "BasalBodyTemperature"],
        .hearing: ["EnvironmentalAudioExposure", "EnvironmentalSoundReduction", "HeadphoneAudioExposure", "EnvironmentalAudioExposureEvent",
                   "HeadphoneAudioExposureEvent"],
        .heart: ["HeartRate", "RestingHeartRate", "WalkingHeartRateAverage", "HeartRateVariabilitySDNN", "HeartRateRecoveryOneMinute",
                 "AtrialFibrillationBurden", "VO2Max", "HighHeartRateEvent", "LowHeartRateEvent", "IrregularHeartRhythmEvent",
                 "LowCardioFitnessEvent", "PeripheralPerfusionIndex"],
        .mental: ["MindfulSession", "TimeInDaylight"],
        .mobility: ["AppleWalkingSteadiness", "AppleWalkingSteadinessEvent", "RunningGroundContactTime", "RunningStrideLength",
                    "RunningVerticalOscillation", "SixMinuteWalkTestDistance", "StairAscentSpeed", "StairDescentSpeed",
                    "WalkingAsymmetryPercentage", "WalkingDoubleSupportPercentage", "WalkingSpeed", "WalkingStepLength", "NumberOfTimesFallen"],
        .respiratory: ["RespiratoryRate", "OxygenSaturation", "ForcedExpiratoryVolume1", "ForcedVitalCapacity", "PeakExpiratoryFlowRate",
                       "InhalerUsage", "AppleSleepingBreathingDisturbances", "SleepApneaEvent"],
        .sleep: ["SleepAnalysis", "AppleSleepingWristTemperature"],
        .symptoms: ["AbdominalCramps", "Acne", "AppetiteChanges", "BladderIncontinence", "Bloating", "BreastPain", "ChestTightnessOrPain",
                    "Chills", "Constipation", "Coughing", "Diarrhea", "Dizziness", "DrySkin", "Fainting", "Fatigue", "Fever",
                    "GeneralizedBodyAche", "HairLoss", "Headache", "Heartburn", "HotFlashes", "LossOfSmell", "LossOfTaste", "LowerBackPain",
                    "MemoryLapse", "MoodChanges", "Nausea", "NightSweats", "PelvicPain", "RapidPoundingOrFlutteringHeartbeat", "RunnyNose",
                    "ShortnessOfBreath", "SinusCongestion", "SkippedHeartbeat", "SleepChanges", "SoreThroat", "VaginalDryness", "Vomiting",
                    "Wheezing"],
        .vitals: ["BloodPressure", "BloodPressureSystolic", "BloodPressureDiastolic", "BloodGlucose", "BodyTemperature", "InsulinDelivery",
                  "BloodAlcoholContent"],
    ]

    /// The groups of the types that are not quantity, category or correlation types.
    private static let others: [String: TypeGroup] = [
        HKObjectType.stateOfMindType().identifier: .mental, HKScoredAssessmentTypeIdentifier.GAD7.rawValue: .mental,
        HKScoredAssessmentTypeIdentifier.PHQ9.rawValue: .mental,
        HKObjectType.electrocardiogramType().identifier: .heart, HKDataTypeIdentifierHeartbeatSeries: .heart,
        HKObjectType.audiogramSampleType().identifier: .hearing, HKVisionPrescriptionTypeIdentifier: .other,
        HKMedicationDoseEventTypeIdentifierMedicationDoseEvent: .medications,
    ]

    /// The group of a type identifier.
    static func of(_ identifier: String) -> TypeGroup {
        if let group = others[identifier] { return group }
        let name = identifier.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
            .replacingOccurrences(of: "HKCategoryTypeIdentifier", with: "")
            .replacingOccurrences(of: "HKCorrelationTypeIdentifier", with: "")
        if identifier == HKWorkoutTypeIdentifier { return .activity }
        if name.hasPrefix("Dietary") || name == "Food" || name == "NumberOfAlcoholicBeverages" { return .nutrition }
        return allCases.first { members[$0]?.contains(name) == true } ?? .other
    }

    /// The quantity types of a blood-pressure reading: reached from the Blood Pressure page, not
    /// listed on their own (the Health app shows a reading as one value, "120/80 mmHg").
    static let bloodPressureParts = [HKQuantityType(.bloodPressureSystolic), HKQuantityType(.bloodPressureDiastolic)]

    /// Whether Browse and the trends list a type on its own: every type but the parts of a
    /// blood-pressure reading and workout routes (a route is shown with its workout).
    static func listed(_ type: HKSampleType) -> Bool {
        !bloodPressureParts.contains { $0.identifier == type.identifier } && type.identifier != HKWorkoutRouteTypeIdentifier
    }

    /// Whether a type answers a search: its name on the page, its everyday names, HealthKit's name
    /// or identifier, or its group's name, containing the words typed (case and accents ignored).
    static func matches(_ type: HKSampleType, search: String) -> Bool {
        let words = search.split(whereSeparator: \.isWhitespace).map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        guard !words.isEmpty else { return true }
        let entry = HealthTypes.entry(for: type)
        // Blood pressure also answers to the names of its parts (systolic, diastolic).
        let parts = type.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue ? bloodPressureParts.map { SampleText.name(of: $0) } : []
        let haystack = ([SampleText.name(of: type), type.displayName, entry.swiftName, type.identifier, of(type.identifier).name] + parts
                        + entry.everydayNames.map { $0.replacingOccurrences(of: "-", with: " ") })
            .joined(separator: " ").folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        return words.allSatisfy { haystack.contains($0) }
    }

    /// The Browse page's content: every sample type the store knows, in the Health app's groups;
    /// in each group the types with data first, with what the Health app shows for them (a day's
    /// total, a night's sleep, the latest value) and when it is from, then the others, each with
    /// "Add data"; a search box (a GET form) narrows the list. The parts of a blood-pressure
    /// reading are not listed on their own.
    /// - Parameters:
    ///   - headlines: the headline of each type with data, by identifier (``TypeHeadline``).
    ///   - search: the words typed in the search box (nil or empty: every type).
    static func index(headlines latest: [String: TypeHeadline], search: String?) -> String {
        // A GET form writes spaces as `+`.
        let search = String((search ?? "").replacingOccurrences(of: "+", with: " ").trimmingCharacters(in: .whitespacesAndNewlines).prefix(100))
        let listedTypes = HKObjectType.allSampleTypes.filter(listed)
        var shown = 0
        let groups: [[String: Any]] = allCases.compactMap { group in
            let types = listedTypes.filter { of($0.identifier) == group && matches($0, search: search) }
            guard !types.isEmpty else { return nil }
            let withData = types.filter { latest[$0.identifier] != nil }.sorted { SampleText.name(of: $0) < SampleText.name(of: $1) }
            let without = types.filter { latest[$0.identifier] == nil }.sorted { SampleText.name(of: $0) < SampleText.name(of: $1) }
            shown += types.count
            return [
                "id": group.rawValue, "name": group.name,
                "withData": withData.map { type -> [String: Any] in
                    let headline = latest[type.identifier]
                    return ["name": SampleText.name(of: type), "href": StoreCatalog.href(type), "addHref": addHref(type),
                            "value": headline?.value ?? "", "date": headline?.when ?? "", "number": headline?.number.map { SVGChart.n($0) } ?? false,
                            "addable": AddDataInput.kind(of: type) != nil]
                },
                "hasWithData": !withData.isEmpty,
                "without": without.map { type -> [String: Any] in
                    ["name": SampleText.name(of: type), "href": StoreCatalog.href(type), "addHref": addHref(type),
                     "addable": AddDataInput.kind(of: type) != nil]
                },
                "hasWithout": !without.isEmpty, "withoutCount": without.count, "open": withData.isEmpty || !search.isEmpty,
            ]
        }
        let summary = search.isEmpty
            ? "\(latest.count) of \(listedTypes.count) types have data."
            : "\(shown) type\(shown == 1 ? "" : "s") match “\(search)”."
        return render(["groups": groups, "search": search, "searching": !search.isEmpty, "summary": summary, "nothing": groups.isEmpty])
    }

    /// The path of a type's "Add data" page.
    static func addHref(_ type: HKSampleType) -> String { "\(StoreCatalog.href(type))/add" }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        try? library.register(template, named: "browseIndex")
        return library
    }()

    private static func render(_ context: [String: Any]) -> String {
        library.render(context, withTemplate: "browseIndex") ?? ""
    }

    static let template = """
        <form method="get" action="/browse" class="search" role="search">
        <label for="browse-search">Search types</label>
        <input id="browse-search" type="search" name="q" value="{{search}}" placeholder="Weight, sleep, heart…">
        <button type="submit">Search</button>{{#searching}} <a href="/browse">Show all</a>{{/searching}}
        </form>
        <p>{{summary}} <a href="/recently-deleted">Recently deleted</a>: samples deleted in the last 30 days, which you can restore.
        <a href="/import/apple-health">Import an Apple Health export</a>.</p>
        {{#groups}}
        <section class="card" aria-labelledby="group-{{id}}">
        <h2 id="group-{{id}}">{{name}}</h2>
        {{#hasWithData}}
        <ul class="latest">
        {{#withData}}<li><a href="{{href}}">{{name}}</a> <span class="latest-value"{{#number}} data-value="{{number}}"{{/number}}>{{value}}</span>\
         <span class="muted">{{date}}</span>{{#addable}} <a class="add" href="{{addHref}}" aria-label="Add {{name}}">Add</a>{{/addable}}</li>
        {{/withData}}
        </ul>
        {{/hasWithData}}
        {{#hasWithout}}
        <details{{#open}} open{{/open}}><summary>No data yet: {{withoutCount}} more</summary>
        <ul class="types">{{#without}}<li>\
        {{#addable}}<a href="{{addHref}}" aria-label="Add {{name}}">{{name}}</a>{{/addable}}{{^addable}}{{name}}{{/addable}}</li>{{/without}}</ul>
        </details>
        {{/hasWithout}}
        </section>
        {{/groups}}
        {{#nothing}}<p>No type matches. <a href="/browse">Show every type</a></p>{{/nothing}}
        """
}
