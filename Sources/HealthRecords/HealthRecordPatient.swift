import FHIRCore
import Foundation

/// The patient a clinical record is about, kept in the record's metadata when it is imported:
/// the reference its FHIR resource makes (`subject` or `patient`, written as `Patient/id`) and,
/// when the input holds that Patient resource (a Synthea Bundle's first entry), the Patient's
/// name and birth date. The Patient itself is not a clinical record and is not stored; what
/// the records need of it travels with them.
///
/// The reference is an indexed metadata value: the records of one patient are found with
/// `HKQuery.predicateForObjects(withMetadataKey:allowedValues:)` without reading the others.
public struct HealthRecordPatient: Sendable, Hashable {
    /// The metadata key of the patient reference (`Patient/id`).
    public static let referenceKey = "OpenHealthKitPatientReference"
    /// The metadata key of the patient's given names (separated by spaces).
    public static let givenNamesKey = "OpenHealthKitPatientGivenNames"
    /// The metadata key of the patient's family name.
    public static let familyNameKey = "OpenHealthKitPatientFamilyName"
    /// The metadata key of the patient's name as one text (a name without parts, or the
    /// reference's display when the input has no Patient).
    public static let nameTextKey = "OpenHealthKitPatientName"
    /// The metadata key of the patient's birth date (`YYYY-MM-DD`, or partial).
    public static let birthDateKey = "OpenHealthKitPatientBirthDate"

    /// The reference, as `Patient/id` (empty when the resource makes none).
    public var reference: String
    /// The person, when the Patient resource or the reference's display names one.
    public var person: HealthRecordPerson?

    /// Creates a patient.
    /// - Parameters:
    ///   - reference: the reference, as `Patient/id`.
    ///   - person: the person, when known.
    public init(reference: String, person: HealthRecordPerson?) {
        self.reference = reference
        self.person = person
    }

    /// A reference as this type keeps it: `urn:uuid:X`, an absolute URL ending in
    /// `Patient/X` and `Patient/X` all become `Patient/X`; other text is kept, trimmed.
    /// - Parameter reference: the reference as the resource writes it.
    public static func normalized(_ reference: String) -> String {
        let text = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        for prefix in ["urn:uuid:", "urn:oid:"] where text.hasPrefix(prefix) {
            return "Patient/" + text.dropFirst(prefix.count)
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: true)
        if let patient = parts.lastIndex(of: "Patient"), patient + 1 < parts.count {
            return "Patient/" + parts[patient + 1]
        }
        return text
    }

    /// The patient reference a resource makes (its `subject`, else its `patient`): the
    /// normalized reference (possibly empty) and the reference's display; nil when it makes none.
    /// - Parameter resource: the FHIR resource.
    public static func reference(in resource: JSONObject) -> (reference: String, display: String?)? {
        for key in ["subject", "patient"] {
            guard let object = resource[key]?.objectValue else { continue }
            let display = object["display"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines)
            return (normalized(object["reference"]?.stringValue ?? ""), display?.isEmpty == false ? display : nil)
        }
        return nil
    }

    /// The people of the Patient resources among `slices`, by every reference that may point
    /// at them (`Patient/id` and their Bundle entry's `fullUrl`, normalized): each Patient's
    /// first name (the official one) with its birth date.
    /// - Parameter slices: the resources of one input.
    public static func patients(in slices: [FHIRResourceSlice]) -> [String: HealthRecordPerson] {
        var patients: [String: HealthRecordPerson] = [:]
        for slice in slices where slice.resourceType == "Patient" {
            guard let person = HealthRecordPerson.people(inPatient: slice.resource).first else { continue }
            if let id = slice.resource["id"]?.stringValue, !id.isEmpty { patients["Patient/" + id] = person }
            if let fullURL = slice.fullURL, !fullURL.isEmpty { patients[normalized(fullURL)] = person }
        }
        return patients
    }

    /// The patient of one resource: its reference, resolved against `patients` (the input's
    /// Patients), else named by the reference's display; nil when the resource makes no reference.
    /// - Parameters:
    ///   - resource: the FHIR resource.
    ///   - patients: the input's Patients (``patients(in:)``).
    public static func of(_ resource: JSONObject, patients: [String: HealthRecordPerson]) -> HealthRecordPatient? {
        guard let (reference, display) = reference(in: resource) else { return nil }
        let person = patients[reference] ?? display.map { HealthRecordPerson(text: $0) }
        guard !reference.isEmpty || person != nil else { return nil }
        return HealthRecordPatient(reference: reference, person: person)
    }

    /// The patient a record's metadata keeps; nil when it keeps none.
    /// - Parameter metadata: the record's metadata.
    public init?(metadata: [String: Any]?) {
        guard let metadata else { return nil }
        let text = { (key: String) -> String? in
            (metadata[key] as? String).flatMap { $0.isEmpty ? nil : $0 }
        }
        let reference = text(Self.referenceKey) ?? ""
        let given = text(Self.givenNamesKey).map { $0.split(separator: " ").map(String.init) } ?? []
        let person = HealthRecordPerson(givenNames: given, familyName: text(Self.familyNameKey), text: text(Self.nameTextKey),
                                        birthDate: text(Self.birthDateKey))
        let named = !given.isEmpty || person.familyName != nil || person.text != nil || person.birthDate != nil
        guard !reference.isEmpty || named else { return nil }
        self.init(reference: reference, person: named ? person : nil)
    }

    /// The metadata that keeps this patient on a record. The reference is always there (empty
    /// when the resource refers to no patient), so that every record the import stores is found
    /// by the reference's index.
    public var metadata: [String: Any] {
        var metadata: [String: Any] = [Self.referenceKey: reference]
        if let person {
            if !person.givenNames.isEmpty { metadata[Self.givenNamesKey] = person.givenNames.joined(separator: " ") }
            if let family = person.familyName, !family.isEmpty { metadata[Self.familyNameKey] = family }
            if let text = person.text, !text.isEmpty { metadata[Self.nameTextKey] = text }
            if let birthDate = person.birthDate, !birthDate.isEmpty { metadata[Self.birthDateKey] = birthDate }
        }
        return metadata
    }
}
