import Foundation
import Testing
@testable import OpenHealthKit

@Suite("The owner's profile")
struct OwnerProfileTests {
    private static let profile = HKOwnerProfile(
        givenName: "Zelinda", familyName: "Quarrington-Vasquez", dateOfBirth: DateComponents(year: 1984, month: 2, day: 29),
        biologicalSex: .female, bloodType: .abNegative,
        medicalID: .init(conditions: ["Asthma-7c1e"], allergies: ["Penicillin-d04b"], medications: ["Salbutamol-92fa 100 µg"],
                         emergencyContacts: [.init(name: "Orlando Quarrington", relationship: "brother", phone: "+1 555 0199 731")],
                         organDonor: true, notes: "NOTES-51b2"))

    @Test("A saved profile reads back whole, after the store is opened again")
    func roundTrip() async throws {
        let folder = TemporaryFolder()
        #expect(try await TestStores.owner(folder).ownerProfile().isEmpty)
        try await TestStores.owner(folder).saveOwnerProfile(Self.profile)
        let read = try await TestStores.owner(folder).ownerProfile()
        #expect(read.givenName == "Zelinda" && read.familyName == "Quarrington-Vasquez")
        #expect(read.dateOfBirth?.year == 1984 && read.dateOfBirth?.month == 2 && read.dateOfBirth?.day == 29)
        #expect(read.biologicalSex == .female && read.bloodType == .abNegative)
        #expect(read.medicalID == Self.profile.medicalID)
        #expect(read.fullName == "Zelinda Quarrington-Vasquez")
    }

    @Test("Date of birth, sex and blood type are the characteristics: one value, read and written by both APIs")
    func characteristicsAreTheProfile() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.saveOwnerProfile(Self.profile)
        #expect(try store.biologicalSex().biologicalSex == .female)
        #expect(try store.bloodType().bloodType == .abNegative)
        let birth = try store.dateOfBirthComponents()
        #expect(birth.year == 1984 && birth.month == 2 && birth.day == 29)
        // Set through HealthKit's characteristics, seen in the profile.
        try store.setBloodType(.oPositive)
        try store.setDateOfBirth(DateComponents(year: 1990, month: 12, day: 31))
        let read = try await store.ownerProfile()
        #expect(read.bloodType == .oPositive && read.dateOfBirth?.year == 1990 && read.dateOfBirth?.day == 31)
        #expect(read.givenName == "Zelinda")
        // Cleared in the profile, cleared for apps.
        var cleared = read
        cleared.biologicalSex = .notSet
        cleared.dateOfBirth = nil
        try await store.saveOwnerProfile(cleared)
        #expect(try store.biologicalSex().biologicalSex == .notSet)
        #expect(throws: HKError.self) { try store.dateOfBirthComponents() }
        // An app reads the characteristics it is allowed to, never the profile.
        let app = TestStores.app(folder, bundle: "com.example.app")
        try await app.requestAuthorization(toShare: [], read: [HKCharacteristicType(.bloodType)])
        #expect(try app.bloodType().bloodType == .oPositive)
        await #expect(throws: HKError.self) { _ = try await app.ownerProfile() }
        await #expect(throws: HKError.self) { try await app.saveOwnerProfile(HKOwnerProfile()) }
    }

    @Test("A date of birth that is not a calendar day is refused and nothing changes")
    func invalidDate() async throws {
        let store = TestStores.owner(TemporaryFolder())
        try await store.saveOwnerProfile(Self.profile)
        var wrong = Self.profile
        wrong.givenName = "Other"
        wrong.dateOfBirth = DateComponents(year: 1985, month: 2, day: 29)
        await #expect(throws: HKError.self) { try await store.saveOwnerProfile(wrong) }
        #expect(try await store.ownerProfile().givenName == "Zelinda")
    }

    @Test("The name and the Medical ID are sealed: none of it is in the database file in the clear")
    func sealedAtRest() async throws {
        let folder = TemporaryFolder()
        let store = TestStores.owner(folder)
        try await store.saveOwnerProfile(Self.profile)
        // Written again, so that the WAL and the main file both hold versions of the row.
        var changed = Self.profile
        changed.medicalID.notes = "NOTES-51b2 again"
        try await store.saveOwnerProfile(changed)
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] { bytes += FileManager.default.contents(atPath: folder.database.path + suffix) ?? Data() }
        #expect(!bytes.isEmpty)
        for needle in ["Zelinda", "Quarrington", "Asthma-7c1e", "Penicillin-d04b", "Salbutamol-92fa", "0199 731", "NOTES-51b2", "brother",
                       "1984-02-29", "givenName", "conditions"] {
            #expect(bytes.range(of: Data(needle.utf8)) == nil, "\(needle) is stored in the clear")
        }
    }
}
