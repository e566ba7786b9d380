import Foundation
import GRDB

extension HealthDatabase {
    /// What the `owner_profile` row seals: the parts of the profile that are not characteristics.
    private struct SealedProfile: Codable {
        var givenName: String
        var familyName: String
        var medicalID: HKOwnerProfile.MedicalID
    }

    /// The context the profile row is sealed with (distinct from every characteristic's type
    /// name and from records' binary contexts).
    private static let profileContext = Data("openhealthkit.owner-profile.v1".utf8)

    /// The characteristics a profile holds, and their stored text.
    private static func characteristicTexts(_ profile: HKOwnerProfile) throws -> [(String, String?)] {
        [
            (HKCharacteristicTypeIdentifier.dateOfBirth.rawValue, try profile.dateOfBirth.map(HKHealthStore.dateOfBirthText)),
            (HKCharacteristicTypeIdentifier.biologicalSex.rawValue, profile.biologicalSex == .notSet ? nil : String(profile.biologicalSex.rawValue)),
            (HKCharacteristicTypeIdentifier.bloodType.rawValue, profile.bloodType == .notSet ? nil : String(profile.bloodType.rawValue)),
        ]
    }

    /// The owner's profile: the sealed row (v9-owner-profile) and the three characteristics.
    func ownerProfile() async throws -> HKOwnerProfile {
        try await readAsync { db in
            var profile = HKOwnerProfile()
            if let sealed = try Data.fetchOne(db, sql: "SELECT sealed FROM owner_profile WHERE id = 1") {
                let plaintext = try self.cipher.open(sealed, context: Self.profileContext)
                guard let stored = try? JSONDecoder().decode(SealedProfile.self, from: plaintext) else {
                    throw HealthStoreError(.corruptDatabase, "the owner's profile is malformed")
                }
                profile.givenName = stored.givenName
                profile.familyName = stored.familyName
                profile.medicalID = stored.medicalID
            }
            func text(_ identifier: HKCharacteristicTypeIdentifier) throws -> String? {
                guard let sealed = try Data.fetchOne(db, sql: "SELECT sealed FROM characteristic WHERE type = ?", arguments: [identifier.rawValue]) else {
                    return nil
                }
                return String(data: try self.cipher.open(sealed, context: Data(identifier.rawValue.utf8)), encoding: .utf8)
            }
            profile.dateOfBirth = try text(.dateOfBirth).flatMap(HKHealthStore.dateOfBirth(fromText:))
            profile.biologicalSex = try text(.biologicalSex).flatMap { Int($0) }.flatMap(HKBiologicalSex.init(rawValue:)) ?? .notSet
            profile.bloodType = try text(.bloodType).flatMap { Int($0) }.flatMap(HKBloodType.init(rawValue:)) ?? .notSet
            return profile
        }
    }

    /// Replaces the owner's profile, sealed row and characteristics in one transaction.
    /// - Throws: `HKError.errorInvalidArgument` for a date of birth that is not a calendar date.
    func saveOwnerProfile(_ profile: HKOwnerProfile) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plaintext = try encoder.encode(SealedProfile(givenName: profile.givenName, familyName: profile.familyName, medicalID: profile.medicalID))
        let sealed = try cipher.seal(plaintext, context: Self.profileContext)
        let characteristics = try Self.characteristicTexts(profile).map { type, text in
            (type, try text.map { try cipher.seal(Data($0.utf8), context: Data(type.utf8)) })
        }
        try await writeAsync { db in
            try db.execute(sql: "INSERT INTO owner_profile (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed",
                           arguments: [sealed])
            for (type, value) in characteristics {
                if let value {
                    try db.execute(sql: "INSERT INTO characteristic (type, sealed) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET sealed = excluded.sealed",
                                   arguments: [type, value])
                } else {
                    try db.execute(sql: "DELETE FROM characteristic WHERE type = ?", arguments: [type])
                }
            }
        }
    }
}
