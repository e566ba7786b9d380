import ArgumentParser
import CommonSupport
import FHIRCore
import Foundation
import HealthRecords
import OpenHealthKit

/// `health profile …`: the person the store belongs to (name, date of birth, sex, blood type,
/// Medical ID). Imports of records and cards compare their patient with it.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Show or change the profile of the person the store belongs to, with their Medical ID.",
        discussion: """
            One store holds one person's data. Its profile names that person: `health records import`, `health import \
            apple-health` and `health records sync` refuse records whose patient is someone else (give \
            --allow-other-person to import them anyway). The date of birth, sex and blood type are the HealthKit \
            characteristics apps read. Everything is sealed in the store like its other data.
            """,
        subcommands: [ProfileShowCommand.self, ProfileSetCommand.self, ProfileMedicalIDCommand.self],
        defaultSubcommand: ProfileShowCommand.self)
}

/// What every profile command prints the profile with.
struct ProfileOutputOptions: ParsableArguments {
    @Flag(help: "Print the profile as JSON.")
    var json = false

    func print(_ profile: HKOwnerProfile) {
        Swift.print(json ? ProfileText.json(profile) : ProfileText.lines(profile).joined(separator: "\n"))
    }
}

/// `health profile [show]`.
struct ProfileShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the profile (the default).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: ProfileOutputOptions

    func run() async throws {
        output.print(try await storeOptions.openStore().ownerProfile())
    }
}

/// `health profile set [--name …] [--given-name …] [--family-name …] [--birth-date …] [--sex …]
/// [--blood-type …] [--organ-donor …] [--notes …]`.
struct ProfileSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set parts of the profile; what is not given stays as it is.",
        discussion: """
            --name "GIVEN FAMILY" sets both names: the last word is the family name (use --given-name and \
            --family-name for a family name of several words). `unset` clears --birth-date, --sex, --blood-type and \
            --organ-donor; an empty text clears a name or the notes.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Given and family name; the last word is the family name.", valueName: "GIVEN FAMILY"))
    var name: String?

    @Option(help: ArgumentHelp("The given name (first and middle names).", valueName: "TEXT"))
    var givenName: String?

    @Option(help: ArgumentHelp("The family name.", valueName: "TEXT"))
    var familyName: String?

    @Option(help: ArgumentHelp("The date of birth, or unset.", valueName: "YYYY-MM-DD"))
    var birthDate: String?

    @Option(help: ArgumentHelp("female, male, other or unset.", valueName: "sex"))
    var sex: String?

    @Option(help: ArgumentHelp("A+, A-, B+, B-, AB+, AB-, O+, O- or unset.", valueName: "type"))
    var bloodType: String?

    @Option(help: ArgumentHelp("yes, no or unset.", valueName: "answer"))
    var organDonor: String?

    @Option(help: ArgumentHelp("Medical notes (replaces the notes).", valueName: "TEXT"))
    var notes: String?

    @OptionGroup var output: ProfileOutputOptions

    func validate() throws {
        if name != nil, givenName != nil || familyName != nil {
            throw ValidationError("give --name, or --given-name and --family-name, not both")
        }
        guard name != nil || givenName != nil || familyName != nil || birthDate != nil || sex != nil || bloodType != nil
                || organDonor != nil || notes != nil else {
            throw ValidationError("give at least one of --name, --given-name, --family-name, --birth-date, --sex, --blood-type, --organ-donor, --notes")
        }
    }

    func run() async throws {
        let store = try storeOptions.openStore()
        var profile = try await store.ownerProfile()
        if let name {
            let words = name.split(whereSeparator: \.isWhitespace)
            profile.familyName = words.last.map(String.init) ?? ""
            profile.givenName = words.dropLast().joined(separator: " ")
        }
        if let givenName { profile.givenName = givenName.trimmingCharacters(in: .whitespaces) }
        if let familyName { profile.familyName = familyName.trimmingCharacters(in: .whitespaces) }
        if let birthDate { profile.dateOfBirth = try ProfileText.parseBirthDate(birthDate) }
        if let sex {
            guard let value = ProfileText.parseSex(sex) else { throw ValidationError("--sex takes female, male, other or unset, got '\(sex)'") }
            profile.biologicalSex = value
        }
        if let bloodType {
            guard let value = ProfileText.parseBloodType(bloodType) else {
                throw ValidationError("--blood-type takes A+, A-, B+, B-, AB+, AB-, O+, O- or unset, got '\(bloodType)'")
            }
            profile.bloodType = value
        }
        if let organDonor {
            switch organDonor.lowercased() {
            case "yes": profile.medicalID.organDonor = true
            case "no": profile.medicalID.organDonor = false
            case "unset": profile.medicalID.organDonor = nil
            default: throw ValidationError("--organ-donor takes yes, no or unset, got '\(organDonor)'")
            }
        }
        if let notes { profile.medicalID.notes = notes }
        try await store.saveOwnerProfile(profile)
        output.print(profile)
    }
}

/// `health profile medical-id add-…|remove-…`.
struct ProfileMedicalIDCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medical-id",
        abstract: "Add to or remove from the Medical ID's lists: conditions, allergies, medications, emergency contacts.",
        subcommands: [AddCondition.self, RemoveCondition.self, AddAllergy.self, RemoveAllergy.self, AddMedication.self,
                      RemoveMedication.self, AddContact.self, RemoveContact.self])

    /// The Medical ID's text lists.
    enum List {
        case conditions, allergies, medications

        var noun: String {
            switch self {
            case .conditions: "condition"
            case .allergies: "allergy"
            case .medications: "medication"
            }
        }

        var keyPath: WritableKeyPath<HKOwnerProfile.MedicalID, [String]> {
            switch self {
            case .conditions: \.conditions
            case .allergies: \.allergies
            case .medications: \.medications
            }
        }
    }

    /// Adds `text` to a list (once: an entry already there, ignoring case, is kept as it is) or
    /// removes it (refused when it is not there); saves and prints the profile.
    static func change(_ list: List, text: String, adding: Bool, storeOptions: StoreOptions, output: ProfileOutputOptions) async throws {
        let entry = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !entry.isEmpty else { throw ValidationError("the \(list.noun) must not be empty") }
        let store = try storeOptions.openStore()
        var profile = try await store.ownerProfile()
        let index = profile.medicalID[keyPath: list.keyPath].firstIndex { $0.caseInsensitiveCompare(entry) == .orderedSame }
        if adding {
            if index == nil { profile.medicalID[keyPath: list.keyPath].append(entry) }
        } else {
            guard let index else { throw InputRefused("the Medical ID has no \(list.noun) '\(entry)'") }
            profile.medicalID[keyPath: list.keyPath].remove(at: index)
        }
        try await store.saveOwnerProfile(profile)
        output.print(profile)
    }

    struct AddCondition: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-condition", abstract: "Add a medical condition.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The condition, as you would tell a first responder.") var text: String
        @OptionGroup var output: ProfileOutputOptions
        func run() async throws { try await change(.conditions, text: text, adding: true, storeOptions: storeOptions, output: output) }
    }

    struct RemoveCondition: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-condition", abstract: "Remove a medical condition.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The condition, as listed (case does not matter).") var text: String
        @OptionGroup var output: ProfileOutputOptions
        func run() async throws { try await change(.conditions, text: text, adding: false, storeOptions: storeOptions, output: output) }
    }

    struct AddAllergy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-allergy", abstract: "Add an allergy or reaction.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The allergy or reaction.") var text: String
        @OptionGroup var output: ProfileOutputOptions
        func run() async throws { try await change(.allergies, text: text, adding: true, storeOptions: storeOptions, output: output) }
    }

    struct RemoveAllergy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-allergy", abstract: "Remove an allergy or reaction.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The allergy, as listed (case does not matter).") var text: String
        @OptionGroup var output: ProfileOutputOptions
        func run() async throws { try await change(.allergies, text: text, adding: false, storeOptions: storeOptions, output: output) }
    }

    struct AddMedication: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-medication", abstract: "Add a medication.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The medication (name and dose, as you write it).") var text: String
        @OptionGroup var output: ProfileOutputOptions
        func run() async throws { try await change(.medications, text: text, adding: true, storeOptions: storeOptions, output: output) }
    }

    struct RemoveMedication: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-medication", abstract: "Remove a medication.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The medication, as listed (case does not matter).") var text: String
        @OptionGroup var output: ProfileOutputOptions
        func run() async throws { try await change(.medications, text: text, adding: false, storeOptions: storeOptions, output: output) }
    }

    struct AddContact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add-contact",
                                                        abstract: "Add an emergency contact (one of the same name is replaced).")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: ArgumentHelp("The contact's name.", valueName: "NAME")) var name: String
        @Option(help: ArgumentHelp("How they are related to you (mother, partner, friend…).", valueName: "TEXT")) var relationship: String = ""
        @Option(help: ArgumentHelp("Their phone number, as you dial it.", valueName: "NUMBER")) var phone: String
        @OptionGroup var output: ProfileOutputOptions

        func run() async throws {
            let contact = HKOwnerProfile.EmergencyContact(name: name.trimmingCharacters(in: .whitespaces),
                                                          relationship: relationship.trimmingCharacters(in: .whitespaces),
                                                          phone: phone.trimmingCharacters(in: .whitespaces))
            guard !contact.name.isEmpty, !contact.phone.isEmpty else { throw ValidationError("a contact needs a --name and a --phone") }
            let store = try storeOptions.openStore()
            var profile = try await store.ownerProfile()
            if let index = profile.medicalID.emergencyContacts.firstIndex(where: { $0.name.caseInsensitiveCompare(contact.name) == .orderedSame }) {
                profile.medicalID.emergencyContacts[index] = contact
            } else {
                profile.medicalID.emergencyContacts.append(contact)
            }
            try await store.saveOwnerProfile(profile)
            output.print(profile)
        }
    }

    struct RemoveContact: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove-contact", abstract: "Remove an emergency contact.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The contact's name (case does not matter).") var name: String
        @OptionGroup var output: ProfileOutputOptions

        func run() async throws {
            let store = try storeOptions.openStore()
            var profile = try await store.ownerProfile()
            let wanted = name.trimmingCharacters(in: .whitespaces)
            guard let index = profile.medicalID.emergencyContacts.firstIndex(where: { $0.name.caseInsensitiveCompare(wanted) == .orderedSame }) else {
                throw InputRefused("the Medical ID has no emergency contact named '\(wanted)'")
            }
            profile.medicalID.emergencyContacts.remove(at: index)
            try await store.saveOwnerProfile(profile)
            output.print(profile)
        }
    }
}

/// The profile's words: how `health profile` reads and prints sex, blood type and dates.
enum ProfileText {
    static let bloodTypes: [(HKBloodType, String)] = [
        (.aPositive, "A+"), (.aNegative, "A-"), (.bPositive, "B+"), (.bNegative, "B-"),
        (.abPositive, "AB+"), (.abNegative, "AB-"), (.oPositive, "O+"), (.oNegative, "O-"),
    ]

    static func parseSex(_ text: String) -> HKBiologicalSex? {
        switch text.lowercased() {
        case "female": .female
        case "male": .male
        case "other": .other
        case "unset": .notSet
        default: nil
        }
    }

    static func sexName(_ sex: HKBiologicalSex) -> String? {
        switch sex {
        case .female: "female"
        case .male: "male"
        case .other: "other"
        case .notSet: nil
        }
    }

    static func parseBloodType(_ text: String) -> HKBloodType? {
        if text.lowercased() == "unset" { return .notSet }
        return bloodTypes.first { $0.1 == text.uppercased() }?.0
    }

    static func bloodTypeName(_ type: HKBloodType) -> String? {
        bloodTypes.first { $0.0 == type }?.1
    }

    /// `YYYY-MM-DD` (a real calendar day), or `unset` (nil).
    static func parseBirthDate(_ text: String) throws -> DateComponents? {
        if text.lowercased() == "unset" { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else {
            throw ValidationError("--birth-date takes YYYY-MM-DD or unset, got '\(text)'")
        }
        let components = DateComponents(calendar: Calendar(identifier: .gregorian), year: year, month: month, day: day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard (1...12).contains(month), (1...31).contains(day),
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: date) == day else {
            throw ValidationError("--birth-date: \(text) is not a calendar date")
        }
        return components
    }

    static func dateText(_ components: DateComponents?) -> String? {
        guard let components, let year = components.year, let month = components.month, let day = components.day else { return nil }
        return ISODateText.string(year: year, month: month, day: day)
    }

    static func lines(_ profile: HKOwnerProfile) -> [String] {
        guard !profile.isEmpty else {
            return ["No profile yet: this store does not say whose it is.",
                    "Set it with: health profile set --name \"GIVEN FAMILY\" --birth-date YYYY-MM-DD"]
        }
        let id = profile.medicalID
        var lines = [
            "Name:           \(profile.fullName.isEmpty ? "not set" : profile.fullName)",
            "Date of birth:  \(dateText(profile.dateOfBirth) ?? "not set")",
            "Sex:            \(sexName(profile.biologicalSex) ?? "not set")",
            "Blood type:     \(bloodTypeName(profile.bloodType) ?? "not set")",
            "Organ donor:    \(id.organDonor.map { $0 ? "yes" : "no" } ?? "not set")",
        ]
        for (label, list) in [("Conditions", id.conditions), ("Allergies", id.allergies), ("Medications", id.medications)] {
            lines.append("\(label):\(String(repeating: " ", count: 15 - label.count))\(list.isEmpty ? "none" : list.joined(separator: "; "))")
        }
        if id.emergencyContacts.isEmpty {
            lines.append("Emergency contacts: none")
        } else {
            lines.append("Emergency contacts:")
            for contact in id.emergencyContacts {
                lines.append("  \(contact.name)\(contact.relationship.isEmpty ? "" : " (\(contact.relationship))"): \(contact.phone)")
            }
        }
        if !id.notes.isEmpty { lines.append("Notes:          \(id.notes)") }
        return lines
    }

    static func json(_ profile: HKOwnerProfile) -> String {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let id = profile.medicalID
        let contacts: [JSONValue] = id.emergencyContacts.map { contact in
            .object(JSONObject(members: [JSONMember(key: "name", value: .string(contact.name)),
                                         JSONMember(key: "relationship", value: .string(contact.relationship)),
                                         JSONMember(key: "phone", value: .string(contact.phone))]))
        }
        let document = JSONValue.object(JSONObject(members: [
            JSONMember(key: "givenName", value: .string(profile.givenName)),
            JSONMember(key: "familyName", value: .string(profile.familyName)),
            JSONMember(key: "birthDate", value: text(dateText(profile.dateOfBirth))),
            JSONMember(key: "sex", value: text(sexName(profile.biologicalSex))),
            JSONMember(key: "bloodType", value: text(bloodTypeName(profile.bloodType))),
            JSONMember(key: "medicalID", value: .object(JSONObject(members: [
                JSONMember(key: "conditions", value: .array(id.conditions.map(JSONValue.string))),
                JSONMember(key: "allergies", value: .array(id.allergies.map(JSONValue.string))),
                JSONMember(key: "medications", value: .array(id.medications.map(JSONValue.string))),
                JSONMember(key: "emergencyContacts", value: .array(contacts)),
                JSONMember(key: "organDonor", value: id.organDonor.map(JSONValue.bool) ?? .null),
                JSONMember(key: "notes", value: .string(id.notes)),
            ]))),
        ]))
        return JSONWriter.string(document, style: .pretty)
    }
}

/// The hint an import prints when the store has no profile yet: whose records came in, and the
/// command that makes the store theirs. The profile is not set by itself: the first records
/// imported are not always the owner's (a parent keeps a child's records too), and a wrong
/// profile would then refuse the owner's own records.
enum ProfileHint {
    static func offer(_ people: [HealthRecordPerson], store: HKHealthStore) async {
        guard let person = people.first, !(person.givenNames.isEmpty && person.familyName == nil),
              let profile = try? await store.ownerProfile(), !profile.identifiesPerson else { return }
        var command = "health profile set"
        if !person.givenNames.isEmpty { command += " --given-name \(quoted(person.givenNames.joined(separator: " ")))" }
        if let family = person.familyName { command += " --family-name \(quoted(family))" }
        // Only a date of the form YYYY-MM-DD goes into the command: the Patient's text is not to be run.
        if let birthDate = person.birthDate, birthDate.utf8.count == 10,
           birthDate.utf8.enumerated().allSatisfy({
               $0.offset == 4 || $0.offset == 7 ? $0.element == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0.element)
           }) {
            command += " --birth-date \(birthDate)"
        }
        printError("hint: this store has no profile yet, so it does not say whose records it keeps. The records are of \(person.description); "
                   + "if this store is theirs, run: \(command)")
    }

    private static func quoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." } ? text : "'\(text.replacingOccurrences(of: "'", with: "'\\''"))'"
    }
}
