import Foundation
import HealthRecords
import Mustache
import OpenHealthKit

/// The Profile page's "Health records" part: the store's clinical records grouped by the person
/// they are about, the profile's person first, another person's records flagged, and those whose
/// patient cannot be told apart.
///
/// The person of a record is the Patient its FHIR `subject` or `patient` reference points at, as
/// the import kept it in the record's metadata (`HealthRecordPatient`: the Patient's name and
/// birth date from the same input), else the reference's display. Records of the same reference
/// are one patient, so a record whose Patient came in another file is named by its siblings.
/// The reads are indexed and bounded: one query finds each patient reference (by the metadata
/// index), one reads the newest records of each. Records stored before the import kept their
/// patient are given it once, from their FHIR JSON, before the first read.
struct ProfileRecords {
    /// One record as the part lists it.
    struct Entry: Equatable {
        var uuid: UUID
        var title: String
        var category: String
        var date: Date
    }

    /// The records of one patient reference (or of one display name, for records without one)
    /// as read: the newest of them, and whether there are more.
    struct Bunch {
        var patient: HealthRecordPatient
        var records: [Entry]
        var more: Bool
    }

    /// One person's records.
    struct Group: Equatable {
        enum Kind: Equatable, Comparable {
            /// The profile's person.
            case owner
            /// Someone the profile's person is not.
            case otherPerson
            /// The patient cannot be told (or the profile names nobody to compare with).
            case unnamed
        }

        var kind: Kind
        /// The person's name (or the reference, for an unnamed patient; empty when none).
        var name: String
        /// The person's birth date, when known.
        var birthDate: String?
        /// The newest records, newest first (at most ``ProfileRecords/listLimit``).
        var records: [Entry]
        /// Whether the group has more records than those listed.
        var more: Bool
    }

    /// How many records each group lists (the others are in Health records).
    static let listLimit = 10
    /// How many patient references the part looks up.
    static let patientLimit = 20

    /// The patient a FHIR resource names (its `subject` or `patient` reference: the display,
    /// trimmed, and the reference normalized as `Patient/id`); nil when it names none.
    static func patient(_ data: Data) -> HealthRecordPatient? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        for key in ["subject", "patient"] {
            guard let reference = object[key] as? [String: Any] else { continue }
            let display = (reference["display"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
            let person = display.flatMap { $0.isEmpty ? nil : HealthRecordPerson(text: $0) }
            let text = HealthRecordPatient.normalized(reference["reference"] as? String ?? "")
            return text.isEmpty && person == nil ? nil : HealthRecordPatient(reference: text, person: person)
        }
        return nil
    }

    /// The groups of the bunches for the profile's person `owner` (nil when the profile names
    /// nobody): the owner's first, then other people's by name, then those that cannot be told.
    static func groups(_ bunches: [Bunch], owner: HealthRecordPerson?) -> [Group] {
        var byKey: [String: Group] = [:]
        var order: [String] = []
        for bunch in bunches {
            let person = bunch.patient.person
            let kind: Group.Kind
            switch (person, owner) {
            case (let person?, let owner?): kind = person.matches(owner) ? .owner : .otherPerson
            default: kind = .unnamed
            }
            let name: String
            switch kind {
            case .owner: name = owner?.displayName ?? ""
            case .otherPerson: name = person.map { $0.displayName.isEmpty ? "A person without a name" : $0.displayName } ?? ""
            case .unnamed: name = person?.displayName ?? bunch.patient.reference
            }
            let birthDate = kind == .owner ? owner?.birthDate : person?.birthDate
            let key = kind == .owner ? "owner" : "\(kind)|\(name.lowercased())|\(birthDate ?? "")|\(kind == .unnamed ? bunch.patient.reference : "")"
            if byKey[key] == nil { order.append(key) }
            var group = byKey[key] ?? Group(kind: kind, name: name, birthDate: birthDate, records: [], more: false)
            let merged = (group.records + bunch.records).sorted { ($0.date, $0.uuid.uuidString) > ($1.date, $1.uuid.uuidString) }
            group.more = group.more || bunch.more || merged.count > listLimit
            group.records = Array(merged.prefix(listLimit))
            byKey[key] = group
        }
        return order.compactMap { byKey[$0] }.sorted { ($0.kind, $0.name.lowercased()) < ($1.kind, $1.name.lowercased()) }
    }

    /// The part's template context: its groups with their flags and links.
    static func context(_ groups: [Group], owner: HealthRecordPerson?) -> [String: Any] {
        [
            "hasRecords": !groups.isEmpty, "hasOwner": owner != nil,
            "groups": groups.map { group -> [String: Any] in
                let heading: String
                switch group.kind {
                case .owner: heading = "\(group.name) (you)"
                case .otherPerson: heading = group.name
                case .unnamed:
                    let patient = group.name.isEmpty ? "" : " (\(group.name))"
                    heading = owner == nil
                        ? "Records of\(patient.isEmpty ? " a patient" : patient): your profile does not name you yet, so they are not compared"
                        : "Records whose patient cannot be told\(patient)"
                }
                let count = group.more ? "The newest \(group.records.count) record(s)" : "\(group.records.count) record(s)"
                return [
                    "heading": heading, "isOther": group.kind == .otherPerson, "count": count,
                    "born": group.kind == .unnamed ? "" : group.birthDate.map { ", born \($0)" } ?? "",
                    "records": group.records.map { ["href": "/records/\($0.uuid.uuidString)", "title": $0.title, "category": $0.category] },
                    "hasMore": group.more,
                ]
            },
        ]
    }

    /// The part's HTML for the store's records.
    static func render(store: HKHealthStore, profile: HKOwnerProfile) async throws -> String {
        let owner = HealthRecordPerson(profile: profile)
        return library.render(context(groups(try await bunches(store: store), owner: owner), owner: owner), withTemplate: "records") ?? ""
    }

    /// The store's records by patient, read with indexed, bounded queries. Records stored before
    /// the import kept their patient get it first, once per store
    /// (`HealthRecordPatient.completeStoredRecords`), so every record is found by the index.
    static func bunches(store: HKHealthStore) async throws -> [Bunch] {
        try await HealthRecordPatient.completeStoredRecords(in: store)
        let key = HealthRecordPatient.referenceKey
        let keyed = HKQuery.predicateForObjects(withMetadataKey: key)
        // Each patient reference (empty for records that refer to no patient): one record that
        // has a reference other than those found.
        var references: [String] = []
        while references.count < patientLimit {
            let predicate = references.isEmpty ? keyed : NSCompoundPredicate(andPredicateWithSubpredicates: [
                keyed, NSCompoundPredicate(notPredicateWithSubpredicate: HKQuery.predicateForObjects(withMetadataKey: key, allowedValues: references)),
            ])
            guard let record = try await fetch(store, predicate, limit: 1, newestFirst: false).first,
                  let reference = record.metadata?[key] as? String, !references.contains(reference) else { break }
            references.append(reference)
        }
        var bunches: [Bunch] = []
        for reference in references {
            let same = HKQuery.predicateForObjects(withMetadataKey: key, allowedValues: [reference])
            let records = try await fetch(store, same, limit: listLimit + 1, newestFirst: true)
            let more = records.count > listLimit
            guard !reference.isEmpty else {
                // Records that refer to no patient: by the name their reference's display gives, if any.
                var byName: [String: Int] = [:]
                for record in records.prefix(listLimit) {
                    let person = HealthRecordPatient(metadata: record.metadata)?.person
                    let name = person?.displayName.lowercased() ?? ""
                    if let index = byName[name] {
                        bunches[index].records.append(entry(record))
                    } else {
                        byName[name] = bunches.count
                        bunches.append(Bunch(patient: HealthRecordPatient(reference: "", person: person), records: [entry(record)], more: more))
                    }
                }
                continue
            }
            var patient = records.lazy.compactMap { HealthRecordPatient(metadata: $0.metadata) }.first { $0.person != nil }
            if patient == nil {
                // A record of the same reference further back may name the patient.
                let named = NSCompoundPredicate(orPredicateWithSubpredicates: [
                    HealthRecordPatient.givenNamesKey, HealthRecordPatient.familyNameKey, HealthRecordPatient.nameTextKey,
                    HealthRecordPatient.birthDateKey,
                ].map { HKQuery.predicateForObjects(withMetadataKey: $0) })
                let found = try await fetch(store, NSCompoundPredicate(andPredicateWithSubpredicates: [same, named]), limit: 1, newestFirst: false)
                patient = found.first.flatMap { HealthRecordPatient(metadata: $0.metadata) }
            }
            bunches.append(Bunch(patient: patient ?? HealthRecordPatient(reference: reference, person: nil),
                                 records: records.prefix(listLimit).map(entry), more: more))
        }
        return bunches
    }

    private static func entry(_ record: HKClinicalRecord) -> Entry {
        Entry(uuid: record.uuid, title: record.displayName, category: RecordsView.categoryName(record.clinicalType), date: record.startDate)
    }

    /// Clinical records of every category matching `predicate`.
    private static func fetch(_ store: HKHealthStore, _ predicate: NSPredicate, limit: Int, newestFirst: Bool) async throws -> [HKClinicalRecord] {
        try await HKSampleQueryDescriptor(predicates: HKObjectType.allClinicalTypes.map { .clinicalRecord(type: $0, predicate: predicate) },
                                          sortDescriptors: newestFirst ? [SortDescriptor(\HKClinicalRecord.startDate, order: .reverse)] : [],
                                          limit: limit).result(for: store)
    }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        try? library.register(template, named: "records")
        return library
    }()

    static let template = """
        <section class="card" aria-labelledby="profile-records-heading">
        <h2 id="profile-records-heading">Health records by person</h2>
        {{^hasRecords}}<p>The store has no health records yet. <a href="/records">Health records</a> imports FHIR files.</p>{{/hasRecords}}
        {{#groups}}
        <h3>{{heading}}{{#isOther}} <span class="flag">Another person's records</span>{{/isOther}}</h3>
        <p class="muted">{{count}}{{born}}{{#isOther}}: imported anyway; they are not yours{{/isOther}}.</p>
        <ul class="person-records">{{#records}}<li><a href="{{href}}">{{title}}</a> <span class="muted">{{category}}</span></li>{{/records}}
        {{#hasMore}}<li class="muted">More in <a href="/records">Health records</a></li>{{/hasMore}}</ul>
        {{/groups}}
        </section>
        """
}
