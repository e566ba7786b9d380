import Foundation
import HealthRecords
import Mustache
import OpenHealthKit

/// The Profile page's "Health records" part: the store's clinical records grouped by the person
/// each names (its FHIR `subject` or `patient` reference's display name), the profile's person
/// first, another person's records flagged, and those that name nobody counted apart.
struct ProfileRecords {
    /// One person's records.
    struct Group: Equatable {
        enum Kind: Equatable, Comparable {
            /// The profile's person.
            case owner
            /// Someone the profile's person is not.
            case otherPerson
            /// The records do not name their patient (or the profile names nobody to compare with).
            case unnamed
        }

        var kind: Kind
        /// The name the records give (empty for unnamed ones).
        var name: String
        var records: [(uuid: UUID, title: String, category: String)]

        static func == (left: Group, right: Group) -> Bool {
            left.kind == right.kind && left.name == right.name && left.records.map(\.uuid) == right.records.map(\.uuid)
        }
    }

    /// How many records each group lists (the others are counted).
    static let listLimit = 10

    /// The patient a FHIR resource names: the display of its `subject` or `patient` reference
    /// (trimmed; nil when it gives none) and the reference itself (`Patient/p7`; empty when none).
    static func patient(_ data: Data) -> (name: String?, reference: String) {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return (nil, "") }
        for key in ["subject", "patient"] {
            guard let reference = object[key] as? [String: Any] else { continue }
            let display = (reference["display"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
            return (display?.isEmpty == false ? display : nil, reference["reference"] as? String ?? "")
        }
        return (nil, "")
    }

    /// The groups of `records` for the profile's person `owner` (nil when the profile names nobody):
    /// the owner's first, then other people's by name, then the unnamed.
    static func groups(_ records: [HKClinicalRecord], owner: HealthRecordPerson?) -> [Group] {
        var byKey: [String: Group] = [:]
        for record in records {
            let patient: (name: String?, reference: String) = record.fhirResource.map { Self.patient($0.data) } ?? (nil, "")
            let kind: Group.Kind
            switch (patient.name, owner) {
            case (let name?, let owner?): kind = HealthRecordPerson(text: name).matches(owner) ? .owner : .otherPerson
            default: kind = .unnamed
            }
            // Unnamed records are kept apart by the patient they refer to.
            let shown = kind == .owner ? (owner?.displayName ?? patient.name ?? "") : (patient.name ?? patient.reference)
            let key = kind == .owner ? "owner" : "\(kind)|\(shown.lowercased())"
            byKey[key, default: Group(kind: kind, name: shown, records: [])].records
                .append((record.uuid, record.displayName, RecordsView.categoryName(record.clinicalType)))
        }
        return byKey.values.sorted { ($0.kind, $0.name) < ($1.kind, $1.name) }
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
                    heading = owner == nil ? "Records of\(patient.isEmpty ? " a patient" : patient): your profile does not name you yet, so they are not compared"
                        : "Records that do not name their patient\(patient)"
                }
                return [
                    "heading": heading, "isOther": group.kind == .otherPerson, "count": group.records.count,
                    "records": group.records.prefix(listLimit).map { ["href": "/records/\($0.uuid.uuidString)", "title": $0.title, "category": $0.category] },
                    "more": max(0, group.records.count - listLimit), "hasMore": group.records.count > listLimit,
                ]
            },
        ]
    }

    /// The part's HTML for the store's records.
    static func render(store: HKHealthStore, profile: HKOwnerProfile) async throws -> String {
        var records: [HKClinicalRecord] = []
        for type in HKObjectType.allClinicalTypes {
            records += try await HKSampleQueryDescriptor(predicates: [.clinicalRecord(type: type)],
                                                         sortDescriptors: [SortDescriptor(\HKClinicalRecord.startDate, order: .reverse)]).result(for: store)
        }
        let owner = HealthRecordPerson(profile: profile)
        return library.render(context(groups(records, owner: owner), owner: owner), withTemplate: "records") ?? ""
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
        <p class="muted">{{count}} record(s){{#isOther}}: imported anyway; they are not yours{{/isOther}}.</p>
        <ul class="person-records">{{#records}}<li><a href="{{href}}">{{title}}</a> <span class="muted">{{category}}</span></li>{{/records}}
        {{#hasMore}}<li class="muted">and {{more}} more in <a href="/records">Health records</a></li>{{/hasMore}}</ul>
        {{/groups}}
        </section>
        """
}
