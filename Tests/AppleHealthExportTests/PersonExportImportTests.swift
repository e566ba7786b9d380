import AppleHealthExport
import AppleHealthExportGenerator
import Foundation
import OpenHealthKit
import Testing
import TestSupport

@Suite("Apple Health import of a generated person's export (iPhone, Apple Watch, scale, workouts with routes)")
struct PersonExportImportTests {
    @Test("Four days of a person's export: every record, correlation, workout and route point is stored, only the cardio fitness medications are not")
    func importsEverything() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("export-person-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let xml = folder.appendingPathComponent("export.xml")
        let routes = folder.appendingPathComponent("workout-routes")
        let summary = try AppleHealthExportGenerator.writePersonExport(days: 4, to: xml, routes: routes)
        // Four days from 2023-01-01: workouts on days 1 and 3, blood pressure on day 1, body mass on day 0, a night a day.
        #expect(summary.workouts == 2 && summary.routePoints.count == 2 && summary.correlations == 1)
        #expect(summary.records.count == 15 && summary.heartbeatLists == 20 && summary.activitySummaries == 4)
        #expect(summary.records["HKQuantityTypeIdentifierBodyMass"] == 1 && summary.records["HKCategoryTypeIdentifierSleepAnalysis"] == 52)
        #expect(summary.records["HKCategoryTypeIdentifierAppleStandHour"] == 64 && summary.records["HKQuantityTypeIdentifierRestingHeartRate"] == 4)
        #expect(summary.routePoints.values.allSatisfy { (2_400...3_600).contains($0) })
        // Deterministic: the same days write the same bytes.
        let again = folder.appendingPathComponent("again.xml")
        try AppleHealthExportGenerator.writePersonExport(days: 4, to: again, routes: folder.appendingPathComponent("again-routes"))
        #expect(try Data(contentsOf: again) == Data(contentsOf: xml))

        let archive = folder.appendingPathComponent("export.zip")
        try AppleHealthExportGenerator.writeZip(to: archive, exportXMLFile: xml, routes: routes)
        let store = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                       key: .keyFile(folder.appendingPathComponent("health.key")), role: .owner))
        let report = try await AppleHealthImporter().importExport(at: archive, into: store)
        // Nothing is left out but the Me element's cardio fitness medications (iOS 16's exports
        // write it; no HealthKit characteristic type of this store holds it).
        let medications = ["unsupported characteristic HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse": 1]
        #expect(report.skipped == medications, "not imported: \(report.skipped)")

        var expected = summary.records
        // Apple writes each correlation member twice: only the correlation's copy is stored.
        expected["HKQuantityTypeIdentifierBloodPressureSystolic"] = summary.correlations
        expected["HKQuantityTypeIdentifierBloodPressureDiastolic"] = summary.correlations
        expected[HKCorrelationTypeIdentifier.bloodPressure.rawValue] = summary.correlations
        expected[HKDataTypeIdentifierHeartbeatSeries] = summary.heartbeatLists
        expected[HKWorkoutTypeIdentifier] = summary.workouts
        expected[HKWorkoutRouteTypeIdentifier] = summary.workouts
        expected[HKActivitySummaryTypeIdentifier] = summary.activitySummaries
        #expect(report.imported == expected)
        #expect(report.duplicates == 2 * summary.correlations)

        // The store holds them: per type, correlations once, each route with all its points.
        for identifier in [HKQuantityTypeIdentifier.heartRate, .stepCount, .distanceWalkingRunning, .activeEnergyBurned, .heartRateVariabilitySDNN] {
            let stored = try await AppleHealthImporterTests.quantities(store, identifier).count
            #expect(stored == summary.records[identifier.rawValue], "\(identifier.rawValue)")
        }
        let sleep = try await HKSampleQueryDescriptor(predicates: [.categorySample(type: HKCategoryType(.sleepAnalysis))],
                                                      sortDescriptors: []).result(for: store)
        #expect(sleep.count == 52)
        let pressures = try await HKSampleQueryDescriptor(predicates: [.correlation(type: HKCorrelationType(.bloodPressure))],
                                                          sortDescriptors: []).result(for: store)
        #expect(pressures.count == 1 && pressures.first?.objects.count == 2)
        let workouts = try await HKSampleQueryDescriptor(predicates: [.workout()], sortDescriptors: [SortDescriptor(\.startDate)]).result(for: store)
        #expect(workouts.count == 2)
        var points: [Int] = []
        for workout in workouts {
            let linked = try await WorkoutRouteImportTests.routes(store, of: workout)
            #expect(linked.count == 1)
            for route in linked { points.append(try await WorkoutRouteImportTests.locations(store, route).count) }
        }
        #expect(points.sorted() == summary.routePoints.values.sorted())
        #expect(try await AppleHealthImporterTests.activitySummaries(store).count == 4)

        let second = try await AppleHealthImporter().importExport(at: archive, into: store)
        #expect(second.importedCount == 0 && second.skipped == medications)
    }
}
