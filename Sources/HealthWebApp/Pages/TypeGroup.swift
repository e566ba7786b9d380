import OpenHealthKit

/// The groups of the Browse page, as the Health app groups types.
enum TypeGroup: String, CaseIterable, Sendable {
    case activity, body, heart, sleep, vitals, nutrition, other

    var name: String {
        switch self {
        case .activity: "Activity"
        case .body: "Body Measurements"
        case .heart: "Heart"
        case .sleep: "Sleep"
        case .vitals: "Vitals"
        case .nutrition: "Nutrition"
        case .other: "Other Data"
        }
    }

    /// The group of a type identifier.
    static func of(_ identifier: String) -> TypeGroup {
        let name = identifier.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
            .replacingOccurrences(of: "HKCategoryTypeIdentifier", with: "")
            .replacingOccurrences(of: "HKCorrelationTypeIdentifier", with: "")
        if identifier == HKWorkoutTypeIdentifier { return .activity }
        if name.hasPrefix("Dietary") || name == "Food" { return .nutrition }
        if name.hasPrefix("Sleep") || name == "AppleSleepingWristTemperature" { return .sleep }
        if ["HeartRate", "RestingHeartRate", "WalkingHeartRateAverage", "HeartRateVariabilitySDNN", "HeartRateRecoveryOneMinute",
            "AtrialFibrillationBurden", "VO2Max", "HighHeartRateEvent", "LowHeartRateEvent", "IrregularHeartRhythmEvent"].contains(name) {
            return .heart
        }
        if ["BloodPressure", "BloodPressureSystolic", "BloodPressureDiastolic", "BloodGlucose", "BodyTemperature", "OxygenSaturation",
            "RespiratoryRate", "BasalBodyTemperature"].contains(name) {
            return .vitals
        }
        if ["BodyMass", "BodyMassIndex", "BodyFatPercentage", "LeanBodyMass", "Height", "WaistCircumference"].contains(name) {
            return .body
        }
        if ["StepCount", "DistanceWalkingRunning", "DistanceCycling", "DistanceSwimming", "ActiveEnergyBurned", "BasalEnergyBurned",
            "FlightsClimbed", "AppleExerciseTime", "AppleStandTime", "AppleStandHour", "AppleMoveTime", "PushCount",
            "DistanceWheelchair", "SwimmingStrokeCount", "NikeFuel", "PhysicalEffort"].contains(name) {
            return .activity
        }
        return .other
    }
}
