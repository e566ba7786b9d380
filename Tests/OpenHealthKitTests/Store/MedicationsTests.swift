import Foundation
import GRDB
import Testing
@testable import OpenHealthKit

/// Medications (iOS 26): the owner adds them and logs doses; apps read them as the person
/// chooses, never write them; dose events are samples (queries, anchored queries, deletions).
@Suite("Medications")
struct MedicationsTests {
    static let rxNorm = "http://www.nlm.nih.gov/research/umls/rxnorm"

    @Test("A medication and its RxNorm codings round-trip sealed; adding the same concept again keeps one row")
    func medicationRoundTrip() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let codings: Set<HKClinicalCoding> = [HKClinicalCoding(system: Self.rxNorm, version: nil, code: "310965"),
                                              HKClinicalCoding(system: Self.rxNorm, version: "2024-01", code: "5640")]
        let added = try await owner.addMedication(displayText: "Ibuprofen 200 MG Oral Tablet", generalForm: .tablet, relatedCodings: codings,
                                                  nickname: "Ibuprofen", hasSchedule: true)
        #expect(added.medication.identifier.domain == .medication)
        #expect(added.medication.identifier.description == "rxnorm:310965")
        let again = try await owner.addMedication(displayText: "ibuprofen",
                                                  relatedCodings: [HKClinicalCoding(system: Self.rxNorm, version: nil, code: "310965")])
        #expect(again == added)
        let read = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: owner)
        #expect(read == [added])
        #expect(read.first?.medication.relatedCodings == codings)
        #expect(read.first?.medication.generalForm == .tablet)
        let rows = try owner.engine.database().read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM medication") ?? 0 }
        #expect(rows == 1)
        // Nothing about the medication is in the clear.
        let sealed = try owner.engine.database().read { db in try Data.fetchOne(db, sql: "SELECT sealed FROM medication") ?? Data() }
        #expect(sealed.range(of: Data("Ibuprofen".utf8)) == nil)
    }

    @Test("Archiving and the isArchived / hasSchedule predicates, limits and compounds")
    func predicatesAndArchive() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let a = try await owner.addMedication(displayText: "Metformin", generalForm: .tablet, hasSchedule: true)
        let b = try await owner.addMedication(displayText: "Salbutamol", generalForm: .inhaler)
        let c = try await owner.addMedication(displayText: "Amoxicillin", generalForm: .capsule, hasSchedule: true)
        let archivedC = try await owner.setMedication(c, archived: true)
        #expect(archivedC.isArchived)
        let active = try await HKUserAnnotatedMedicationQueryDescriptor(predicate: HKQuery.predicateForUserAnnotatedMedications(isArchived: false))
            .result(for: owner)
        #expect(active.map(\.medication.displayText) == ["Metformin", "Salbutamol"])
        let scheduledActive = NSCompoundPredicate(andPredicateWithSubpredicates: [
            HKQuery.predicateForUserAnnotatedMedications(isArchived: false), HKQuery.predicateForUserAnnotatedMedications(hasSchedule: true),
        ])
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor(predicate: scheduledActive).result(for: owner) == [a])
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor(limit: 2).result(for: owner).count == 2)
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor(predicate: HKQuery.predicateForUserAnnotatedMedications(isArchived: true))
            .result(for: owner).map(\.medication.displayText) == ["Amoxicillin"])
        _ = b
        // A sample predicate is refused with a typed error, not ignored.
        await #expect(throws: (any Error).self) {
            try await HKUserAnnotatedMedicationQueryDescriptor(predicate: HKQuery.predicateForSamples(withStart: nil, end: nil)).result(for: owner)
        }
    }

    @Test("Dose events: saved by the owner, queried by concept, status and schedule, anchored with deletions")
    func doseEventsRoundTrip() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let metformin = try await owner.addMedication(displayText: "Metformin 500 MG", generalForm: .tablet,
                                                      relatedCodings: [HKClinicalCoding(system: Self.rxNorm, version: nil, code: "861007")],
                                                      hasSchedule: true)
        let inhaler = try await owner.addMedication(displayText: "Salbutamol", generalForm: .inhaler)
        let morning = Samples.reference
        let taken = try await owner.logMedicationDose(of: metformin, status: .taken, doseQuantity: 1, date: morning.addingTimeInterval(120),
                                                      scheduledDate: morning, scheduledDoseQuantity: 1)
        let skipped = try await owner.logMedicationDose(of: metformin, status: .skipped, doseQuantity: nil, date: morning.addingTimeInterval(43_200),
                                                        scheduledDate: morning.addingTimeInterval(43_200), scheduledDoseQuantity: 1)
        let puff = try await owner.logMedicationDose(of: inhaler, status: .taken, doseQuantity: 2, unit: .count(), date: morning.addingTimeInterval(3_600))
        #expect(puff.scheduleType == .asNeeded)
        #expect(taken.scheduleType == .schedule)

        let type = HKObjectType.medicationDoseEventType()
        let all = try await HKSampleQueryDescriptor(predicates: [.sample(type: type)], sortDescriptors: [SortDescriptor(\.startDate)]).result(for: owner)
        let doses = all.compactMap { $0 as? HKMedicationDoseEvent }
        #expect(doses.map(\.uuid) == [taken.uuid, puff.uuid, skipped.uuid])
        let first = try #require(doses.first)
        #expect(first.medicationConceptIdentifier == metformin.medication.identifier)
        #expect(first.scheduledDate == morning)
        #expect(first.doseQuantity == 1 && first.scheduledDoseQuantity == 1)
        #expect(first.unit == .count())
        #expect(first.logStatus == .taken)
        #expect(first.medicationDoseEventType == type)

        func uuids(_ predicate: NSPredicate) async throws -> [UUID] {
            try await HKSampleQueryDescriptor(predicates: [.sample(type: type, predicate: predicate)], sortDescriptors: [SortDescriptor(\.startDate)])
                .result(for: owner).map(\.uuid)
        }
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(medicationConceptIdentifier: metformin.medication.identifier))
            == [taken.uuid, skipped.uuid])
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(medicationConceptIdentifiers: [metformin.medication.identifier,
                                                                                                       inhaler.medication.identifier])).count == 3)
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(status: .skipped)) == [skipped.uuid])
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(scheduledDate: morning)) == [taken.uuid])
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(scheduledDates: [morning, morning.addingTimeInterval(43_200)]))
            == [taken.uuid, skipped.uuid])
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(scheduledStart: morning.addingTimeInterval(1), end: nil)) == [skipped.uuid])
        #expect(try await uuids(HKQuery.predicateForMedicationDoseEvent(scheduledStart: nil, end: morning.addingTimeInterval(43_200)))
            == [taken.uuid])

        let start = try await owner.runAnchoredQuery(type, anchor: nil)
        #expect(start.added.count == 3)
        try await owner.delete(puff)
        let next = try await owner.runAnchoredQuery(type, anchor: start.anchor)
        #expect(next.added.isEmpty)
        #expect(next.deleted.map(\.uuid) == [puff.uuid])
    }

    @Test("A dose of an untracked medication or with a negative quantity is refused")
    func invalidDoses() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let tracked = try await owner.addMedication(displayText: "Aspirin")
        let other = TestStores.owner(TemporaryFolder())
        let stranger = try await other.addMedication(displayText: "Insulin", generalForm: .injection)
        await #expect(throws: HKError.self) {
            try await owner.logMedicationDose(of: stranger, status: .taken, doseQuantity: 1, date: Samples.reference)
        }
        await #expect(throws: HKError.self) {
            try await owner.logMedicationDose(of: tracked, status: .taken, doseQuantity: -1, date: Samples.reference)
        }
        await #expect(throws: HKError.self) {
            try await owner.logMedicationDose(of: tracked, status: .taken, doseQuantity: .nan, date: Samples.reference)
        }
        await #expect(throws: HKError.self) { try await owner.addMedication(displayText: "  ") }
    }

    @Test("Apps never write medications or doses; a denied read looks like no data; a granted one sees both")
    func appAuthorization() async throws {
        let folder = TemporaryFolder()
        let owner = TestStores.owner(folder)
        let medication = try await owner.addMedication(displayText: "Levothyroxine", generalForm: .tablet, hasSchedule: true)
        let dose = try await owner.logMedicationDose(of: medication, status: .taken, doseQuantity: 1, date: Samples.reference)

        let denied = TestStores.app(folder, bundle: "com.example.denied", provider: PolicyFileAuthorizationProvider(policy: .init(apps: [:])))
        await #expect(throws: HKError.self) {
            try await denied.requestAuthorization(toShare: [HKObjectType.medicationDoseEventType()], read: [])
        }
        await #expect(throws: HKError.self) {
            try await denied.requestAuthorization(toShare: [], read: [HKObjectType.userAnnotatedMedicationType()])
        }
        await #expect(throws: HKError.self) { try await denied.addMedication(displayText: "Anything") }
        await #expect(throws: HKError.self) {
            try await denied.save(HKMedicationDoseEvent(concept: medication.medication.identifier, logStatus: .taken, scheduleType: .asNeeded,
                                                        scheduledDate: nil, scheduledDoseQuantity: nil, doseQuantity: 1, unit: .count(),
                                                        start: Samples.reference, end: Samples.reference))
        }
        try await denied.requestPerObjectReadAuthorization(for: HKObjectType.userAnnotatedMedicationType(), predicate: nil)
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: denied).isEmpty)
        let deniedDoses = try await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType())], sortDescriptors: [])
            .result(for: denied)
        #expect(deniedDoses.isEmpty)

        let granted = TestStores.app(folder, bundle: "com.example.granted")
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: granted).isEmpty)
        try await granted.requestPerObjectReadAuthorization(for: HKObjectType.userAnnotatedMedicationType(), predicate: nil)
        #expect(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: granted) == [medication])
        let grantedDoses = try await HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType())], sortDescriptors: [])
            .result(for: granted)
        #expect(grantedDoses.map(\.uuid) == [dose.uuid])
        #expect(granted.authorizationStatus(for: HKObjectType.medicationDoseEventType()) != .sharingAuthorized)
    }

    @Test("Type lookups know both medication types")
    func typeLookups() {
        #expect(HKObjectType.type(forIdentifierString: HKMedicationDoseEventTypeIdentifierMedicationDoseEvent) == HKObjectType.medicationDoseEventType())
        #expect(HKObjectType.type(forIdentifierString: HKDataTypeIdentifierUserAnnotatedMedicationConcept) == HKObjectType.userAnnotatedMedicationType())
        #expect(HKObjectType.sampleType(named: "medicationDoseEvent") == HKObjectType.medicationDoseEventType())
        #expect(HKObjectType.userAnnotatedMedicationType().requiresPerObjectAuthorization())
        #expect(!HKObjectType.medicationDoseEventType().requiresPerObjectAuthorization())
        #expect(HKObjectType.medicationDoseEventType().displayName == "Medication Doses")
        #expect(HKObjectType.userAnnotatedMedicationType().displayName == "Medications")
    }
}
