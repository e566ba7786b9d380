import Foundation

/// The identifier of the user annotated medication type (HealthKit's
/// `HKDataTypeIdentifierUserAnnotatedMedicationConcept`, iOS 26).
public let HKDataTypeIdentifierUserAnnotatedMedicationConcept = "HKDataTypeIdentifierUserAnnotatedMedicationConcept"

/// The identifier of medication dose event samples (HealthKit's
/// `HKMedicationDoseEventTypeIdentifierMedicationDoseEvent`, iOS 26).
public let HKMedicationDoseEventTypeIdentifierMedicationDoseEvent = "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent"

/// The key path of a dose event's medication concept identifier in predicates (HealthKit's
/// `HKPredicateKeyPathMedicationConceptIdentifier`, iOS 26).
public let HKPredicateKeyPathMedicationConceptIdentifier = "medicationConceptIdentifier"

/// The key path of a dose event's log status in predicates (HealthKit's
/// `HKPredicateKeyPathStatus`, iOS 26): what `predicateForMedicationDoseEvent(status:)` matches.
public let HKPredicateKeyPathStatus = "status"

/// The key path of a dose event's scheduled date in predicates (HealthKit's
/// `HKPredicateKeyPathScheduledDate`, iOS 26): what the `predicateForMedicationDoseEvent(scheduled…)`
/// predicates match.
public let HKPredicateKeyPathScheduledDate = "scheduledDate"

/// The key path of a medication's archived status in predicates (HealthKit's
/// `HKUserAnnotatedMedicationPredicateKeyPathIsArchived`, iOS 26).
public let HKUserAnnotatedMedicationPredicateKeyPathIsArchived = "isArchived"

/// The key path of whether a medication has a schedule in predicates (HealthKit's
/// `HKUserAnnotatedMedicationPredicateKeyPathHasSchedule`, iOS 26).
public let HKUserAnnotatedMedicationPredicateKeyPathHasSchedule = "hasSchedule"

/// The set of medications an app may be authorized to read (HealthKit's
/// `HKUserAnnotatedMedicationType`, iOS 26). Medications are read-only for apps and read as the
/// person chooses (`requestPerObjectReadAuthorization(for:predicate:)`).
public final class HKUserAnnotatedMedicationType: HKObjectType, @unchecked Sendable {
    init() {
        super.init(identifier: HKDataTypeIdentifierUserAnnotatedMedicationConcept)
    }
}

/// The type of medication dose event samples (HealthKit's `HKMedicationDoseEventType`, iOS 26).
/// Dose events are read-only for apps: the Health app (here, the store's owner) logs them.
public final class HKMedicationDoseEventType: HKSampleType, @unchecked Sendable {
    init() {
        super.init(identifier: HKMedicationDoseEventTypeIdentifierMedicationDoseEvent)
    }
}

extension HKObjectType {
    /// Returns the medication dose event type (HealthKit's `medicationDoseEventType()`, iOS 26).
    public class func medicationDoseEventType() -> HKMedicationDoseEventType { HKMedicationDoseEventType() }

    /// Returns the user annotated medication type (HealthKit's `userAnnotatedMedicationType()`,
    /// iOS 26), the type apps name in `requestPerObjectReadAuthorization(for:predicate:)`.
    public class func userAnnotatedMedicationType() -> HKUserAnnotatedMedicationType { HKUserAnnotatedMedicationType() }

    /// The medication types by identifier, for `type(forIdentifierString:)`.
    static func medicationType(forIdentifierString identifier: String) -> HKObjectType? {
        switch identifier {
        case HKMedicationDoseEventTypeIdentifierMedicationDoseEvent: return HKMedicationDoseEventType()
        case HKDataTypeIdentifierUserAnnotatedMedicationConcept: return HKUserAnnotatedMedicationType()
        default: return nil
        }
    }

    /// The dose event type a person names (lowercased): `medicationDoseEvent`, `medicationDose`,
    /// `dose`, or its identifier.
    static func medicationSampleType(named key: String) -> HKSampleType? {
        switch key {
        case "medicationdoseevent", "medicationdoseevents", "medicationdose", "medicationdoses", "medication-dose", "dose", "doses",
             HKMedicationDoseEventTypeIdentifierMedicationDoseEvent.lowercased():
            return HKMedicationDoseEventType()
        default:
            return nil
        }
    }
}
