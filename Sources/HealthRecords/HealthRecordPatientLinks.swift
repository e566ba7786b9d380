import FHIRCore
import Foundation
import OpenHealthKit

/// The patients of stored records, kept whatever the order their files came in: a Patient that
/// arrives in a file of its own (a lone Patient resource, a Bulk `Patient.ndjson`) is kept in the
/// store and names the records that refer to it, stored before or after it; and records stored
/// before the import kept their patient (`HealthRecordPatient`) get it once from their FHIR JSON.
extension HealthRecordPatient {
    /// The name of the one-time pass (``completeStoredRecords(in:)``) that gives records stored
    /// before the import kept their patient the same metadata from their FHIR JSON.
    public static let storedRecordsPass = "health-record-patients"
    /// How many records a pass or a link changes per transaction.
    static let batchSize = 500

    /// The metadata that names this patient on a record that may have been named otherwise
    /// before: every key of ``metadata``, those the patient lacks written empty (read as absent), so
    /// that a name or display kept earlier does not outlive it.
    public var replacingMetadata: [String: Any] {
        var metadata = self.metadata
        for key in [Self.givenNamesKey, Self.familyNameKey, Self.nameTextKey, Self.birthDateKey] where metadata[key] == nil {
            metadata[key] = ""
        }
        return metadata
    }

    /// The patient a clinical record's FHIR JSON refers to (its `subject`, else its `patient`),
    /// named after the Patient `patients` keeps for its reference, else by the reference's display;
    /// a patient with an empty reference when the JSON refers to none (or cannot be read).
    /// - Parameters:
    ///   - json: the record's FHIR resource.
    ///   - patients: the people of known Patients, by reference.
    public static func of(json: Data, patients: [String: HealthRecordPerson]) -> HealthRecordPatient {
        guard let object = (try? JSONParser.parse(json))?.objectValue, let patient = of(object, patients: patients) else {
            return HealthRecordPatient(reference: "", person: nil)
        }
        return patient
    }

    /// Gives every stored clinical record kept without its patient (stored before the import kept
    /// it) the metadata the import now writes, from the record's FHIR JSON (the reference, and the
    /// name and birth date of a Patient the store keeps for it, else the reference's display); a
    /// record whose resource refers to no patient keeps an empty reference. Runs once per store:
    /// the store then remembers it ran (``storedRecordsPass``), and a later call costs one lookup.
    /// Records change in place (the same UUID, dates, source and resource), 500 to a transaction;
    /// a pass interrupted part way goes on from where it stopped.
    /// - Parameter store: the store, opened as its owner.
    /// - Returns: how many records were given their patient.
    @discardableResult
    public static func completeStoredRecords(in store: HKHealthStore) async throws -> Int {
        try await StoredRecordPass.run(storedRecordsPass, missing: referenceKey, of: HKObjectType.allClinicalTypes, batchSize: batchSize,
                                       in: store) { records in
            let found = records.map { record in (record, of(json: record.fhirResource?.data ?? Data(), patients: [:])) }
            let kept = try await keptPeople(Set(found.map { $0.1.reference }), in: store)
            var additions: [UUID: [String: Any]] = [:]
            for (record, patient) in found {
                var patient = patient
                // As the import writes it: named after a kept Patient as `named(_:in:)` names it.
                guard let person = kept[patient.reference] else {
                    additions[record.uuid] = patient.metadata
                    continue
                }
                patient.person = person
                additions[record.uuid] = patient.replacingMetadata
            }
            return additions
        }
    }

    /// Keeps Patients in the store (by each `Patient/id` reference that may point at them) and names
    /// after them the stored records that refer to them and are not named so yet, in place.
    /// - Parameters:
    ///   - patients: the people of the Patients, by reference (``patients(in:)``).
    ///   - store: the store, opened as its owner.
    /// - Returns: how many stored records were named.
    @discardableResult
    public static func link(_ patients: [String: HealthRecordPerson], in store: HKHealthStore) async throws -> Int {
        var named = 0
        for (reference, person) in patients.sorted(by: { $0.key < $1.key }) where isLinkable(reference) {
            let patient = HealthRecordPatient(reference: reference, person: person)
            try await store.saveHealthRecordPatient(reference: reference, details: patient.details)
            let same = HKQuery.predicateForObjects(withMetadataKey: referenceKey, allowedValues: [reference])
            let records = try await clinicalRecords(in: store, matching: same, limit: 0)
            let unnamed = records.filter { HealthRecordPatient(metadata: $0.metadata)?.person != person }
            var start = 0
            while start < unnamed.count {
                let batch = unnamed[start..<min(unnamed.count, start + batchSize)]
                named += try await store.addMetadata(toClinicalRecords: Dictionary(batch.map { ($0.uuid, patient.replacingMetadata) }) { first, _ in first })
                start += batchSize
            }
        }
        return named
    }

    /// Records named after the Patients the store keeps: each record whose metadata keeps a
    /// reference but no person, and whose reference the store keeps a Patient for, as the same
    /// record with that Patient in its metadata (``replacingMetadata``, as ``link(_:in:)`` writes
    /// it, so that importing the same records again finds them already stored).
    /// - Parameters:
    ///   - records: the records, not yet stored.
    ///   - store: the store, opened as its owner.
    public static func named(_ records: [HKSample], in store: HKHealthStore) async throws -> [HKSample] {
        let references = Set(records.compactMap { record -> String? in
            guard record is HKClinicalRecord, let patient = HealthRecordPatient(metadata: record.metadata), !patient.reference.isEmpty else { return nil }
            return patient.reference
        })
        let kept = try await keptPeople(references, in: store)
        guard !kept.isEmpty else { return records }
        return records.map { sample in
            guard let record = sample as? HKClinicalRecord, let resource = record.fhirResource,
                  var patient = HealthRecordPatient(metadata: record.metadata), let person = kept[patient.reference],
                  patient.person != person else { return sample }
            // A record whose own input named its Patient keeps that name.
            if let own = patient.person, own.text == nil || own.givenNames.isEmpty == false || own.familyName != nil { return sample }
            patient.person = person
            var metadata = record.metadata ?? [:]
            metadata.merge(patient.replacingMetadata) { _, new in new }
            return HKClinicalRecord(type: record.clinicalType, startDate: record.startDate, endDate: record.endDate, displayName: record.displayName,
                                    fhirResource: resource, metadata: metadata)
        }
    }

    /// Whether records of other inputs may be linked by `reference`: a `Patient/id` (an input's
    /// own references, such as a health card's `resource:0`, name nothing outside it).
    static func isLinkable(_ reference: String) -> Bool {
        reference.hasPrefix("Patient/") && reference.count > "Patient/".count
    }

    /// What the store keeps about a patient (``link(_:in:)``): its person's metadata as JSON.
    var details: Data {
        var strings: [String: String] = [:]
        for (key, value) in metadata { if let text = value as? String { strings[key] = text } }
        return (try? JSONSerialization.data(withJSONObject: strings, options: [.sortedKeys])) ?? Data()
    }

    /// The people of the Patients the store keeps for `references`.
    static func keptPeople(_ references: Set<String>, in store: HKHealthStore) async throws -> [String: HealthRecordPerson] {
        let wanted = references.filter(isLinkable)
        guard !wanted.isEmpty else { return [:] }
        var people: [String: HealthRecordPerson] = [:]
        for (reference, details) in try await store.healthRecordPatients(references: wanted.sorted()) {
            let metadata = (try? JSONSerialization.jsonObject(with: details)) as? [String: Any]
            if let person = HealthRecordPatient(metadata: metadata)?.person { people[reference] = person }
        }
        return people
    }

    /// Clinical records of every category matching `predicate` (`limit` 0: all of them).
    static func clinicalRecords(in store: HKHealthStore, matching predicate: NSPredicate, limit: Int) async throws -> [HKClinicalRecord] {
        try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: predicate) },
                                          sortDescriptors: [], limit: limit == 0 ? nil : limit).result(for: store)
    }
}
