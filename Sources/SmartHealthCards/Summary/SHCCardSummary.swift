import ExactJSON
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
    ///
    /// The bundle is read as JSON: a tree that is not valid JSON (two members with one name, a
    /// number that is not a JSON number) is summarized as if the card had no bundle.
    public init(claims: SHCClaims, bundle: JSONValue?, issuerName: String? = nil) {
        let tape = bundle.flatMap { try? JSONTape(JSONWriter.serialize($0)) }
        self.init(claims: claims, tape: tape, bundle: tape == nil ? nil : 0, issuerName: issuerName)
    }

    /// Builds a summary from a card's claims and the bundle at node `bundle` of `tape` (the
    /// verified payload), reading the few members it shows straight from the tape.
    init(claims: SHCClaims, tape: JSONTape?, bundle: Int?, issuerName: String?) {
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
        if let tape, let bundle, let entries = tape.memberValue(of: bundle, named: "entry") {
            let reader = Reader(tape: tape)
            if tape.kind(entries) == .array { items.reserveCapacity(tape.count(entries)) }
            tape.forEachElement(of: entries) { _, entry in
                guard let resource = tape.memberValue(of: entry, named: "resource") else { return }
                let resourceType = tape.memberValue(of: resource, named: "resourceType")
                if reader.is(resourceType, "Patient") {
                    if subjectName == nil { subjectName = reader.name(of: resource) }
                    if birthDate == nil, let text = reader.string(resource, "birthDate") { birthDate = SHCPartialDate(fhir: text) }
                } else if reader.is(resourceType, "Immunization") {
                    hasImmunization = true
                    let concept = tape.memberValue(of: resource, named: "vaccineCode")
                    let coding = reader.coding(concept, preferring: SHCCodeNames.cvxSystem)
                    let name = coding.flatMap { coding in
                        coding.system == SHCCodeNames.cvxSystem ? coding.code.flatMap { SHCCodeNames.cvx[$0] } : nil
                    } ?? coding?.display ?? coding?.code ?? reader.string(concept, "text") ?? "Immunization"
                    let date = reader.string(resource, "occurrenceDateTime").flatMap(SHCFHIRDateTime.date(from:))
                    items.append(Item(kind: .immunization, name: name, system: coding?.system, code: coding?.code, date: date))
                } else if reader.is(resourceType, "Observation") {
                    hasLaboratory = true
                    let concept = tape.memberValue(of: resource, named: "code")
                    let coding = reader.coding(concept, preferring: SHCCodeNames.loincSystem)
                    let tableName = coding.flatMap { coding in
                        coding.system == SHCCodeNames.loincSystem ? coding.code.flatMap { SHCCodeNames.loinc[$0] } : nil
                    }
                    let name = coding?.display ?? tableName ?? coding?.code.map { code in
                        coding?.system == SHCCodeNames.loincSystem ? "LOINC \(code)" : code
                    } ?? reader.string(concept, "text") ?? "Observation"
                    let dateText = reader.string(resource, "effectiveDateTime") ?? reader.string(resource, "effectiveInstant")
                        ?? reader.string(tape.memberValue(of: resource, named: "effectivePeriod"), "start")
                        ?? reader.string(resource, "issued")
                    let date = dateText.flatMap(SHCFHIRDateTime.date(from:))
                    items.append(Item(kind: .laboratory, name: name, system: coding?.system, code: coding?.code, date: date))
                } else if reader.is(resourceType, "DiagnosticReport") {
                    hasLaboratory = true
                }
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
        var relevantDate: Date?
        for item in items {
            if let date = item.date, relevantDate.map({ date > $0 }) ?? true { relevantDate = date }
        }
        self.relevantDate = relevantDate
        self.recordTypes = recordTypes
    }

    private struct Coding {
        var system: String?
        var code: String?
        var display: String?
    }

    /// Reads the summary's members from the tape: strings only where a string is.
    private struct Reader {
        let tape: JSONTape

        /// Whether there is a node and it is the string `text`.
        func `is`(_ node: Int?, _ text: StaticString) -> Bool {
            node.map { tape.stringEquals($0, text) } ?? false
        }

        /// The string member `name` of the object at `object`; nil when either is missing or not
        /// of that kind.
        func string(_ object: Int?, _ name: StaticString) -> String? {
            guard let object else { return nil }
            return tape.stringValue(at: tape.memberValue(of: object, named: name))
        }

        /// The concept's coding in `system` (compared as UTF-8 bytes: code system URIs are
        /// ASCII), else its first coding.
        func coding(_ concept: Int?, preferring system: String) -> Coding? {
            guard let concept, let codings = tape.memberValue(of: concept, named: "coding") else { return nil }
            var first: Int?
            var chosen: Int?
            tape.forEachElement(of: codings) { _, coding in
                if first == nil { first = coding }
                if chosen == nil, let node = tape.memberValue(of: coding, named: "system"), tape.isString(node),
                   Self.equals(tape, node, system) {
                    chosen = coding
                }
            }
            return (chosen ?? first).map { Coding(system: string($0, "system"), code: string($0, "code"), display: string($0, "display")) }
        }

        /// Whether the string at `node` is `text`, compared as bytes in place.
        private static func equals(_ tape: JSONTape, _ node: Int, _ text: String) -> Bool {
            if let equal = text.utf8.withContiguousStorageIfAvailable({ tape.stringEquals(node, $0) }) { return equal }
            return tape.withUTF8(ofString: node) { $0.elementsEqual(text.utf8) }
        }

        /// A patient's first name as displayed: its text, else its given names then family name
        /// (a string, or DSTU2's array).
        func name(of patient: Int) -> String? {
            guard let names = tape.memberValue(of: patient, named: "name"), tape.kind(names) == .array,
                  tape.count(names) > 0 else { return nil }
            let name = names + 1
            if let text = string(name, "text"), !text.isEmpty { return text }
            // The parts joined by single spaces, written into one string as they are found.
            var joined = ""
            var parts = 0
            func add(_ part: String) {
                if parts > 0 { joined += " " }
                joined += part
                parts += 1
            }
            if let given = tape.memberValue(of: name, named: "given") {
                tape.forEachElement(of: given) { _, element in
                    if let part = tape.stringValue(at: element) { add(part) }
                }
            }
            if let family = tape.memberValue(of: name, named: "family") {
                if tape.isString(family) {
                    add(tape.string(at: family))
                } else {
                    tape.forEachElement(of: family) { _, element in   // DSTU2
                        if let part = tape.stringValue(at: element) { add(part) }
                    }
                }
            }
            return parts == 0 ? nil : joined
        }
    }
}
