import ArgumentParser
import Foundation
import OpenHealthKit

/// `health store medications …`: the medications the person tracks and the doses they log, as
/// the Health app keeps them (apps read them with HealthKit's medications API, never write them).
struct StoreMedicationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medications",
        abstract: "Track medications and log their doses.",
        discussion: """
            Examples:
              health store medications add --name "Lisinopril 10 MG Oral Tablet" --form tablet --rxnorm 314076 --nickname "Blood pressure" --scheduled
              health store medications list
              health store medications dose --medication Lisinopril --status taken --quantity 1 --at 2026-11-20T08:05 --scheduled-at 2026-11-20T08:00
              health store medications doses --medication Lisinopril
              health store medications archive --medication Lisinopril
            """,
        subcommands: [Add.self, List.self, Archive.self, Unarchive.self, Dose.self, Doses.self],
        defaultSubcommand: List.self)

    /// Finds the one tracked medication a person names: its name, nickname, RxNorm code or identifier.
    static func find(_ name: String, in store: HKHealthStore) async throws -> HKUserAnnotatedMedication {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        let all = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store)
        let exact = all.filter { medication in
            medication.medication.displayText.lowercased() == key || medication.nickname?.lowercased() == key
                || medication.medication.identifier.description.lowercased() == key
                || medication.medication.relatedCodings.contains { $0.code.lowercased() == key }
        }
        let matches = exact.isEmpty
            ? all.filter { $0.medication.displayText.lowercased().contains(key) || ($0.nickname?.lowercased().contains(key) ?? false) }
            : exact
        guard !key.isEmpty, let first = matches.first else {
            throw ValidationError("no tracked medication is named '\(name)' (see `health store medications list`)")
        }
        guard matches.count == 1 else {
            let names = matches.map(\.medication.displayText).joined(separator: "; ")
            throw ValidationError("'\(name)' names \(matches.count) medications: \(names); be more precise")
        }
        return first
    }

    /// One line about a medication, in words a person reads.
    static func describe(_ medication: HKUserAnnotatedMedication) -> String {
        var parts = [medication.medication.displayText]
        if let nickname = medication.nickname { parts.append("(\(nickname))") }
        let form = medication.medication.generalForm.rawValue
        if form != HKMedicationGeneralForm.unknown.rawValue { parts.append("– \(form)") }
        let rxNorm = medication.medication.relatedCodings.filter { $0.system == "http://www.nlm.nih.gov/research/umls/rxnorm" }.map(\.code).sorted()
        if !rxNorm.isEmpty { parts.append("– RxNorm \(rxNorm.joined(separator: ", "))") }
        parts.append(medication.hasSchedule ? "– scheduled" : "– as needed")
        if medication.isArchived { parts.append("– archived") }
        return parts.joined(separator: " ")
    }

    static let statusNames: [(String, HKMedicationDoseEvent.LogStatus)] = [
        ("taken", .taken), ("skipped", .skipped), ("snoozed", .snoozed), ("not-interacted", .notInteracted),
        ("notification-not-sent", .notificationNotSent), ("not-logged", .notLogged),
    ]

    static func statusName(_ status: HKMedicationDoseEvent.LogStatus) -> String {
        switch status {
        case .taken: return "Taken"
        case .skipped: return "Skipped"
        case .snoozed: return "Snoozed"
        case .notInteracted: return "No response"
        case .notificationNotSent: return "Reminder not sent"
        case .notLogged: return "Not logged"
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Track a medication (adding one already tracked changes nothing).")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The medication's name, e.g. 'Ibuprofen 200 MG Oral Tablet'.")
        var name: String

        @Option(help: ArgumentHelp("Its form: capsule, cream, device, drops, foam, gel, inhaler, injection, liquid, lotion, ointment, patch, powder, "
                                       + "spray, suppository, tablet, topical."))
        var form: String?

        @Option(help: "Its RxNorm code (repeatable).")
        var rxnorm: [String] = []

        @Option(help: "The name you call it.")
        var nickname: String?

        @Flag(help: "It has a reminder schedule (otherwise taken as needed).")
        var scheduled = false

        mutating func run() async throws {
            let generalForm: HKMedicationGeneralForm
            if let form {
                let key = form.trimmingCharacters(in: .whitespaces).lowercased()
                let known = ["capsule", "cream", "device", "drops", "foam", "gel", "inhaler", "injection", "liquid", "lotion", "ointment", "patch",
                             "powder", "spray", "suppository", "tablet", "topical", "unknown"]
                guard known.contains(key) else { throw ValidationError("unknown form '\(form)': one of \(known.joined(separator: ", "))") }
                generalForm = HKMedicationGeneralForm(rawValue: key)
            } else {
                generalForm = .unknown
            }
            for code in rxnorm where code.isEmpty || !code.allSatisfy(\.isASCII) || !code.allSatisfy(\.isNumber) {
                throw ValidationError("an RxNorm code is a number, not '\(code)'")
            }
            let codings = Set(rxnorm.map { HKClinicalCoding(system: "http://www.nlm.nih.gov/research/umls/rxnorm", version: nil, code: $0) })
            let store = try storeOptions.openStore()
            let before = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store).count
            let medication = try await store.addMedication(displayText: name, generalForm: generalForm, relatedCodings: codings,
                                                           nickname: nickname, hasSchedule: scheduled)
            let after = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store).count
            let described = StoreMedicationsCommand.describe(medication)
            print(after > before ? "Added \(described)." : "Already tracked: \(described).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the medications tracked.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Include archived medications.")
        var archived = false

        @Flag(help: "Print JSON.")
        var json = false

        mutating func run() async throws {
            let store = try storeOptions.openStore()
            let predicate = archived ? nil : HKQuery.predicateForUserAnnotatedMedications(isArchived: false)
            let medications = try await HKUserAnnotatedMedicationQueryDescriptor(predicate: predicate).result(for: store)
            if json {
                let objects: [[String: Any]] = medications.map { medication in
                    var object: [String: Any] = [
                        "identifier": medication.medication.identifier.description, "name": medication.medication.displayText,
                        "form": medication.medication.generalForm.rawValue, "archived": medication.isArchived, "scheduled": medication.hasSchedule,
                        "codings": medication.medication.relatedCodings.sorted { $0.code < $1.code }.map { ["system": $0.system, "code": $0.code] },
                    ]
                    if let nickname = medication.nickname { object["nickname"] = nickname }
                    return object
                }
                let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            guard !medications.isEmpty else {
                print(archived ? "No medications are tracked." : "No medications are tracked (archived ones: --archived).")
                return
            }
            for medication in medications { print(StoreMedicationsCommand.describe(medication)) }
        }
    }

    /// Archives or brings back the medication a person names (name, nickname or RxNorm code).
    static func setArchived(_ archived: Bool, _ medication: String, _ storeOptions: StoreOptions) async throws -> HKUserAnnotatedMedication {
        let store = try storeOptions.openStore()
        let found = try await find(medication, in: store)
        return try await store.setMedication(found, archived: archived)
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Archive a medication no longer taken (its doses stay).")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The medication: its name, nickname or RxNorm code.")
        var medication: String

        mutating func run() async throws {
            let updated = try await StoreMedicationsCommand.setArchived(true, medication, storeOptions)
            print("Archived \(updated.medication.displayText).")
        }
    }

    struct Unarchive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bring an archived medication back.")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The medication: its name, nickname or RxNorm code.")
        var medication: String

        mutating func run() async throws {
            let updated = try await StoreMedicationsCommand.setArchived(false, medication, storeOptions)
            print("\(updated.medication.displayText) is no longer archived.")
        }
    }

    struct Dose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Log a dose of a tracked medication.")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "The medication: its name, nickname or RxNorm code.")
        var medication: String

        @Option(help: "How it went: taken, skipped, snoozed, not-interacted, notification-not-sent, not-logged (default: taken).")
        var status = "taken"

        @Option(help: "How much was taken, in --unit (default: 1 when taken).")
        var quantity: Double?

        @Option(help: "The unit of the quantities (default: count, e.g. tablets; or mL, mg…).")
        var unit = "count"

        @Option(help: "When it was logged (ISO 8601; default: now).")
        var at: String?

        @Option(help: "When it was scheduled, for a scheduled dose (omit for as needed).")
        var scheduledAt: String?

        @Option(help: "How much was scheduled, for a scheduled dose.")
        var scheduledQuantity: Double?

        mutating func run() async throws {
            let key = status.trimmingCharacters(in: .whitespaces).lowercased()
            guard let logStatus = StoreMedicationsCommand.statusNames.first(where: { $0.0 == key })?.1 else {
                throw ValidationError("unknown status '\(status)': one of \(StoreMedicationsCommand.statusNames.map(\.0).joined(separator: ", "))")
            }
            let parsedUnit: HKUnit
            do {
                parsedUnit = try HKUnit.parse(unit)
            } catch {
                throw ValidationError("'\(unit)' is not a unit")
            }
            guard scheduledQuantity == nil || scheduledAt != nil else {
                throw ValidationError("--scheduled-quantity is for a scheduled dose: give --scheduled-at too "
                                          + "(a dose taken as needed has no scheduled quantity)")
            }
            let date = try at.map(parseDate) ?? Date()
            let scheduled = try scheduledAt.map(parseDate)
            let store = try storeOptions.openStore()
            let found = try await StoreMedicationsCommand.find(medication, in: store)
            let amount = quantity ?? (logStatus == .taken ? 1 : nil)
            let event = try await store.logMedicationDose(of: found, status: logStatus, doseQuantity: amount, unit: parsedUnit, date: date,
                                                          scheduledDate: scheduled, scheduledDoseQuantity: scheduledQuantity)
            print("Logged \(StoreMedicationsCommand.describe(event, name: found.medication.displayText)).")
        }
    }

    struct Doses: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the doses logged, newest first.")

        @OptionGroup var storeOptions: StoreOptions

        @Option(help: "Only this medication: its name, nickname or RxNorm code.")
        var medication: String?

        @Flag(help: "Print JSON.")
        var json = false

        mutating func run() async throws {
            let store = try storeOptions.openStore()
            let medications = try await HKUserAnnotatedMedicationQueryDescriptor().result(for: store)
            var names: [HKHealthConceptIdentifier: String] = [:]
            for tracked in medications { names[tracked.medication.identifier] = tracked.medication.displayText }
            var predicate: NSPredicate?
            if let medication {
                let found = try await StoreMedicationsCommand.find(medication, in: store)
                predicate = HKQuery.predicateForMedicationDoseEvent(medicationConceptIdentifier: found.medication.identifier)
            }
            let descriptor = HKSampleQueryDescriptor(predicates: [.sample(type: .medicationDoseEventType(), predicate: predicate)],
                                                     sortDescriptors: [SortDescriptor(\.startDate, order: .reverse)])
            let doses = try await descriptor.result(for: store).compactMap { $0 as? HKMedicationDoseEvent }
            if json {
                let objects: [[String: Any]] = doses.map { dose in
                    var object: [String: Any] = [
                        "uuid": dose.uuid.uuidString, "medication": names[dose.medicationConceptIdentifier] ?? dose.medicationConceptIdentifier.description,
                        "status": StoreMedicationsCommand.statusNames.first { $0.1 == dose.logStatus }?.0 ?? "", "date": isoDate(dose.startDate),
                        "unit": dose.unit.unitString,
                    ]
                    if let quantity = dose.doseQuantity { object["quantity"] = quantity }
                    if let scheduled = dose.scheduledDate { object["scheduledDate"] = isoDate(scheduled) }
                    if let quantity = dose.scheduledDoseQuantity { object["scheduledQuantity"] = quantity }
                    return object
                }
                let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            guard !doses.isEmpty else {
                print("No doses are logged.")
                return
            }
            for dose in doses {
                print(StoreMedicationsCommand.describe(dose, name: names[dose.medicationConceptIdentifier] ?? dose.medicationConceptIdentifier.description))
            }
        }
    }

    /// One line about a dose: `2026-11-20 08:05 Lisinopril: Taken, 1 count (scheduled 08:00, 1 count)`.
    static func describe(_ dose: HKMedicationDoseEvent, name: String) -> String {
        var text = "\(formatDate(dose.startDate)) \(name): \(statusName(dose.logStatus))"
        if let quantity = dose.doseQuantity { text += ", \(formatNumber(quantity)) \(dose.unit.unitString)" }
        if let scheduled = dose.scheduledDate {
            text += " (scheduled \(formatDate(scheduled))"
            if let quantity = dose.scheduledDoseQuantity { text += ", \(formatNumber(quantity)) \(dose.unit.unitString)" }
            text += ")"
        } else {
            text += " (as needed)"
        }
        return text
    }
}
