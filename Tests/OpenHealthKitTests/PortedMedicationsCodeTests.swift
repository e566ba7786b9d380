import Foundation
import OpenHealthKit
import Testing

/// HealthKit's medications API (iOS 26) as its documentation pages and the "Meet the HealthKit
/// Medications API" session use it, compiled against `import OpenHealthKit` with only the import
/// changed; the store's owner plays the Health app, adding the medications and logging doses.
@Suite("HealthKit medications code, ported by changing the import")
struct PortedMedicationsCodeTests {
    @Test("Authorize, list active medications, find each one's latest dose, observe doses with an anchored query")
    func medicationsSampleApp() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ported-medications-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let location = HKHealthStore.Location.file(folder.appendingPathComponent("health.sqlite"))
        let key = StoreKey.keyFile(folder.appendingPathComponent("health.key"))
        let healthStore = HKHealthStore(configuration: .init(location: location, key: key))
        let health = HKHealthStore(configuration: .init(location: location, key: key, source: HKSource(name: "Health", bundleIdentifier: "com.apple.Health"),
                                                        role: .owner))
        let rxNorm = "http://www.nlm.nih.gov/research/umls/rxnorm"
        let tracked = try await health.addMedication(displayText: "Lisinopril 10 MG Oral Tablet", generalForm: .tablet,
                                                     relatedCodings: [HKClinicalCoding(system: rxNorm, version: nil, code: "314076")],
                                                     nickname: "Blood pressure", hasSchedule: true)
        let old = try await health.addMedication(displayText: "Amoxicillin 500 MG Oral Capsule", generalForm: .capsule)
        try await health.setMedication(old, archived: true)
        let reference = Date(timeIntervalSince1970: 1_763_000_000)
        try await health.logMedicationDose(of: tracked, status: .taken, doseQuantity: 1, date: reference, scheduledDate: reference,
                                           scheduledDoseQuantity: 1)
        try await health.logMedicationDose(of: tracked, status: .taken, doseQuantity: 1, date: reference.addingTimeInterval(86_400),
                                           scheduledDate: reference.addingTimeInterval(86_400), scheduledDoseQuantity: 1)

        // Authorization: the person chooses which medications the app reads.
        try await healthStore.requestPerObjectReadAuthorization(for: .userAnnotatedMedicationType(), predicate: nil)

        // Fetch the active medications.
        let predicate = HKQuery.predicateForUserAnnotatedMedications(isArchived: false)
        let queryDescriptor = HKUserAnnotatedMedicationQueryDescriptor(predicate: predicate)
        let medications = try await queryDescriptor.result(for: healthStore)
        #expect(medications.map(\.medication.displayText) == ["Lisinopril 10 MG Oral Tablet"])
        #expect(medications.first?.nickname == "Blood pressure")
        let codes = medications.first?.medication.relatedCodings.filter { $0.system == rxNorm }.map(\.code)
        #expect(codes == ["314076"])

        // The most recent dose of each medication.
        for annotated in medications {
            let dosePredicate = HKQuery.predicateForMedicationDoseEvent(medicationConceptIdentifier: annotated.medication.identifier)
            let descriptor = HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(), predicate: dosePredicate)],
                                                     sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)], limit: 1)
            let latest = try await descriptor.result(for: healthStore).first as? HKMedicationDoseEvent
            #expect(latest?.startDate == reference.addingTimeInterval(86_400))
            #expect(latest?.logStatus == .taken)
            #expect(latest?.doseQuantity == 1)
        }

        // Taken doses, with the anchored object query descriptor; then a deletion arrives.
        let taken = HKQuery.predicateForMedicationDoseEvent(status: .taken)
        let anchored = HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(), predicate: taken)], anchor: nil)
        let first = try await anchored.result(for: healthStore)
        #expect(first.addedSamples.count == 2)
        let doses = first.addedSamples.compactMap { $0 as? HKMedicationDoseEvent }
        try await health.delete(try #require(doses.first))
        let next = try await HKAnchoredObjectQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(), predicate: taken)],
                                                             anchor: first.newAnchor).result(for: healthStore)
        #expect(next.deletedObjects.map(\.uuid) == [doses[0].uuid])

        // The callback query delivers medications one at a time, then done.
        let count: Int = await withCheckedContinuation { continuation in
            let counter = Counter()
            let query = HKUserAnnotatedMedicationQuery(predicate: nil, limit: HKObjectQueryNoLimit) { _, medication, done, _ in
                if medication != nil { counter.increment() }
                if done { continuation.resume(returning: counter.value) }
            }
            healthStore.execute(query)
        }
        #expect(count == 2)
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
