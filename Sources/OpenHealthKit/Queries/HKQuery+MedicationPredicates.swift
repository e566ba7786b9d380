import Foundation

/// One medication condition of a predicate, decided on the decrypted dose event or medication
/// (their fields are sealed).
enum MedicationMatch: Sendable {
    /// Dose events of one of these medication concepts (their stored identifiers).
    case concepts(Set<String>)
    case status(HKMedicationDoseEvent.LogStatus)
    case scheduledDates(Set<Date>)
    /// Dose events scheduled in `[start, end)`; nil leaves a side unbound.
    case scheduledWindow(start: Date?, end: Date?)
    /// User annotated medications by archived status.
    case isArchived(Bool)
    /// User annotated medications by whether they have a schedule.
    case hasSchedule(Bool)

    /// Whether `dose` meets the condition (medication-only conditions never match a dose).
    func matches(_ dose: HKMedicationDoseEvent) -> Bool {
        switch self {
        case .concepts(let concepts): return concepts.contains(dose.medicationConceptIdentifier.value)
        case .status(let status): return dose.logStatus == status
        case .scheduledDates(let dates): return dose.scheduledDate.map(dates.contains) ?? false
        case .scheduledWindow(let start, let end):
            guard let date = dose.scheduledDate else { return false }
            if let start, date < start { return false }
            if let end, date >= end { return false }
            return true
        case .isArchived, .hasSchedule: return false
        }
    }

    /// Whether `medication` meets the condition (dose-only conditions never match a medication).
    func matches(_ medication: HKUserAnnotatedMedication) -> Bool {
        switch self {
        case .isArchived(let archived): return medication.isArchived == archived
        case .hasSchedule(let scheduled): return medication.hasSchedule == scheduled
        case .concepts(let concepts): return concepts.contains(medication.medication.identifier.value)
        case .status, .scheduledDates, .scheduledWindow: return false
        }
    }
}

extension PredicateNode {
    /// Decides the predicate on a medication (HKUserAnnotatedMedicationQuery's predicates: the
    /// medication factories, constants and their compounds).
    /// - Throws: `HealthStoreError.unsupportedPredicate` for a condition on samples.
    func matches(medication: HKUserAnnotatedMedication) throws -> Bool {
        switch self {
        case .constant(let value): return value
        case .medication(let match): return match.matches(medication)
        case .and(let nodes): return try nodes.allSatisfy { try $0.matches(medication: medication) }
        case .or(let nodes): return try nodes.contains { try $0.matches(medication: medication) }
        case .not(let node): return try !node.matches(medication: medication)
        default:
            throw HealthStoreError(.unsupportedPredicate,
                                   "a medication query takes only predicateForUserAnnotatedMedications(…) predicates and their compounds")
        }
    }
}

extension HKQuery {
    /// Matches dose events of one medication, as HealthKit's
    /// `predicateForMedicationDoseEvent(medicationConceptIdentifier:)` (iOS 26).
    /// - Parameter medicationConceptIdentifier: The identifier of the medication the dose events were logged for.
    public class func predicateForMedicationDoseEvent(medicationConceptIdentifier: HKHealthConceptIdentifier) -> NSPredicate {
        HKQueryPredicate(.medication(.concepts([medicationConceptIdentifier.value])))
    }

    /// Matches dose events of any of several medications, as HealthKit's
    /// `predicateForMedicationDoseEvent(medicationConceptIdentifiers:)` (iOS 26).
    /// - Parameter medicationConceptIdentifiers: Any identifier of a medication the dose events were logged for.
    public class func predicateForMedicationDoseEvent(medicationConceptIdentifiers: Set<HKHealthConceptIdentifier>) -> NSPredicate {
        HKQueryPredicate(.medication(.concepts(Set(medicationConceptIdentifiers.map(\.value)))))
    }

    /// Matches dose events with one log status, as HealthKit's
    /// `predicateForMedicationDoseEvent(status:)` (iOS 26).
    /// - Parameter status: The logged status of the dose events to match.
    public class func predicateForMedicationDoseEvent(status: HKMedicationDoseEvent.LogStatus) -> NSPredicate {
        HKQueryPredicate(.medication(.status(status)))
    }

    /// Matches dose events scheduled at exactly one date, as HealthKit's
    /// `predicateForMedicationDoseEvent(scheduledDate:)` (iOS 26).
    /// - Parameter scheduledDate: The exact scheduled date of the dose events to match.
    public class func predicateForMedicationDoseEvent(scheduledDate: Date) -> NSPredicate {
        HKQueryPredicate(.medication(.scheduledDates([scheduledDate])))
    }

    /// Matches dose events scheduled at any of several dates, as HealthKit's
    /// `predicateForMedicationDoseEvent(scheduledDates:)` (iOS 26).
    /// - Parameter scheduledDates: The exact scheduled dates of the dose events to match.
    public class func predicateForMedicationDoseEvent(scheduledDates: Set<Date>) -> NSPredicate {
        HKQueryPredicate(.medication(.scheduledDates(scheduledDates)))
    }

    /// Matches dose events scheduled within a window, as HealthKit's
    /// `predicateForMedicationDoseEvent(scheduledStart:end:)` (iOS 26): from `startDate`
    /// (included) to `endDate` (excluded); nil leaves that side unbound. Unscheduled (as needed)
    /// doses have no scheduled date and never match.
    /// - Parameters:
    ///   - startDate: The beginning of the window, or nil.
    ///   - endDate: The end of the window, or nil.
    public class func predicateForMedicationDoseEvent(scheduledStart startDate: Date?, end endDate: Date?) -> NSPredicate {
        HKQueryPredicate(.medication(.scheduledWindow(start: startDate, end: endDate)))
    }

    /// Matches medications by archived status, as HealthKit's
    /// `predicateForUserAnnotatedMedications(isArchived:)` (iOS 26), for
    /// ``HKUserAnnotatedMedicationQuery`` and ``HKUserAnnotatedMedicationQueryDescriptor``.
    /// - Parameter isArchived: True matches medications in the archived section.
    public class func predicateForUserAnnotatedMedications(isArchived: Bool) -> NSPredicate {
        HKQueryPredicate(.medication(.isArchived(isArchived)))
    }

    /// Matches medications by whether they have a reminder schedule, as HealthKit's
    /// `predicateForUserAnnotatedMedications(hasSchedule:)` (iOS 26).
    /// - Parameter hasSchedule: True matches medications with a reminder schedule.
    public class func predicateForUserAnnotatedMedications(hasSchedule: Bool) -> NSPredicate {
        HKQueryPredicate(.medication(.hasSchedule(hasSchedule)))
    }
}
