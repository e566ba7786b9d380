import Foundation
import GRDB

/// What a `medication` row seals (v14-medications): the medication and the person's details.
struct StoredMedication: Codable, Equatable {
    struct Coding: Codable, Equatable {
        var system: String
        var version: String?
        var code: String
    }

    var concept: String
    var displayText: String
    var form: String
    var codings: [Coding]
    var nickname: String?
    var archived: Bool
    var hasSchedule: Bool

    init(_ medication: HKUserAnnotatedMedication) {
        concept = medication.medication.identifier.value
        displayText = medication.medication.displayText
        form = medication.medication.generalForm.rawValue
        codings = medication.medication.relatedCodings
            .map { Coding(system: $0.system, version: $0.version, code: $0.code) }
            .sorted { ($0.system, $0.code, $0.version ?? "") < ($1.system, $1.code, $1.version ?? "") }
        nickname = medication.nickname
        archived = medication.isArchived
        hasSchedule = medication.hasSchedule
    }

    var medication: HKUserAnnotatedMedication {
        let concept = HKMedicationConcept(identifier: .medication(concept), displayText: displayText,
                                          generalForm: HKMedicationGeneralForm(rawValue: form),
                                          relatedCodings: Set(codings.map { HKClinicalCoding(system: $0.system, version: $0.version, code: $0.code) }))
        return HKUserAnnotatedMedication(nickname: nickname, isArchived: archived, hasSchedule: hasSchedule, medication: concept)
    }
}

extension HealthDatabase {
    /// The context medication rows are sealed with (distinct from every other record's).
    private static let medicationContext = Data("openhealthkit.medication.v1".utf8)

    /// The keyed hash a medication concept's row is found by.
    func medicationHash(_ concept: String) -> Data {
        cipher.indexHash("medication", concept)
    }

    /// Every medication, in the order they were added.
    func medications() async throws -> [HKUserAnnotatedMedication] {
        try await readAsync { db in
            try Data.fetchAll(db, sql: "SELECT sealed FROM medication ORDER BY id").map { sealed in
                let plaintext = try self.cipher.open(sealed, context: Self.medicationContext)
                guard let stored = try? JSONDecoder().decode(StoredMedication.self, from: plaintext) else {
                    throw HealthStoreError(.corruptDatabase, "a medication is malformed")
                }
                return stored.medication
            }
        }
    }

    /// Adds a medication, or replaces the one of the same concept when `replace`.
    /// - Returns: whether a row was written (false: the concept was there and `replace` is false).
    func saveMedication(_ medication: HKUserAnnotatedMedication, replace: Bool) async throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let stored = StoredMedication(medication)
        let sealed = try cipher.seal(try encoder.encode(stored), context: Self.medicationContext)
        let hash = medicationHash(stored.concept)
        return try await writeAsync { db in
            let conflict = replace ? "DO UPDATE SET sealed = excluded.sealed" : "DO NOTHING"
            try db.execute(sql: "INSERT INTO medication (concept_hash, sealed) VALUES (?, ?) ON CONFLICT (concept_hash) \(conflict)",
                           arguments: [hash, sealed])
            return db.changesCount > 0
        }
    }

    /// The medication of one concept, if the store has it.
    func medication(concept: String) async throws -> HKUserAnnotatedMedication? {
        let hash = medicationHash(concept)
        return try await readAsync { db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT sealed FROM medication WHERE concept_hash = ?", arguments: [hash]) else {
                return nil
            }
            let plaintext = try self.cipher.open(sealed, context: Self.medicationContext)
            guard let stored = try? JSONDecoder().decode(StoredMedication.self, from: plaintext) else {
                throw HealthStoreError(.corruptDatabase, "a medication is malformed")
            }
            return stored.medication
        }
    }
}
