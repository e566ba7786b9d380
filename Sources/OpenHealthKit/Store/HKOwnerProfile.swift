import Foundation

/// The profile of the person a store belongs to: name, date of birth, sex, blood type and
/// Medical ID (OpenHealthKit API, for the store's owner; HealthKit has no such type: Apple's
/// Health app keeps the Medical ID out of apps' reach).
///
/// Date of birth, biological sex and blood type are HealthKit characteristics: the profile
/// holds exactly what ``HKHealthStore/dateOfBirthComponents()``,
/// ``HKHealthStore/biologicalSex()`` and ``HKHealthStore/bloodType()`` return, stored once.
/// The name and the Medical ID are sealed in the store like every other personal value.
/// Imports of clinical records and health cards compare their patient with this profile
/// (one person per store).
public struct HKOwnerProfile: Sendable, Hashable {
    /// The given name (first name, and middle names if any); empty when not set.
    public var givenName: String
    /// The family name (last name); empty when not set.
    public var familyName: String
    /// The date of birth (year, month, day, Gregorian calendar); nil when not set.
    public var dateOfBirth: DateComponents?
    /// The biological sex.
    public var biologicalSex: HKBiologicalSex
    /// The blood type.
    public var bloodType: HKBloodType
    /// The Medical ID.
    public var medicalID: MedicalID

    /// Creates a profile; everything not given is unset.
    /// - Parameters:
    ///   - givenName: the given name (first and middle names).
    ///   - familyName: the family name.
    ///   - dateOfBirth: the date of birth (year, month, day).
    ///   - biologicalSex: the biological sex.
    ///   - bloodType: the blood type.
    ///   - medicalID: the Medical ID.
    public init(givenName: String = "", familyName: String = "", dateOfBirth: DateComponents? = nil,
                biologicalSex: HKBiologicalSex = .notSet, bloodType: HKBloodType = .notSet, medicalID: MedicalID = MedicalID()) {
        self.givenName = givenName
        self.familyName = familyName
        self.dateOfBirth = dateOfBirth
        self.biologicalSex = biologicalSex
        self.bloodType = bloodType
        self.medicalID = medicalID
    }

    /// The given and family names, separated by a space (empty when neither is set).
    public var fullName: String {
        [givenName, familyName].filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Whether nothing at all is set.
    public var isEmpty: Bool { self == HKOwnerProfile() }

    /// Whether the profile names a person: a name or a date of birth is set.
    public var identifiesPerson: Bool { !fullName.isEmpty || dateOfBirth != nil }

    /// What a Medical ID holds, as the Health app shows it to first responders.
    public struct MedicalID: Sendable, Hashable, Codable {
        /// Medical conditions, one per entry.
        public var conditions: [String]
        /// Allergies and reactions, one per entry.
        public var allergies: [String]
        /// Medications, one per entry.
        public var medications: [String]
        /// People to call in an emergency.
        public var emergencyContacts: [EmergencyContact]
        /// Whether the person is an organ donor; nil when not said.
        public var organDonor: Bool?
        /// Free-text medical notes.
        public var notes: String

        /// Creates a Medical ID; everything not given is empty.
        /// - Parameters:
        ///   - conditions: medical conditions.
        ///   - allergies: allergies and reactions.
        ///   - medications: medications.
        ///   - emergencyContacts: emergency contacts.
        ///   - organDonor: whether the person is an organ donor (nil: not said).
        ///   - notes: medical notes.
        public init(conditions: [String] = [], allergies: [String] = [], medications: [String] = [],
                    emergencyContacts: [EmergencyContact] = [], organDonor: Bool? = nil, notes: String = "") {
            self.conditions = conditions
            self.allergies = allergies
            self.medications = medications
            self.emergencyContacts = emergencyContacts
            self.organDonor = organDonor
            self.notes = notes
        }
    }

    /// Someone to call in an emergency.
    public struct EmergencyContact: Sendable, Hashable, Codable {
        /// The contact's name.
        public var name: String
        /// How the contact is related to the owner (for example "mother", "partner").
        public var relationship: String
        /// The contact's phone number, as written.
        public var phone: String

        /// Creates an emergency contact.
        /// - Parameters:
        ///   - name: the contact's name.
        ///   - relationship: how the contact is related to the owner.
        ///   - phone: the phone number.
        public init(name: String, relationship: String, phone: String) {
            self.name = name
            self.relationship = relationship
            self.phone = phone
        }
    }
}
