import FHIRCore
import Foundation

/// What a wallet or HealthKit shows for a card: the fields of `HKVerifiableClinicalRecord`
/// (subject name and birth date, issuer, issued, relevant and expiration dates, item names,
/// record types), derived from the verified claims and bundle.
///
/// A summary of a card whose report has errors describes unverified content: show it only with
/// the verdict.
public struct SHCCardSummary: Sendable, Hashable, Encodable {
    /// One clinical item of the card: a vaccination or a laboratory result.
    public struct Item: Sendable, Hashable, Encodable {
        /// What kind of item it is.
        public enum Kind: String, Sendable, Hashable, Encodable {
            /// An `Immunization`.
            case immunization
            /// An `Observation` (laboratory result).
            case laboratory
        }

        /// Immunization or laboratory.
        public var kind: Kind
        /// The display name (from the code tables, the coding's display, or the code itself).
        public var name: String
        /// The code system of the coding used, if any.
        public var system: String?
        /// The code, if any.
        public var code: String?
        /// When it happened (`occurrenceDateTime`, `effectiveDateTime`…), if known.
        public var date: Date?
    }

    /// The patient's name as displayed (`HumanName.text`, else given names then family name).
    public var subjectName: String?
    /// The patient's birth date with its precision.
    public var birthDate: SHCPartialDate?
    /// The issuer URL (`iss`).
    public var issuer: String?
    /// The issuer's display name, when the trust policy knows it.
    public var issuerName: String?
    /// When the card was issued (`nbf`).
    public var issuedDate: Date?
    /// The most recent date among the items (vaccination or test date).
    public var relevantDate: Date?
    /// When the card expires (`exp`), if ever.
    public var expirationDate: Date?
    /// The items' names, in bundle order.
    public var itemNames: [String]
    /// The items.
    public var items: [Item]
    /// The record types: the card's `vc.type` values, then `#immunization` / `#laboratory` when the
    /// bundle contains Immunization / Observation entries (cards are classified by content since 1.4.0).
    public var recordTypes: [String]

    /// Builds a summary from a card's claims and FHIR bundle.
    public init(claims: SHCClaims, bundle: JSONValue?, issuerName: String? = nil) {
        issuer = claims.iss
        self.issuerName = issuerName
        issuedDate = claims.issuedDate
        expirationDate = claims.expirationDate
        var subjectName: String?
        var birthDate: SHCPartialDate?
        var items: [Item] = []
        var recordTypes: [String] = []
        for type in claims.types where !recordTypes.contains(type) { recordTypes.append(type) }
        var hasImmunization = false
        var hasLaboratory = false
        for entry in bundle?["entry"]?.arrayValue ?? [] {
            guard let resource = entry["resource"] else { continue }
            switch resource["resourceType"]?.stringValue {
            case "Patient":
                if subjectName == nil { subjectName = SHCCardSummary.name(of: resource) }
                if birthDate == nil, let text = resource["birthDate"]?.stringValue { birthDate = SHCPartialDate(fhir: text) }
            case "Immunization":
                hasImmunization = true
                let coding = SHCCardSummary.coding(resource["vaccineCode"], preferring: SHCCodeNames.cvxSystem)
                let name = coding.flatMap { coding in
                    coding.system == SHCCodeNames.cvxSystem ? coding.code.flatMap { SHCCodeNames.cvx[$0] } : nil
                } ?? coding?.display ?? coding?.code ?? resource["vaccineCode"]?["text"]?.stringValue ?? "Immunization"
                let date = (resource["occurrenceDateTime"]?.stringValue).flatMap(SHCFHIRDateTime.date(from:))
                items.append(Item(kind: .immunization, name: name, system: coding?.system, code: coding?.code, date: date))
            case "Observation":
                hasLaboratory = true
                let coding = SHCCardSummary.coding(resource["code"], preferring: SHCCodeNames.loincSystem)
                let tableName = coding.flatMap { coding in
                    coding.system == SHCCodeNames.loincSystem ? coding.code.flatMap { SHCCodeNames.loinc[$0] } : nil
                }
                let name = coding?.display ?? tableName ?? coding?.code.map { code in
                    coding?.system == SHCCodeNames.loincSystem ? "LOINC \(code)" : code
                } ?? resource["code"]?["text"]?.stringValue ?? "Observation"
                let dateText = resource["effectiveDateTime"]?.stringValue ?? resource["effectiveInstant"]?.stringValue
                    ?? resource["effectivePeriod"]?["start"]?.stringValue ?? resource["issued"]?.stringValue
                let date = dateText.flatMap(SHCFHIRDateTime.date(from:))
                items.append(Item(kind: .laboratory, name: name, system: coding?.system, code: coding?.code, date: date))
            case "DiagnosticReport":
                hasLaboratory = true
            default:
                break
            }
        }
        if hasImmunization, !recordTypes.contains(SHCCredentialType.immunization) {
            recordTypes.append(SHCCredentialType.immunization)
        }
        if hasLaboratory, !recordTypes.contains(SHCCredentialType.laboratory) {
            recordTypes.append(SHCCredentialType.laboratory)
        }
        self.subjectName = subjectName
        self.birthDate = birthDate
        self.items = items
        itemNames = items.map(\.name)
        relevantDate = items.compactMap(\.date).max()
        self.recordTypes = recordTypes
    }

    private struct Coding {
        var system: String?
        var code: String?
        var display: String?
    }

    private static func coding(_ concept: JSONValue?, preferring system: String) -> Coding? {
        let codings = concept?["coding"]?.arrayValue ?? []
        let chosen = codings.first { $0["system"]?.stringValue == system } ?? codings.first
        return chosen.map {
            Coding(system: $0["system"]?.stringValue, code: $0["code"]?.stringValue, display: $0["display"]?.stringValue)
        }
    }

    private static func name(of patient: JSONValue) -> String? {
        guard let name = patient["name"]?.arrayValue?.first else { return nil }
        if let text = name["text"]?.stringValue, !text.isEmpty { return text }
        var parts = name["given"]?.arrayValue?.compactMap(\.stringValue) ?? []
        switch name["family"] {
        case .string(let family)?: parts.append(family)
        case .array(let families)?: parts.append(contentsOf: families.compactMap(\.stringValue))   // DSTU2
        default: break
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
