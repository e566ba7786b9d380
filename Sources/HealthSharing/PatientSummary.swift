import CommonSupport
import ExactJSON
import Foundation
import OpenHealthKit

/// The FHIR R4 Bundles a link carries: a patient summary shaped as the International Patient
/// Summary (IPS), and a collection of chosen records.
///
/// The summary is a `document` Bundle: its first entry is a Composition (LOINC 60591-5, "Patient
/// summary Document") about the Patient, with six sections, each coded with its IPS LOINC code
/// and referencing its entries in the Bundle: allergies and intolerances (48765-2), medications
/// (10160-0), problems (11450-4), immunizations (11369-6), results (30954-2) and vital signs
/// (8716-3); a history of procedures (47519-4) when there are procedures. A section without
/// entries says so (`emptyReason` `unavailable`). The Patient is the store owner's profile, or,
/// when no profile is set, the Patient the records refer to (with the name they give it, or the
/// name on the person's health cards). Records in FHIR DSTU2 are left out of the summary (it is R4).
public enum PatientSummary {
    /// One section of the summary: its LOINC code, title, and the clinical types it holds.
    public struct Section: Sendable, Hashable {
        /// The section's LOINC code.
        public var code: String
        /// The section's title.
        public var title: String
        /// The clinical types whose records the section lists.
        public var types: [HKClinicalTypeIdentifier]
    }

    /// The six IPS sections every summary has, in order.
    public static let sections: [Section] = [
        Section(code: "48765-2", title: "Allergies and Intolerances", types: [.allergyRecord]),
        Section(code: "10160-0", title: "Medication Summary", types: [.medicationRecord]),
        Section(code: "11450-4", title: "Problem List", types: [.conditionRecord]),
        Section(code: "11369-6", title: "Immunizations", types: [.immunizationRecord]),
        Section(code: "30954-2", title: "Results", types: [.labResultRecord]),
        Section(code: "8716-3", title: "Vital Signs", types: [.vitalSignRecord]),
    ]

    /// The optional section added when the person has procedures.
    public static let proceduresSection = Section(code: "47519-4", title: "History of Procedures", types: [.procedureRecord])

    static let loinc = "http://loinc.org"

    /// The summary document of `records`.
    ///
    /// - Parameters:
    ///   - records: The person's clinical records (those of other types than the sections' are left out).
    ///   - profile: The store owner's profile; used for the Patient when it names a person.
    ///   - cards: The person's health cards, whose subject names the Patient when neither the
    ///     profile nor the records do.
    ///   - now: The instant the document is dated with.
    ///   - identifier: The document's identifier (the Bundle's `identifier`).
    /// - Returns: The `document` Bundle.
    public static func document(records: [HKClinicalRecord], profile: HKOwnerProfile?, cards: [HKVerifiableClinicalRecord] = [],
                                now: Date, identifier: UUID) -> JSONValue {
        var resources: [(record: HKClinicalRecord, resource: JSONObject)] = []
        for record in records {
            guard let fhir = record.fhirResource, fhir.fhirVersion.fhirRelease != .dstu2,
                  let object = (try? JSONParser.parse(Array(fhir.data)))?.objectValue else { continue }
            resources.append((record, object))
        }
        let reference = mostCommonPatientReference(resources.map(\.resource))
        let patient = patientResource(profile: profile, reference: reference, cards: cards)
        let patientURL = fullURL(UUID())
        let compositionURL = fullURL(UUID())

        var entries: [JSONValue] = []
        var sectionValues: [JSONValue] = []
        var chosen = sections
        if resources.contains(where: { $0.record.clinicalType.identifier == HKClinicalTypeIdentifier.procedureRecord.rawValue }) {
            chosen.append(proceduresSection)
        }
        for section in chosen {
            let members = resources.filter { item in section.types.contains { $0.rawValue == item.record.clinicalType.identifier } }
            var references: [JSONValue] = []
            var names: [String] = []
            for member in members {
                let url = fullURL(member.record.uuid)
                references.append(.object(members: [JSONMember("reference", .string(url))]))
                names.append(member.record.displayName)
                entries.append(.object(members: [JSONMember("fullUrl", .string(url)), JSONMember("resource", .object(member.resource))]))
            }
            var value = [
                JSONMember("title", .string(section.title)),
                JSONMember("code", codeable(section.code, section.title)),
                JSONMember("text", narrative(names.isEmpty ? ["No information"] : names)),
            ]
            if references.isEmpty {
                value.append(JSONMember("emptyReason", .object(members: [
                    JSONMember("coding", .array([.object(members: [
                        JSONMember("system", .string("http://terminology.hl7.org/CodeSystem/list-empty-reason")),
                        JSONMember("code", .string("unavailable")),
                        JSONMember("display", .string("Unavailable")),
                    ])])),
                ])))
            } else {
                value.append(JSONMember("entry", .array(references)))
            }
            sectionValues.append(.object(members: value))
        }

        let timestamp = instant(now)
        let subject = JSONValue.object(members: [JSONMember("reference", .string(patientURL))])
        let composition = JSONValue.object(members: [
            JSONMember("resourceType", .string("Composition")),
            JSONMember("id", .string(String(compositionURL.dropFirst("urn:uuid:".count)))),
            JSONMember("status", .string("final")),
            JSONMember("type", codeable("60591-5", "Patient summary Document")),
            JSONMember("subject", subject),
            JSONMember("date", .string(timestamp)),
            JSONMember("author", .array([subject])),
            JSONMember("title", .string("Patient Summary")),
            JSONMember("section", .array(sectionValues)),
        ])
        let head: [JSONValue] = [
            .object(members: [JSONMember("fullUrl", .string(compositionURL)), JSONMember("resource", composition)]),
            .object(members: [JSONMember("fullUrl", .string(patientURL)), JSONMember("resource", .object(patient))]),
        ]
        return .object(members: [
            JSONMember("resourceType", .string("Bundle")),
            JSONMember("id", .string(identifier.uuidString.lowercased())),
            JSONMember("identifier", .object(members: [
                JSONMember("system", .string("urn:ietf:rfc:3986")),
                JSONMember("value", .string(fullURL(identifier))),
            ])),
            JSONMember("type", .string("document")),
            JSONMember("timestamp", .string(timestamp)),
            JSONMember("entry", .array(head + entries)),
        ])
    }

    /// A `collection` Bundle of `records`, each resource exactly as stored (with its source
    /// address as `fullUrl` when it has one).
    ///
    /// - Parameter records: The chosen clinical records.
    /// - Returns: The `collection` Bundle.
    public static func collection(records: [HKClinicalRecord]) -> JSONValue {
        var entries: [JSONValue] = []
        for record in records {
            guard let fhir = record.fhirResource, let resource = try? JSONParser.parse(Array(fhir.data)), resource.objectValue != nil else {
                continue
            }
            var members: [JSONMember] = []
            if let url = fhir.sourceURL?.absoluteString, url.hasPrefix("https://") || url.hasPrefix("http://") {
                members.append(JSONMember("fullUrl", .string(url)))
            }
            members.append(JSONMember("resource", resource))
            entries.append(.object(members: members))
        }
        return .object(members: [
            JSONMember("resourceType", .string("Bundle")),
            JSONMember("type", .string("collection")),
            JSONMember("entry", .array(entries)),
        ])
    }

    // MARK: - The Patient

    /// The `Patient/id` most records refer to (by `subject` or `patient`), with the name the
    /// first of them displays.
    static func mostCommonPatientReference(_ resources: [JSONObject]) -> (id: String, display: String?)? {
        var counts: [String: Int] = [:]
        var displays: [String: String] = [:]
        var order: [String] = []
        for resource in resources {
            for key in ["subject", "patient"] {
                guard let reference = resource[key]?["reference"]?.stringValue, reference.hasPrefix("Patient/") else { continue }
                let id = String(reference.dropFirst("Patient/".count))
                guard !id.isEmpty, !id.contains("/") else { continue }
                if counts[id] == nil { order.append(id) }
                counts[id, default: 0] += 1
                if displays[id] == nil, let display = resource[key]?["display"]?.stringValue, !display.isEmpty { displays[id] = display }
            }
        }
        guard let best = order.max(by: { counts[$0, default: 0] < counts[$1, default: 0] }) else { return nil }
        return (best, displays[best])
    }

    static func patientResource(profile: HKOwnerProfile?, reference: (id: String, display: String?)?,
                                cards: [HKVerifiableClinicalRecord]) -> JSONObject {
        var patient = JSONObject()
        patient["resourceType"] = .string("Patient")
        patient["id"] = .string(reference?.id ?? UUID().uuidString.lowercased())
        if let profile, profile.identifiesPerson {
            var name: [JSONMember] = []
            if !profile.familyName.isEmpty { name.append(JSONMember("family", .string(profile.familyName))) }
            let given = profile.givenName.split(whereSeparator: \.isWhitespace).map { JSONValue.string(String($0)) }
            if !given.isEmpty { name.append(JSONMember("given", .array(given))) }
            if !name.isEmpty { patient["name"] = .array([.object(members: name)]) }
            switch profile.biologicalSex {
            case .female: patient["gender"] = .string("female")
            case .male: patient["gender"] = .string("male")
            case .other: patient["gender"] = .string("other")
            case .notSet: break
            }
            if let date = profile.dateOfBirth.flatMap(birthDate) { patient["birthDate"] = .string(date) }
            return patient
        }
        if let display = reference?.display {
            patient["name"] = .array([.object(members: [JSONMember("text", .string(display))])])
        } else if let subject = cards.first?.subject, !subject.fullName.isEmpty {
            patient["name"] = .array([.object(members: [JSONMember("text", .string(subject.fullName))])])
            if let date = subject.dateOfBirthComponents.flatMap(birthDate) { patient["birthDate"] = .string(date) }
        }
        return patient
    }

    static func birthDate(_ components: DateComponents) -> String? {
        guard let year = components.year, let month = components.month, let day = components.day,
              (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        return ISODateText.string(year: year, month: month, day: day)
    }

    // MARK: - Pieces

    static func fullURL(_ uuid: UUID) -> String {
        "urn:uuid:" + uuid.uuidString.lowercased()
    }

    static func codeable(_ code: String, _ display: String) -> JSONValue {
        .object(members: [JSONMember("coding", .array([.object(members: [
            JSONMember("system", .string(loinc)), JSONMember("code", .string(code)), JSONMember("display", .string(display)),
        ])]))])
    }

    static func narrative(_ lines: [String]) -> JSONValue {
        let items = lines.map { "<li>\(escape($0))</li>" }.joined()
        return .object(members: [
            JSONMember("status", .string("generated")),
            JSONMember("div", .string("<div xmlns=\"http://www.w3.org/1999/xhtml\"><ul>\(items)</ul></div>")),
        ])
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    static func instant(_ date: Date) -> String {
        ISODateText.string(secondsSince1970: date.timeIntervalSince1970)
    }
}
