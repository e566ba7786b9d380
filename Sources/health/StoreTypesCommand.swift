import ArgumentParser
import Foundation
import HealthPresentation
import OpenHealthKit

/// `health store types`: the types a person can name, with their everyday names, HealthKit
/// identifiers and the units (or values) each takes.
struct StoreTypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the sample types by everyday name, with their HealthKit identifier and the units or values they take.",
        discussion: """
            Every command that takes --type accepts any of the names listed, in any case, and \
            HealthKit's names (stepCount, HKQuantityTypeIdentifierStepCount). --unit takes the units \
            listed and HealthKit unit strings; a category's --value takes the value names listed \
            (asleepDeep, or "Deep sleep" as the Health app writes it).
            """)

    @Flag(help: "List every sample type, not only those with everyday names.")
    var all = false

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        let entries = HealthTypes.all.filter { all || !$0.everydayNames.isEmpty }
        if json {
            let objects: [[String: Any]] = entries.map(Self.jsonObject)
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        var rows = [["Name", "Also", "HealthKit identifier", "Units or values"]]
        for entry in entries {
            let also = (entry.everydayNames.dropFirst() + [entry.swiftName]).filter { $0 != entry.name }
            rows.append([entry.name, also.joined(separator: ", "), entry.identifier, Self.takes(entry.type).joined(separator: ", ")])
        }
        for line in HealthFormatter.columns(rows) { print(line) }
        if !all { print("\n\(HealthTypes.all.count - entries.count) more types by their HealthKit names: health store types --all") }
    }

    /// What `--unit` or `--value` takes for a type.
    static func takes(_ type: HKSampleType) -> [String] {
        switch type {
        case let quantity as HKQuantityType:
            return HealthUnits.acceptedUnits(for: quantity)
        case let category as HKCategoryType:
            return CategoryValues.isValueless(category) ? ["(no value)"] : CategoryValues.values(for: category)?.map(\.name) ?? []
        case let correlation as HKCorrelationType where correlation.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue:
            return ["systolic/diastolic in mmHg, e.g. 120/80"]
        case is HKWorkoutType:
            return ["--activity running, walking, cycling…"]
        case is HKMedicationDoseEventType:
            return ["logged with health store medications dose (taken, skipped…)"]
        case is HKStateOfMindType:
            return ["--value valence -1…1, --kind, --labels, --associations"]
        case let assessment as HKScoredAssessmentType:
            return ["--answers: \(assessment.identifier == HKScoredAssessmentTypeIdentifier.GAD7.rawValue ? 7 : 9) answers, each 0-3"]
        case is HKAudiogramSampleType:
            return ["--points HZ:LEFT/RIGHT dB HL, e.g. 500:20/25,1000:15/20"]
        case is HKPrescriptionType:
            return ["--right/--left SPHERE[/CYLINDER/AXIS[/ADD]], --brand for contacts, --expires"]
        default:
            // Foods and the like are read (`store query`), not added from the command line.
            return ["(query only: store add does not add it)"]
        }
    }

    /// Whether `health store add` adds samples of `type`: quantities, categories, blood
    /// pressures, workouts, states of mind, GAD-7 and PHQ-9 assessments, audiograms and vision
    /// prescriptions.
    static func addable(_ type: HKSampleType) -> Bool {
        switch type {
        case is HKQuantityType, is HKCategoryType, is HKWorkoutType: return true
        case is HKStateOfMindType, is HKScoredAssessmentType, is HKAudiogramSampleType, is HKPrescriptionType: return true
        case let correlation as HKCorrelationType: return correlation.identifier == HKCorrelationTypeIdentifier.bloodPressure.rawValue
        default: return false
        }
    }

    static func jsonObject(_ entry: HealthTypes.Entry) -> [String: Any] {
        var object: [String: Any] = [
            "name": entry.name,
            "names": entry.everydayNames,
            "healthKitName": entry.swiftName,
            "identifier": entry.identifier,
            "displayName": entry.type.displayName,
            "addable": addable(entry.type),
        ]
        switch entry.type {
        case let quantity as HKQuantityType:
            object["kind"] = "quantity"
            object["units"] = HealthUnits.acceptedUnits(for: quantity)
        case let category as HKCategoryType:
            object["kind"] = "category"
            object["values"] = (CategoryValues.values(for: category) ?? []).map {
                ["name": $0.name, "label": $0.label, "value": $0.rawValue] as [String: Any]
            }
        case is HKCorrelationType:
            object["kind"] = "correlation"
        case is HKWorkoutType:
            object["kind"] = "workout"
        default:
            object["kind"] = "other"
        }
        return object
    }
}
