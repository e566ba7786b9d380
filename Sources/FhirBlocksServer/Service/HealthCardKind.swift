import ExactJSON
import Foundation
import SmartHealthCards

/// The kinds of SMART Health Card `$health-cards-issue` makes, one card per kind (immunizations
/// and lab results are kept apart, as the card spec's privacy section asks): which resources of
/// the compartment a card of the kind holds, and the date `_since` compares.
enum HealthCardKind: String, CaseIterable, Sendable {
    /// Completed `Immunization`s.
    case immunization = "Immunization"
    /// Final (or amended, corrected) `Observation`s in the `laboratory` category.
    case laboratory = "Observation"

    /// The FHIR resource type the card holds (and whose read scope it needs).
    var resourceType: String { rawValue }

    /// The legacy `vc.type` written besides `#health-card` (verifiers ignore types they do not
    /// know; older wallets sort cards by it).
    var legacyCredentialType: String {
        switch self {
        case .immunization: SHCCredentialType.immunization
        case .laboratory: SHCCredentialType.laboratory
        }
    }

    /// The member pointing at the patient, rewritten to the card's Patient entry.
    var subjectMember: String {
        switch self {
        case .immunization: "patient"
        case .laboratory: "subject"
        }
    }

    /// The kind a `credentialType` value names (after the legacy `#immunization` and
    /// `#laboratory` were mapped to resource types), or nil for `#health-card`, which every
    /// card is. Unknown types (say `#covid19`) are `.failure`: no card of this server has them.
    static func named(_ resourceType: String) -> Result<HealthCardKind, UnknownType>? {
        if resourceType == SHCCredentialType.healthCard { return nil }
        return HealthCardKind(rawValue: resourceType).map { .success($0) } ?? .failure(UnknownType())
    }

    /// A `credentialType` no card of this server has.
    struct UnknownType: Error {}

    /// Whether a resource of ``resourceType`` belongs on a card of this kind.
    func includes(_ resource: JSONValue) -> Bool {
        switch self {
        case .immunization:
            return resource["status"]?.stringValue == "completed"
        case .laboratory:
            guard let status = resource["status"]?.stringValue, ["final", "amended", "corrected"].contains(status) else { return false }
            return (resource["category"]?.arrayValue ?? []).contains { category in
                (category["coding"]?.arrayValue ?? []).contains { coding in
                    coding["code"]?.stringValue == "laboratory"
                        && (coding["system"]?.stringValue ?? Self.observationCategory) == Self.observationCategory
                }
            }
        }
    }

    static let observationCategory = "http://terminology.hl7.org/CodeSystem/observation-category"

    /// The clinical date of a resource (`Immunization.occurrenceDateTime`; `Observation.effective[x]`
    /// or `issued`), or nil when it has none that reads as a FHIR dateTime.
    func clinicalDate(of resource: JSONValue) -> Date? {
        let candidates: [JSONValue?] = switch self {
        case .immunization: [resource["occurrenceDateTime"]]
        case .laboratory: [resource["effectiveDateTime"], resource["effectiveInstant"], resource["effectivePeriod"]?["start"], resource["issued"]]
        }
        for candidate in candidates {
            if let text = candidate?.stringValue, let date = SHCHealthCardsIssue.date(fhir: text) { return date }
        }
        return nil
    }
}
