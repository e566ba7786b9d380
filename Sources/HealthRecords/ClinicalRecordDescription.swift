import FHIRCore
import Foundation

/// What a clinical record shows of its resource: the dates it covers and a display name.
///
/// Dates come from the resource's own clinical date (`effective[x]`, `occurrence[x]`,
/// `onset[x]`/`recordedDate`, `performed[x]`, `authoredOn`…, DSTU2's names too); a `Period`
/// gives both ends. The display name is `code.text`, else the first coding's display, else its
/// code (with each resource type's code element: `vaccineCode`, `medicationCodeableConcept`…).
public struct ClinicalRecordDescription: Sendable, Hashable {
    /// When the record starts, or nil when the resource has no usable date.
    public var startDate: Date?
    /// When it ends (the start for an instant).
    public var endDate: Date?
    /// The display name.
    public var displayName: String

    /// Describes a resource.
    public init(resource: JSONObject) {
        let resourceType = resource["resourceType"]?.stringValue ?? "Resource"
        var start: Date?
        var end: Date?
        for name in Self.dateElements[resourceType] ?? [] {
            guard let value = resource[name] else { continue }
            if let text = value.stringValue, let date = Self.date(text) {
                start = date
                end = date
            } else if let period = value.objectValue {
                let periodStart = period["start"]?.stringValue.flatMap(Self.date)
                let periodEnd = period["end"]?.stringValue.flatMap(Self.date)
                guard let first = periodStart ?? periodEnd else { continue }
                start = first
                end = max(first, periodEnd ?? first)
            } else {
                continue
            }
            break
        }
        startDate = start
        endDate = end
        displayName = Self.displayName(resource, resourceType: resourceType)
    }

    /// Candidate date elements, most specific first.
    static let dateElements: [String: [String]] = [
        "AllergyIntolerance": ["onsetDateTime", "onsetPeriod", "onset", "recordedDate", "assertedDate", "lastOccurrence"],
        "Condition": ["onsetDateTime", "onsetPeriod", "recordedDate", "dateRecorded", "abatementDateTime"],
        "Immunization": ["occurrenceDateTime", "date", "recorded"],
        "Observation": ["effectiveDateTime", "effectivePeriod", "effectiveInstant", "issued"],
        "DiagnosticReport": ["effectiveDateTime", "effectivePeriod", "issued"],
        "MedicationStatement": ["effectiveDateTime", "effectivePeriod", "dateAsserted"],
        "MedicationRequest": ["authoredOn"],
        "MedicationOrder": ["dateWritten"],
        "MedicationDispense": ["whenHandedOver", "whenPrepared"],
        "Procedure": ["performedDateTime", "performedPeriod"],
        "Coverage": ["period"],
        "DocumentReference": ["date", "created", "indexed"],
    ]

    /// The element holding each resource type's code.
    static let codeElements: [String: [String]] = [
        "AllergyIntolerance": ["code", "substance"],
        "Immunization": ["vaccineCode"],
        "MedicationStatement": ["medicationCodeableConcept"],
        "MedicationRequest": ["medicationCodeableConcept"],
        "MedicationOrder": ["medicationCodeableConcept"],
        "MedicationDispense": ["medicationCodeableConcept"],
        "Coverage": ["type", "class"],
        "DocumentReference": ["type"],
    ]

    static func date(_ text: String) -> Date? {
        (try? DateTime(text))?.asDate() ?? (try? Instant(text))?.asDate()
    }

    static func displayName(_ resource: JSONObject, resourceType: String) -> String {
        for name in codeElements[resourceType] ?? ["code"] {
            guard let concept = resource[name]?.objectValue else { continue }
            if let text = concept["text"]?.stringValue, !text.isEmpty { return text }
            if let coding = concept["coding"]?.arrayValue?.first?.objectValue {
                if let display = coding["display"]?.stringValue, !display.isEmpty { return display }
                if let code = coding["code"]?.stringValue, !code.isEmpty { return code }
            }
        }
        for name in ["medicationReference", "description"] {
            if let display = resource[name]?.objectValue?["display"]?.stringValue, !display.isEmpty { return display }
            if let text = resource[name]?.stringValue, !text.isEmpty { return text }
        }
        return resourceType
    }
}
