import Foundation

/// A domain of health concepts (HealthKit's `HKHealthConceptDomain`, iOS 26): the medication
/// domain groups all medication concepts together.
public struct HKHealthConceptDomain: RawRepresentable, Hashable, Sendable {
    /// The domain's string.
    public let rawValue: String

    /// Creates a domain from its string, as HealthKit's `init(rawValue:)`.
    /// - Parameter rawValue: The domain's string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The domain of medication concepts, such as ibuprofen or insulin.
    public static let medication = HKHealthConceptDomain(rawValue: "HKHealthConceptDomainMedication")
}

/// A unique identifier of one health concept within a domain (HealthKit's
/// `HKHealthConceptIdentifier`, iOS 26). Identifiers compare and hash by value; a medication's
/// identifier links its dose events to it.
public final class HKHealthConceptIdentifier: NSObject, NSCopying, @unchecked Sendable {
    /// The domain this identifier belongs to.
    public let domain: HKHealthConceptDomain
    /// The identifier's stored form: `rxnorm:CODE` for a concept named by an RxNorm code,
    /// `code:SYSTEM|CODE` for another coding, `text:NAME` for a concept known by name only.
    let value: String

    init(domain: HKHealthConceptDomain, value: String) {
        self.domain = domain
        self.value = value
        super.init()
    }

    /// A copy (identifiers are immutable: the same object).
    /// - Parameter zone: Ignored.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKHealthConceptIdentifier else { return false }
        return other.domain == domain && other.value == value
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(domain)
        hasher.combine(value)
        return hasher.finalize()
    }

    public override var description: String { value }

    /// The identifier of a medication concept named by its stored form.
    static func medication(_ value: String) -> HKHealthConceptIdentifier {
        HKHealthConceptIdentifier(domain: .medication, value: value)
    }
}

/// A medical concept in a standard coding system (HealthKit's `HKClinicalCoding`, iOS 26),
/// closely related to FHIR's `Coding`: for medications, RxNorm codes.
public final class HKClinicalCoding: NSObject, NSCopying, @unchecked Sendable {
    /// The coding system, usually an HL7 terminology URL (RxNorm:
    /// `http://www.nlm.nih.gov/research/umls/rxnorm`).
    public let system: String
    /// The version of the system, if applicable.
    public let version: String?
    /// The code of the concept within the system.
    public let code: String

    /// RxNorm's system URL.
    static let rxNormSystem = "http://www.nlm.nih.gov/research/umls/rxnorm"

    /// Creates a clinical coding, as HealthKit's `init(system:version:code:)`.
    /// - Parameters:
    ///   - system: The string that identifies the coding system, typically an HL7 URL.
    ///   - version: The version of the system, if applicable.
    ///   - code: The clinical code string that represents the medical concept.
    public init(system: String, version: String?, code: String) {
        self.system = system
        self.version = version
        self.code = code
        super.init()
    }

    /// A copy (codings are immutable: the same object).
    /// - Parameter zone: Ignored.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKClinicalCoding else { return false }
        return other.system == system && other.version == version && other.code == code
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(system)
        hasher.combine(version)
        hasher.combine(code)
        return hasher.finalize()
    }

    public override var description: String { "\(system)|\(code)" }
}

/// The manufactured form of a medication (HealthKit's `HKMedicationGeneralForm`, iOS 26).
public struct HKMedicationGeneralForm: RawRepresentable, Hashable, Sendable {
    /// The form's string.
    public let rawValue: String

    /// Creates a form from its string, as HealthKit's `init(rawValue:)`.
    /// - Parameter rawValue: The form's string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A capsule, such as a hard-shell capsule or softgel.
    public static let capsule = HKMedicationGeneralForm(rawValue: "capsule")
    /// A cream.
    public static let cream = HKMedicationGeneralForm(rawValue: "cream")
    /// Given through a device, such as an infusion pump.
    public static let device = HKMedicationGeneralForm(rawValue: "device")
    /// Drops, such as eye or ear drops.
    public static let drops = HKMedicationGeneralForm(rawValue: "drops")
    /// A foam.
    public static let foam = HKMedicationGeneralForm(rawValue: "foam")
    /// A gel.
    public static let gel = HKMedicationGeneralForm(rawValue: "gel")
    /// An inhaler.
    public static let inhaler = HKMedicationGeneralForm(rawValue: "inhaler")
    /// An injection.
    public static let injection = HKMedicationGeneralForm(rawValue: "injection")
    /// A liquid, such as a syrup.
    public static let liquid = HKMedicationGeneralForm(rawValue: "liquid")
    /// A lotion.
    public static let lotion = HKMedicationGeneralForm(rawValue: "lotion")
    /// An ointment.
    public static let ointment = HKMedicationGeneralForm(rawValue: "ointment")
    /// A patch.
    public static let patch = HKMedicationGeneralForm(rawValue: "patch")
    /// A powder.
    public static let powder = HKMedicationGeneralForm(rawValue: "powder")
    /// A spray.
    public static let spray = HKMedicationGeneralForm(rawValue: "spray")
    /// A suppository.
    public static let suppository = HKMedicationGeneralForm(rawValue: "suppository")
    /// A tablet, such as a pill or caplet.
    public static let tablet = HKMedicationGeneralForm(rawValue: "tablet")
    /// Applied topically.
    public static let topical = HKMedicationGeneralForm(rawValue: "topical")
    /// The form is not known.
    public static let unknown = HKMedicationGeneralForm(rawValue: "unknown")

    /// Every form HealthKit declares, in alphabetical order.
    static let all: [HKMedicationGeneralForm] = [.capsule, .cream, .device, .drops, .foam, .gel, .inhaler, .injection, .liquid, .lotion,
                                                 .ointment, .patch, .powder, .spray, .suppository, .tablet, .topical, .unknown]
}

/// The idea of a medication, like ibuprofen or insulin (HealthKit's `HKMedicationConcept`,
/// iOS 26): its identifier, name, form and clinical codings.
public final class HKMedicationConcept: NSObject, NSCopying, @unchecked Sendable {
    /// The unique identifier of the concept; dose events name it.
    public let identifier: HKHealthConceptIdentifier
    /// The display name of the medication.
    public let displayText: String
    /// The general form the medication is manufactured in.
    public let generalForm: HKMedicationGeneralForm
    /// The clinical codings linking the medication to terminologies such as RxNorm.
    public let relatedCodings: Set<HKClinicalCoding>

    init(identifier: HKHealthConceptIdentifier, displayText: String, generalForm: HKMedicationGeneralForm, relatedCodings: Set<HKClinicalCoding>) {
        self.identifier = identifier
        self.displayText = displayText
        self.generalForm = generalForm
        self.relatedCodings = relatedCodings
        super.init()
    }

    /// A copy (concepts are immutable: the same object).
    /// - Parameter zone: Ignored.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKMedicationConcept else { return false }
        return other.identifier == identifier && other.displayText == displayText && other.generalForm == generalForm
            && other.relatedCodings == relatedCodings
    }

    public override var hash: Int { identifier.hash }

    public override var description: String { displayText }

    /// The identifier a concept gets, the same whenever the same medication is added again: from
    /// its lowest RxNorm code, else its lowest other coding, else its name (case-insensitive).
    static func identifier(displayText: String, codings: Set<HKClinicalCoding>) -> HKHealthConceptIdentifier {
        let usable = codings.filter { !$0.code.isEmpty && !$0.system.isEmpty }
        if let code = usable.filter({ $0.system == HKClinicalCoding.rxNormSystem }).map(\.code).min() {
            return .medication("rxnorm:\(code)")
        }
        if let coding = usable.map({ "\($0.system)|\($0.code)" }).min() { return .medication("code:\(coding)") }
        let name = displayText.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return .medication("text:\(name)")
    }
}

/// A medication a person tracks, with the details they chose (HealthKit's
/// `HKUserAnnotatedMedication`, iOS 26). Apps read them with
/// ``HKUserAnnotatedMedicationQueryDescriptor``; the store's owner adds them
/// (`HKHealthStore.addMedication(displayText:generalForm:relatedCodings:nickname:hasSchedule:)`).
public final class HKUserAnnotatedMedication: NSObject, @unchecked Sendable {
    /// The name the person gave the medication, if any.
    public let nickname: String?
    /// Whether the person archived the medication (no longer takes it).
    public let isArchived: Bool
    /// Whether the medication has a reminder schedule (it may still be taken as needed).
    public let hasSchedule: Bool
    /// The medication tracked; its identifier is the one its dose events name.
    public let medication: HKMedicationConcept

    init(nickname: String?, isArchived: Bool, hasSchedule: Bool, medication: HKMedicationConcept) {
        self.nickname = nickname
        self.isArchived = isArchived
        self.hasSchedule = hasSchedule
        self.medication = medication
        super.init()
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKUserAnnotatedMedication else { return false }
        return other.nickname == nickname && other.isArchived == isArchived && other.hasSchedule == hasSchedule && other.medication == medication
    }

    public override var hash: Int { medication.hash }

    public override var description: String { nickname ?? medication.displayText }
}

/// A logged dose of a medication (HealthKit's `HKMedicationDoseEvent`, iOS 26): a sample whose
/// date is when the dose was logged as taken, skipped or otherwise. Read-only for apps.
public final class HKMedicationDoseEvent: HKSample, @unchecked Sendable {
    /// How a dose event was logged (HealthKit's `HKMedicationDoseEvent.LogStatus`).
    public enum LogStatus: Int, Sendable, Hashable, CaseIterable {
        /// The person did not respond to the scheduled reminder.
        case notInteracted = 1
        /// The system could not deliver the scheduled reminder.
        case notificationNotSent = 2
        /// The person snoozed the reminder.
        case snoozed = 3
        /// The person took the dose.
        case taken = 4
        /// The person skipped the dose.
        case skipped = 5
        /// The person undid a previously logged status.
        case notLogged = 6
    }

    /// The scheduling context of a dose (HealthKit's `HKMedicationDoseEvent.ScheduleType`).
    public enum ScheduleType: Int, Sendable, Hashable, CaseIterable {
        /// Logged without a schedule.
        case asNeeded = 1
        /// Logged from a scheduled reminder.
        case schedule = 2
    }

    /// The dose event type.
    public var medicationDoseEventType: HKMedicationDoseEventType { HKMedicationDoseEventType() }
    /// The identifier of the medication concept the dose is of.
    public let medicationConceptIdentifier: HKHealthConceptIdentifier
    /// When the dose was scheduled, for a scheduled dose.
    public let scheduledDate: Date?
    /// The quantity scheduled to be taken, in ``unit``.
    public let scheduledDoseQuantity: Double?
    /// The quantity taken, in ``unit``.
    public let doseQuantity: Double?
    /// How the dose was logged.
    public let logStatus: LogStatus
    /// Whether the dose was scheduled or taken as needed.
    public let scheduleType: ScheduleType
    /// The unit of ``doseQuantity`` and ``scheduledDoseQuantity``.
    public let unit: HKUnit

    init(concept: HKHealthConceptIdentifier, logStatus: LogStatus, scheduleType: ScheduleType, scheduledDate: Date?,
         scheduledDoseQuantity: Double?, doseQuantity: Double?, unit: HKUnit, start: Date, end: Date, uuid: UUID = UUID(),
         sourceRevision: HKSourceRevision? = nil, device: HKDevice? = nil, metadata: [String: Any]? = nil) {
        self.medicationConceptIdentifier = concept
        self.logStatus = logStatus
        self.scheduleType = scheduleType
        self.scheduledDate = scheduledDate
        self.scheduledDoseQuantity = scheduledDoseQuantity
        self.doseQuantity = doseQuantity
        self.unit = unit
        super.init(sampleType: HKMedicationDoseEventType(), startDate: start, endDate: end, uuid: uuid, sourceRevision: sourceRevision,
                   device: device, metadata: metadata)
    }
}

/// A dose event's fields in a sealed payload's extra section (JSON); the log status is the
/// payload's integer.
struct MedicationDoseDetails: Codable {
    var concept: String
    var schedule: Int
    var scheduledDate: Double?
    var scheduled: Double?
    var dose: Double?
    var unit: String

    /// Checks the event as the store accepts it and converts it.
    init(_ event: HKMedicationDoseEvent) throws {
        for (name, value) in [("dose", event.doseQuantity), ("scheduled dose", event.scheduledDoseQuantity)] {
            if let value, !(value.isFinite && value >= 0) {
                throw HKError(.errorInvalidArgument, "a medication's \(name) quantity must be a finite number, zero or more")
            }
        }
        if let date = event.scheduledDate, !date.timeIntervalSinceReferenceDate.isFinite {
            throw HKError(.errorInvalidArgument, "a dose's scheduled date must be a date")
        }
        // As Apple documents it: a scheduled dose always has its scheduled date, an as-needed one
        // never has a scheduled date or a scheduled quantity.
        switch event.scheduleType {
        case .asNeeded where event.scheduledDate != nil || event.scheduledDoseQuantity != nil:
            throw HKError(.errorInvalidArgument, "a dose taken as needed has no scheduled date or scheduled quantity")
        case .schedule where event.scheduledDate == nil:
            throw HKError(.errorInvalidArgument, "a scheduled dose needs its scheduled date")
        default:
            break
        }
        concept = event.medicationConceptIdentifier.value
        schedule = event.scheduleType.rawValue
        scheduledDate = event.scheduledDate?.timeIntervalSinceReferenceDate
        scheduled = event.scheduledDoseQuantity
        dose = event.doseQuantity
        unit = event.unit.unitString
    }

    /// The event these details describe.
    func makeSample(status: Int64, start: Date, end: Date, uuid: UUID, revision: HKSourceRevision, device: HKDevice?,
                    metadata: [String: Any]?) throws -> HKMedicationDoseEvent {
        guard let logStatus = Int(exactly: status).flatMap(HKMedicationDoseEvent.LogStatus.init(rawValue:)),
              let scheduleType = HKMedicationDoseEvent.ScheduleType(rawValue: schedule),
              let parsedUnit = try? HKUnit.parse(unit) else {
            throw HealthStoreError(.corruptDatabase, "a sealed medication dose has an unknown status, schedule or unit")
        }
        return HKMedicationDoseEvent(concept: .medication(concept), logStatus: logStatus, scheduleType: scheduleType,
                                     scheduledDate: scheduledDate.map(Date.init(timeIntervalSinceReferenceDate:)),
                                     scheduledDoseQuantity: scheduled, doseQuantity: dose, unit: parsedUnit, start: start, end: end,
                                     uuid: uuid, sourceRevision: revision, device: device, metadata: metadata)
    }
}
