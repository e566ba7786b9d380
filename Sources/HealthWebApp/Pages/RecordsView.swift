import Foundation
import HealthRecords
import OpenHealthKit

/// The Health records pages: clinical records by category, and a record's page with its content
/// in words and its FHIR JSON on request.
struct RecordsView {
    let store: HKHealthStore
    let pages: PageRenderer
    let text: SampleText

    /// The category names, as the Health app shows them.
    static func categoryName(_ type: HKClinicalType) -> String {
        switch type.identifier {
        case HKClinicalTypeIdentifier.allergyRecord.rawValue: "Allergies"
        case HKClinicalTypeIdentifier.clinicalNoteRecord.rawValue: "Clinical Notes"
        case HKClinicalTypeIdentifier.conditionRecord.rawValue: "Conditions"
        case HKClinicalTypeIdentifier.coverageRecord.rawValue: "Insurance"
        case HKClinicalTypeIdentifier.immunizationRecord.rawValue: "Immunizations"
        case HKClinicalTypeIdentifier.labResultRecord.rawValue: "Lab Results"
        case HKClinicalTypeIdentifier.medicationRecord.rawValue: "Medications"
        case HKClinicalTypeIdentifier.procedureRecord.rawValue: "Procedures"
        case HKClinicalTypeIdentifier.vitalSignRecord.rawValue: "Vitals"
        default: type.displayName
        }
    }

    /// The records by category. A record about another person than the profile's (by the rule
    /// the Profile groups records by) is flagged "Another person's record" with their name and
    /// birth date.
    func index() async throws -> String {
        try await HealthRecordPatient.completeStoredRecords(in: store)
        let owner = HealthRecordPerson(profile: try await store.ownerProfile())
        var categories: [[String: Any]] = []
        for type in HKObjectType.allClinicalTypes.sorted(by: { Self.categoryName($0) < Self.categoryName($1) }) {
            let records = try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)],
                                                            sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate, order: .reverse)])
                .result(for: store)
            guard !records.isEmpty else { continue }
            categories.append([
                "id": type.identifier, "name": Self.categoryName(type), "count": records.count,
                "records": records.map { record -> [String: Any] in
                    var row: [String: Any] = ["name": record.displayName, "date": String(text.date(record.startDate).prefix(10)),
                                              "source": record.sourceRevision.source.name, "href": "/records/\(record.uuid.uuidString)"]
                    if let other = Self.otherPerson(record, owner: owner) { row["other"] = Self.personText(other) }
                    return row
                },
            ])
        }
        return pages.render("records", ["categories": categories, "hasRecords": !categories.isEmpty])
    }

    /// The patient a record is about: the one its metadata keeps, else the one its FHIR JSON
    /// refers to; nil when it refers to none.
    static func patient(_ record: HKClinicalRecord) -> HealthRecordPatient? {
        HealthRecordPatient(metadata: record.metadata) ?? record.fhirResource.flatMap { ProfileRecords.patient($0.data) }
    }

    /// The person a record is about when that is not the profile's person `owner` (as the Profile
    /// groups records: named, compared with a profile that names someone, and not matching).
    static func otherPerson(_ record: HKClinicalRecord, owner: HealthRecordPerson?) -> HealthRecordPerson? {
        guard let owner, let person = patient(record)?.person, !person.matches(owner) else { return nil }
        return person
    }

    /// A person's name and birth date as the Profile writes them: "Jane Doe, born 1980-04-02".
    static func personText(_ person: HealthRecordPerson) -> String {
        (person.displayName.isEmpty ? "A person without a name" : person.displayName) + (person.birthDate.map { ", born \($0)" } ?? "")
    }

    /// Whom a record is about, in words, compared with the profile's person (as the Profile page
    /// groups records): "Antonio Castellanos, born 1991-06-08 (you)", another person's name with
    /// "another person's record", or the reference when nothing names the patient; nil when the
    /// resource names no patient.
    func patientText(_ record: HKClinicalRecord) async throws -> String? {
        guard let patient = Self.patient(record) else { return nil }
        guard let person = patient.person else { return "\(patient.reference): the record does not say who this patient is" }
        let name = Self.personText(person)
        guard let owner = HealthRecordPerson(profile: try await store.ownerProfile()) else { return name }
        return person.matches(owner) ? "\(name) (you)" : "\(name): another person's record, not yours"
    }

    /// A record's page, or nil when the store has no clinical record with that UUID.
    func recordPage(_ uuid: UUID) async throws -> (title: String, content: String)? {
        try await HealthRecordPatient.completeStoredRecords(in: store)
        let predicate = HKQuery.predicateForObject(with: uuid)
        let found = try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: predicate) },
                                                      sortDescriptors: [], limit: 1).result(for: store)
        guard let record = found.first else { return nil }
        var fields: [(label: String, text: String)] = [
            ("Category", Self.categoryName(record.clinicalType)),
            ("Date", record.startDate == record.endDate ? text.date(record.startDate) : "\(text.date(record.startDate)) to \(text.date(record.endDate))"),
            ("Source", record.sourceRevision.source.name),
        ]
        if let patient = try await patientText(record) { fields.append(("Patient", patient)) }
        var json = "", history = ""
        if let resource = record.fhirResource {
            fields.append(("FHIR resource", "\(resource.resourceType.rawValue)/\(resource.identifier) (FHIR \(resource.fhirVersion.stringRepresentation))"))
            if let object = try? JSONSerialization.jsonObject(with: resource.data) as? [String: Any] {
                fields += FHIRReadable.fields(object)
                history = try await RecordsLabHistory(store: store, pages: pages, text: text).section(for: record, resource: object)
                if let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) {
                    json = String(decoding: pretty, as: UTF8.self)
                }
            } else {
                json = String(decoding: resource.data, as: UTF8.self)
            }
        }
        let content = pages.render("record", ["fields": fields.map { ["label": $0.label, "text": $0.text] }, "json": json,
                                              "hasJSON": !json.isEmpty])
        return (record.displayName, content + history)
    }
}
