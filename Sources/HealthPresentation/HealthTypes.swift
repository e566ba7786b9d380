import Foundation
import OpenHealthKit

/// The names people type for sample types: everyday names (`weight`, `steps`, `heart-rate`,
/// `blood-pressure`, `sleep`, `glucose`…) beside HealthKit's (`bodyMass`,
/// `HKQuantityTypeIdentifierBodyMass`).
public enum HealthTypes {
    /// One sample type with the names it answers to.
    public struct Entry: Sendable {
        /// The type.
        public let type: HKSampleType
        /// Its everyday names, the usual one first (empty for a type people rarely name).
        public let everydayNames: [String]

        /// The HealthKit identifier, e.g. `HKQuantityTypeIdentifierBodyMass`.
        public var identifier: String { type.identifier }

        /// The Swift name HealthKit gives the identifier, e.g. `bodyMass`.
        public var swiftName: String { HealthTypes.swiftName(of: type) }

        /// The name shown for the type: its first everyday name, else the Swift name.
        public var name: String { everydayNames.first ?? swiftName }
    }

    /// The everyday names, in the order `health store types` lists them.
    private static let everyday: [(names: [String], type: HKSampleType)] = [
        (["weight", "body-weight"], HKQuantityType(.bodyMass)),
        (["height"], HKQuantityType(.height)),
        (["bmi"], HKQuantityType(.bodyMassIndex)),
        (["body-fat"], HKQuantityType(.bodyFatPercentage)),
        (["lean-mass", "lean-body-mass"], HKQuantityType(.leanBodyMass)),
        (["waist"], HKQuantityType(.waistCircumference)),
        (["steps"], HKQuantityType(.stepCount)),
        (["distance", "walking-distance"], HKQuantityType(.distanceWalkingRunning)),
        (["cycling-distance"], HKQuantityType(.distanceCycling)),
        (["swimming-distance"], HKQuantityType(.distanceSwimming)),
        (["flights", "floors"], HKQuantityType(.flightsClimbed)),
        (["active-energy", "active-calories"], HKQuantityType(.activeEnergyBurned)),
        (["resting-energy"], HKQuantityType(.basalEnergyBurned)),
        (["exercise", "exercise-minutes"], HKQuantityType(.appleExerciseTime)),
        (["stand-minutes"], HKQuantityType(.appleStandTime)),
        (["heart-rate", "pulse"], HKQuantityType(.heartRate)),
        (["resting-heart-rate"], HKQuantityType(.restingHeartRate)),
        (["walking-heart-rate"], HKQuantityType(.walkingHeartRateAverage)),
        (["hrv", "heart-rate-variability"], HKQuantityType(.heartRateVariabilitySDNN)),
        (["blood-pressure", "bp"], HKCorrelationType(.bloodPressure)),
        (["systolic"], HKQuantityType(.bloodPressureSystolic)),
        (["diastolic"], HKQuantityType(.bloodPressureDiastolic)),
        (["oxygen", "blood-oxygen", "spo2"], HKQuantityType(.oxygenSaturation)),
        (["respiratory-rate", "breathing-rate"], HKQuantityType(.respiratoryRate)),
        (["vo2max", "cardio-fitness"], HKQuantityType(.vo2Max)),
        (["glucose", "blood-glucose"], HKQuantityType(.bloodGlucose)),
        (["temperature", "body-temperature"], HKQuantityType(.bodyTemperature)),
        (["wrist-temperature"], HKQuantityType(.appleSleepingWristTemperature)),
        (["water"], HKQuantityType(.dietaryWater)),
        (["calories", "dietary-energy"], HKQuantityType(.dietaryEnergyConsumed)),
        (["caffeine"], HKQuantityType(.dietaryCaffeine)),
        (["food"], HKCorrelationType(.food)),
        (["sleep"], HKCategoryType(.sleepAnalysis)),
        (["mindful", "mindfulness", "meditation"], HKCategoryType(.mindfulSession)),
        (["stand-hours"], HKCategoryType(.appleStandHour)),
        (["period", "menstruation"], HKCategoryType(.menstrualFlow)),
        (["workouts", "workout"], HKWorkoutType()),
    ]

    /// Every sample type with its everyday names: the named ones first, in the order above,
    /// then the others as `HKObjectType.allSampleTypes` lists them.
    public static let all: [Entry] = {
        var entries = everyday.map { Entry(type: $0.type, everydayNames: $0.names) }
        let named = Set(entries.map(\.identifier))
        entries += HKObjectType.allSampleTypes.filter { !named.contains($0.identifier) }.map { Entry(type: $0, everydayNames: []) }
        return entries
    }()

    /// The entry of a type.
    public static func entry(for type: HKSampleType) -> Entry {
        all.first { $0.identifier == type.identifier } ?? Entry(type: type, everydayNames: [])
    }

    /// The type a person named: an everyday name, or a HealthKit name (`stepCount`,
    /// `HKQuantityTypeIdentifierStepCount`, `step-count`); case, spaces, `-` and `_` do not matter.
    /// - Throws: ``HealthPresentationError/unknownType(_:)``.
    public static func sampleType(named name: String) throws(HealthPresentationError) -> HKSampleType {
        let key = normalized(name)
        guard !key.isEmpty else { throw .unknownType(name) }
        if let entry = everyday.first(where: { $0.names.contains { normalized($0) == key } }) { return entry.type }
        if let type = HKObjectType.sampleType(named: key) { return type }
        throw .unknownType(name)
    }

    /// HealthKit's Swift name of a type's identifier: `bodyMass`, `sleepAnalysis`, `workout`,
    /// `electrocardiogram`, `gad7`, `visionPrescription`; ``sampleType(named:)`` reads each back.
    public static func swiftName(of type: HKSampleType) -> String {
        let prefixes = ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier",
                        "HKClinicalTypeIdentifier", "HKMedicationDoseEventTypeIdentifier", "HKScoredAssessmentTypeIdentifier",
                        "HKDataTypeIdentifier", "HKDataType", "HK"]
        var name = type.identifier
        if type is HKWorkoutType { return "workout" }
        for prefix in prefixes where name.hasPrefix(prefix) {
            name.removeFirst(prefix.count)
            break
        }
        // "HKVisionPrescriptionTypeIdentifier" → "visionPrescription", "HKWorkoutRouteTypeIdentifier" → "workoutRoute".
        if name.hasSuffix("TypeIdentifier"), name.count > "TypeIdentifier".count { name.removeLast("TypeIdentifier".count) }
        guard let first = name.first else { return type.identifier }
        // "UVExposure" → "uvExposure", "VO2Max" → "vo2Max", "BodyMass" → "bodyMass".
        let characters = Array(name)
        var lowered = 0
        while lowered < characters.count, characters[lowered].isUppercase || (lowered > 0 && characters[lowered].isNumber) {
            lowered += 1
        }
        if lowered > 1, lowered < characters.count, characters[lowered].isLowercase { lowered -= 1 }
        if lowered <= 1 { return first.lowercased() + name.dropFirst() }
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// The name without case, spaces, dashes or underscores.
    private static func normalized(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }
    }
}
