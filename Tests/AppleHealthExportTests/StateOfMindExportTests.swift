import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// State of mind and medications are HealthKit samples, but Apple's export.xml (HealthKit Export
/// Version 14: `Record`, `Correlation`, `Workout`, `ActivitySummary`, `ClinicalRecord`, `Audiogram`,
/// `VisionPrescription`) documents no form for them. A record naming one is reported as such, not
/// as a Health app setting, and the settings keep their own reason.
@Suite("Apple Health import: state of mind and medications in an export")
struct StateOfMindExportTests {
    @Test("A record of state of mind or a medication type is skipped as a type the export does not carry; a sleep goal as a setting")
    func undocumentedTypesHaveTheirReason() async throws {
        var export = AppleHealthExportGenerator()
        let morning = "2025-10-03 08:00:00 -0400"
        let types = ["HKDataTypeStateOfMind", "HKDataTypeIdentifierStateOfMind", HKDataTypeIdentifierUserAnnotatedMedicationConcept,
                     HKMedicationDoseEventTypeIdentifierMedicationDoseEvent]
        for type in types { export.record(type: type, unit: nil, value: "1", start: morning, end: morning) }
        export.record(type: "HKDataTypeSleepDurationGoal", unit: "hr", value: "8", start: morning, end: morning)
        let url = try AppleHealthImporterTests.write(export.document())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()

        let report = try await AppleHealthImporter().importExport(at: url, into: store)
        for type in types {
            #expect(report.skipped["\(type) (a HealthKit type Apple's export format does not carry: not stored)"] == 1, "\(report.skipped)")
        }
        #expect(report.skipped["HKDataTypeSleepDurationGoal (a Health app setting, not a HealthKit sample: not stored)"] == 1)
        #expect(!report.skipped.keys.contains { $0.hasPrefix("HKDataTypeStateOfMind (a Health app setting") })
        #expect(report.importedCount == 0)
    }
}
