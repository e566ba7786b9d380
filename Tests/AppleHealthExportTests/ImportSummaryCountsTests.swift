import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

/// The report says what the store did: samples stored, samples it already had (an earlier run,
/// or an identical line earlier in the same file), and elements skipped; a second run of the
/// same import stores nothing and reports every sample as already there.
@Suite("Apple Health import: stored, already there, skipped")
struct ImportSummaryCountsTests {
    @Test("Identical lines are stored once; a second run stores nothing; correlations, members and summaries are counted the same way")
    func storedAndAlreadyThere() async throws {
        var export = AppleHealthExportGenerator()
        let morning = "2020-10-03 08:00:00 -0400", noon = "2020-10-03 12:00:00 -0400"
        export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "500", start: morning, end: noon)
        export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "500", start: morning, end: noon)
        export.record(type: "HKQuantityTypeIdentifierStepCount", unit: "count", value: "700", start: noon, end: noon)
        export.raw(CorrelationTwinTests.correlation(at: morning, "121", "79"))
        export.raw(#" <ActivitySummary dateComponents="2020-10-03" activeEnergyBurned="300" activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="kcal"/>"#)
        export.record(type: "HKDataTypeSleepDurationGoal", unit: "hr", value: "8", start: morning, end: morning)
        let url = try AppleHealthImporterTests.write(export.document())
        defer { AppleHealthImporterTests.remove(url) }
        let store = AppleHealthImporterTests.ownerStore()

        let first = try await AppleHealthImporter(batchSize: 2).importExport(at: url, into: store)
        let steps = HKQuantityTypeIdentifier.stepCount.rawValue
        #expect(first.imported[steps] == 2 && first.alreadyStored[steps] == 1)
        #expect(first.imported[HKCorrelationTypeIdentifier.bloodPressure.rawValue] == 1)
        #expect(first.imported[HKQuantityTypeIdentifier.bloodPressureSystolic.rawValue] == 1)
        #expect(first.imported[HKActivitySummaryTypeIdentifier] == 1)
        #expect(first.importedCount == 6 && first.alreadyStoredCount == 1)
        #expect(first.skipped.first { $0.key.hasPrefix("HKDataTypeSleepDurationGoal") }?.value == 1)
        let stored = try await AppleHealthImporterTests.quantities(store, .stepCount)
        #expect(stored.count == first.imported[steps])

        let second = try await AppleHealthImporter().importExport(at: url, into: store)
        #expect(second.importedCount == 0)
        #expect(second.alreadyStored[steps] == 3)
        #expect(second.alreadyStored[HKCorrelationTypeIdentifier.bloodPressure.rawValue] == 1)
        #expect(second.alreadyStored[HKQuantityTypeIdentifier.bloodPressureDiastolic.rawValue] == 1)
        #expect(second.alreadyStored[HKActivitySummaryTypeIdentifier] == 1)
        #expect(second.alreadyStoredCount == 7 && second.skipped == first.skipped)
        #expect(try await AppleHealthImporterTests.quantities(store, .stepCount).count == 2)
    }

    @Test("A changed activity summary replaces the stored one; an identical one leaves no deleted object behind")
    func activitySummaryContent() async throws {
        let store = AppleHealthImporterTests.ownerStore()
        let revision = HKSourceRevision(source: HKSource(name: "Health", bundleIdentifier: "org.example.health"), version: nil)
        func summary(_ energy: Double) throws -> HKActivitySummary {
            try HKActivitySummary(dateComponents: DateComponents(year: 2020, month: 10, day: 3),
                                  activeEnergyBurned: HKQuantity(unit: .kilocalorie(), doubleValue: energy),
                                  activeEnergyBurnedGoal: HKQuantity(unit: .kilocalorie(), doubleValue: 400))
        }
        #expect(try await store.saveActivitySummaries([summary(300)], recordedAs: revision).storedCount == 1)
        let again = try await store.saveActivitySummaries([summary(300)], recordedAs: revision)
        #expect(again.storedCount == 0 && again.alreadyStoredCount == 1)
        let changed = try await store.saveActivitySummaries([summary(350)], recordedAs: revision)
        #expect(changed.storedCount == 1 && changed.replacedCount == 1)
    }
}
