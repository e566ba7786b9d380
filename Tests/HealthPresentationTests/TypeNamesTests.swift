import Foundation
import HealthPresentation
import OpenHealthKit
import Testing

@Suite("Type names people use: import summaries and add titles")
struct TypeNamesTests {
    /// Every identifier an Apple Health import counts: sample types, activity summaries,
    /// workout routes, heartbeat series, ECGs, audiograms, clinical records.
    static var importedIdentifiers: [String] {
        HKObjectType.allSampleTypes.map(\.identifier) + [
            HKActivitySummaryTypeIdentifier, HKWorkoutRouteTypeIdentifier, HKDataTypeIdentifierHeartbeatSeries,
            HKVisionPrescriptionTypeIdentifier, "HKDataTypeIdentifierElectrocardiogram", "HKDataTypeIdentifierAudiogram",
            "HKDataTypeStateOfMind", "HKClinicalTypeIdentifierLabResultRecord", "HKClinicalTypeIdentifierMedicationRecord",
        ]
    }

    @Test("The import summary names activity summaries 'Activity Rings', routes 'Workout Routes', steps 'Steps'")
    func namedTypes() {
        #expect(HealthTypes.personName(forIdentifier: HKActivitySummaryTypeIdentifier) == "Activity Rings")
        #expect(HealthTypes.personName(forIdentifier: HKWorkoutRouteTypeIdentifier) == "Workout Routes")
        #expect(HealthTypes.personName(forIdentifier: HKQuantityTypeIdentifier.stepCount.rawValue) == "Steps")
        #expect(HealthTypes.personName(forIdentifier: HKQuantityTypeIdentifier.bodyMass.rawValue) == "Weight")
        #expect(HealthTypes.personName(forIdentifier: HKWorkoutTypeIdentifier) == "Workouts")
        #expect(HealthTypes.personName(forIdentifier: "HKClinicalTypeIdentifierLabResultRecord") == "Lab Result Record")
        #expect(HealthTypes.personName(of: HKSeriesType.workoutRoute()) == "Workout Routes")
        let text = ImportSummaryText(stored: [HKActivitySummaryTypeIdentifier: 2, HKWorkoutRouteTypeIdentifier: 1], alreadyStored: [:],
                                     notImported: [:], batches: 1, duplicates: 0)
        #expect(text.lines.contains("  Activity Rings: 2 stored"))
        #expect(text.lines.contains("  Workout Routes: 1 stored"))
    }

    @Test("No name an import summary can show is a HealthKit identifier or a run of its words")
    func noIdentifierWords() {
        for identifier in Self.importedIdentifiers {
            let name = HealthTypes.personName(forIdentifier: identifier)
            #expect(!name.isEmpty)
            #expect(!name.contains("HK") && !name.contains("Identifier") && !name.contains("Type "), "\(identifier): \(name)")
        }
    }

    @Test("Add titles read as one thing added: 'Add a workout', 'Add weight', 'Add BMI'; no identifier words")
    func addTitles() {
        #expect(HealthTypes.addTitle(of: HKWorkoutType()) == "Add a workout")
        #expect(HealthTypes.addTitle(of: HKQuantityType(.bodyMass)) == "Add weight")
        #expect(HealthTypes.addTitle(of: HKQuantityType(.heartRate)) == "Add heart rate")
        #expect(HealthTypes.addTitle(of: HKQuantityType(.bodyMassIndex)) == "Add BMI")
        #expect(HealthTypes.addTitle(of: HKCorrelationType(.bloodPressure)) == "Add blood pressure")
        #expect(HealthTypes.addTitle(of: HKCategoryType(.mindfulSession)) == "Add a mindful session")
        for type in HKObjectType.allSampleTypes {
            let title = HealthTypes.addTitle(of: type)
            #expect(title.hasPrefix("Add ") && !title.contains("HK") && !title.contains("Identifier"), "\(type.identifier): \(title)")
            // Only the everyday plural 'Steps' / 'Flights' style names may end a title in "s"
            // when the plural is the thing counted, never "Workouts".
            #expect(!title.hasSuffix("Workouts"))
        }
    }
}
