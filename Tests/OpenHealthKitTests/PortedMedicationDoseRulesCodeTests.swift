import Foundation
import OpenHealthKit
import Testing

/// Medication dose events (iOS 26) as Apple's pages describe them: `scheduledDate` is "always
/// non-null for .schedule and always null for .asNeeded", the key paths `HKPredicateKeyPathStatus`
/// and `HKPredicateKeyPathScheduledDate` name what the dose-event predicates match, and
/// medications are read through per-object authorization of `userAnnotatedMedicationType()`.
/// Compiled against `import OpenHealthKit` with only the import changed.
@Suite("HealthKit medication dose rules, ported by changing the import")
struct PortedMedicationDoseRulesCodeTests {
    private func stores() -> (app: HKHealthStore, health: HKHealthStore, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-dose-rules-\(UUID().uuidString)")
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        let app = HKHealthStore(configuration: .init(location: location, key: key))
        let health = HKHealthStore(configuration: .init(location: location, key: key,
                                                        source: HKSource(name: "Health", bundleIdentifier: "com.apple.Health"), role: .owner))
        return (app, health, folder)
    }

    @Test("An as-needed dose has no scheduled date or quantity; a scheduled one has both, and the scheduled-date predicates find it")
    func scheduleRules() async throws {
        let (healthStore, health, folder) = stores()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ibuprofen = try await health.addMedication(displayText: "Ibuprofen 200 MG Oral Tablet", generalForm: .tablet)
        let statin = try await health.addMedication(displayText: "Atorvastatin 20 MG Oral Tablet", generalForm: .tablet, hasSchedule: true)
        let evening = Date(timeIntervalSince1970: 1_763_060_000)

        // A scheduled quantity without a schedule is refused, and nothing is stored.
        await #expect(throws: HKError.self) {
            try await health.logMedicationDose(of: ibuprofen, status: .taken, doseQuantity: 2, date: evening, scheduledDoseQuantity: 2)
        }
        let asNeeded = try await health.logMedicationDose(of: ibuprofen, status: .taken, doseQuantity: 2, date: evening)
        let scheduled = try await health.logMedicationDose(of: statin, status: .taken, doseQuantity: 1, date: evening.addingTimeInterval(300),
                                                           scheduledDate: evening, scheduledDoseQuantity: 1)

        try await healthStore.requestPerObjectReadAuthorization(for: HKObjectType.userAnnotatedMedicationType(), predicate: nil)
        let all = try await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType())],
                                                    sortDescriptors: [SortDescriptor(\.startDate)]).result(for: healthStore)
            .compactMap { $0 as? HKMedicationDoseEvent }
        #expect(all.map(\.uuid) == [asNeeded.uuid, scheduled.uuid])
        let readAsNeeded = try #require(all.first)
        #expect(readAsNeeded.scheduleType == .asNeeded)
        #expect(readAsNeeded.scheduledDate == nil && readAsNeeded.scheduledDoseQuantity == nil && readAsNeeded.doseQuantity == 2)
        let readScheduled = try #require(all.last)
        #expect(readScheduled.scheduleType == .schedule && readScheduled.scheduledDate == evening && readScheduled.scheduledDoseQuantity == 1)

        // The scheduled-date predicates (HKPredicateKeyPathScheduledDate) never match an as-needed dose.
        let window = HKQuery.predicateForMedicationDoseEvent(scheduledStart: evening.addingTimeInterval(-3_600), end: evening.addingTimeInterval(3_600))
        let inWindow = try await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(), predicate: window)],
                                                         sortDescriptors: []).result(for: healthStore)
        #expect(inWindow.map(\.uuid) == [scheduled.uuid])
        let exact = try await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(),
                                                                           predicate: HKQuery.predicateForMedicationDoseEvent(scheduledDate: evening))],
                                                      sortDescriptors: []).result(for: healthStore)
        #expect(exact.map(\.uuid) == [scheduled.uuid])
        // The log-status predicate (HKPredicateKeyPathStatus).
        let skipped = try await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(),
                                                                             predicate: HKQuery.predicateForMedicationDoseEvent(status: .skipped))],
                                                        sortDescriptors: []).result(for: healthStore)
        #expect(skipped.isEmpty)
        #expect(HKPredicateKeyPathStatus == "status" && HKPredicateKeyPathScheduledDate == "scheduledDate")
    }

    @Test("Medication dose events are among every sample type and found by their identifier")
    func typeLookup() {
        #expect(HKObjectType.allSampleTypes.contains { $0 is HKMedicationDoseEventType })
        #expect(HKObjectType.allSampleTypes.filter { $0.identifier == HKMedicationDoseEventTypeIdentifierMedicationDoseEvent }.count == 1)
        #expect(HKObjectType.medicationDoseEventType().identifier == HKMedicationDoseEventTypeIdentifierMedicationDoseEvent)
        #expect(HKObjectType.userAnnotatedMedicationType().identifier == HKDataTypeIdentifierUserAnnotatedMedicationConcept)
    }

    @Test("An app that was not let read medications reads no doses and no medications")
    func perObjectAuthorizationDenied() async throws {
        let (_, health, folder) = stores()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ibuprofen = try await health.addMedication(displayText: "Ibuprofen 200 MG Oral Tablet", generalForm: .tablet)
        try await health.logMedicationDose(of: ibuprofen, status: .taken, doseQuantity: 1, date: Date(timeIntervalSince1970: 1_763_000_000))
        let app = HKHealthStore(configuration: .init(location: .file(folder.appendingPathComponent("health.sqlite")),
                                                     key: .keyFile(folder.appendingPathComponent("health.key")),
                                                     source: HKSource(name: "Other", bundleIdentifier: "org.example.other")))
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: app).isEmpty)
        let doses = try? await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType())], sortDescriptors: [])
            .result(for: app)
        #expect((doses ?? []).isEmpty)
    }
}
