import Foundation
import OpenHealthKit

/// The medications a provider's records name: each MedicationStatement and MedicationRequest
/// becomes a tracked medication (`HKUserAnnotatedMedication`) with its codings (RxNorm ones
/// included), once per concept: importing the records again, or another record of the same
/// medication, adds nothing.
enum MedicationConcepts {
    /// A medication a record names.
    struct Concept: Equatable, Sendable {
        var displayText: String
        var codings: [Coding]
        var hasSchedule: Bool
        var form: HKMedicationGeneralForm

        struct Coding: Equatable, Sendable {
            var system: String
            var version: String?
            var code: String
        }
    }

    /// The resource types whose medication is tracked.
    static let resourceTypes: Set<String> = ["MedicationStatement", "MedicationRequest", "MedicationOrder"]

    /// The medication a MedicationStatement or MedicationRequest (R4) or MedicationOrder (DSTU2)
    /// names by its `medicationCodeableConcept`, or by a `medicationReference` to a contained
    /// Medication; nil when it names none a person could read (no text, display or code).
    static func concept(inResource data: Data) -> Concept? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let type = object["resourceType"] as? String, resourceTypes.contains(type) else { return nil }
        var codeable = object["medicationCodeableConcept"] as? [String: Any]
        var form: HKMedicationGeneralForm = .unknown
        if codeable == nil, let reference = (object["medicationReference"] as? [String: Any])?["reference"] as? String, reference.hasPrefix("#"),
           let contained = (object["contained"] as? [Any])?.compactMap({ $0 as? [String: Any] }).first(where: {
               $0["resourceType"] as? String == "Medication" && $0["id"] as? String == String(reference.dropFirst())
           }) {
            codeable = contained["code"] as? [String: Any]
            form = generalForm(of: contained["form"] as? [String: Any])
        }
        guard let codeable else { return nil }
        let codings: [Concept.Coding] = ((codeable["coding"] as? [Any]) ?? []).compactMap { entry in
            guard let coding = entry as? [String: Any], let system = coding["system"] as? String, let code = coding["code"] as? String,
                  !system.isEmpty, !code.isEmpty else { return nil }
            return Concept.Coding(system: system, version: coding["version"] as? String, code: code)
        }
        let displays = ((codeable["coding"] as? [Any]) ?? []).compactMap { ($0 as? [String: Any])?["display"] as? String }
        let text = (codeable["text"] as? String) ?? displays.first ?? codings.first.map { "\($0.system)|\($0.code)" }
        guard let name = text?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else { return nil }
        if form == .unknown { form = generalForm(named: name) }
        let dosages = ((object["dosageInstruction"] ?? object["dosage"]) as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        let scheduled = dosages.contains { (($0["timing"] as? [String: Any])?["repeat"]) != nil }
        return Concept(displayText: name, codings: codings, hasSchedule: scheduled, form: form)
    }

    /// A form from a Medication's `form` text or codings' displays.
    static func generalForm(of codeable: [String: Any]?) -> HKMedicationGeneralForm {
        guard let codeable else { return .unknown }
        let words = [(codeable["text"] as? String) ?? ""] + ((codeable["coding"] as? [Any]) ?? []).compactMap { ($0 as? [String: Any])?["display"] as? String }
        return generalForm(named: words.joined(separator: " "))
    }

    /// The form a medication's name says (RxNorm names end with it: "… Oral Tablet").
    static func generalForm(named name: String) -> HKMedicationGeneralForm {
        let lower = name.lowercased()
        let words: [(String, HKMedicationGeneralForm)] = [
            ("inhaler", .inhaler), ("inhalation", .inhaler), ("capsule", .capsule), ("tablet", .tablet), ("injection", .injection),
            ("injectable", .injection), ("prefilled syringe", .injection), ("cream", .cream), ("ointment", .ointment), ("lotion", .lotion),
            ("gel", .gel), ("foam", .foam), ("patch", .patch), ("transdermal", .patch), ("spray", .spray), ("suppository", .suppository),
            ("drops", .drops), ("ophthalmic solution", .drops), ("powder", .powder), ("oral solution", .liquid), ("suspension", .liquid),
            ("syrup", .liquid), ("elixir", .liquid), ("topical", .topical),
        ]
        return words.first { lower.contains($0.0) }?.1 ?? .unknown
    }

    /// The statuses of a medication that is no longer taken (MedicationRequest, MedicationStatement
    /// and MedicationOrder share them): its medication is tracked archived.
    static let pastStatuses: Set<String> = ["completed", "stopped", "cancelled", "not-taken"]

    /// A record's `status`; nil when it has none.
    static func status(inResource data: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["status"] as? String
    }

    /// Tracks the medications `records` name, each concept once. A record entered in error names
    /// nothing; a medication only past records name (completed, stopped, cancelled, not taken) is
    /// added archived, and one a current record also names is not. A medication already tracked
    /// keeps the archive state the person gave it.
    /// - Returns: how many medications were added (not already tracked).
    @discardableResult
    static func track(_ records: [HKSample], in store: HKHealthStore) async throws -> Int {
        var concepts: [(concept: Concept, current: Bool)] = []
        for case let record as HKClinicalRecord in records {
            guard let resource = record.fhirResource, resourceTypes.contains(resource.resourceType.rawValue),
                  let concept = concept(inResource: resource.data) else { continue }
            let status = status(inResource: resource.data)
            guard status != "entered-in-error" else { continue }
            let current = !pastStatuses.contains(status ?? "")
            if let index = concepts.firstIndex(where: { $0.concept == concept }) {
                concepts[index].current = concepts[index].current || current
            } else {
                concepts.append((concept, current))
            }
        }
        guard !concepts.isEmpty else { return 0 }
        let before = Set(try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store).map(\.medication.identifier))
        var added = 0
        for (concept, current) in concepts {
            let codings = Set(concept.codings.map { HKClinicalCoding(system: $0.system, version: $0.version, code: $0.code) })
            let medication = try await store.addMedication(displayText: concept.displayText, generalForm: concept.form, relatedCodings: codings,
                                                           hasSchedule: concept.hasSchedule)
            guard !before.contains(medication.medication.identifier) else { continue }
            added += 1
            if !current { _ = try await store.setMedication(medication, archived: true) }
        }
        return added
    }
}
