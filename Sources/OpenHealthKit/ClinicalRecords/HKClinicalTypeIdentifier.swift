import Foundation

/// Identifies a type of clinical record (HealthKit's `HKClinicalTypeIdentifier`).
///
/// The raw value is the Objective-C constant's string, e.g. `"HKClinicalTypeIdentifierAllergyRecord"`.
/// Clinical types are read-only for apps: they may be read, never shared.
public struct HKClinicalTypeIdentifier: RawRepresentable, Hashable, Sendable, Codable {
    /// The identifier string, exactly as HealthKit spells it.
    public let rawValue: String

    /// Creates an identifier from its raw string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates an identifier from its raw string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HKClinicalTypeIdentifier {
    /// Allergies and intolerances (FHIR `AllergyIntolerance`).
    public static let allergyRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierAllergyRecord")
    /// Clinical notes (FHIR `DocumentReference`).
    public static let clinicalNoteRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierClinicalNoteRecord")
    /// Conditions, problems and diagnoses (FHIR `Condition`).
    public static let conditionRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierConditionRecord")
    /// Insurance coverage (FHIR `Coverage`).
    public static let coverageRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierCoverageRecord")
    /// Immunizations (FHIR `Immunization`).
    public static let immunizationRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierImmunizationRecord")
    /// Laboratory results (FHIR `Observation` outside vital signs, and `DiagnosticReport`).
    public static let labResultRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierLabResultRecord")
    /// Medications (FHIR `MedicationStatement`, `MedicationRequest`, `MedicationOrder`, `MedicationDispense`).
    public static let medicationRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierMedicationRecord")
    /// Procedures (FHIR `Procedure`).
    public static let procedureRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierProcedureRecord")
    /// Vital signs (FHIR `Observation` with the `vital-signs` category).
    public static let vitalSignRecord = HKClinicalTypeIdentifier(rawValue: "HKClinicalTypeIdentifierVitalSignRecord")
}

extension HKClinicalTypeIdentifier {
    /// Every clinical type identifier HealthKit has.
    public static let allKnown: [HKClinicalTypeIdentifier] = [
        .allergyRecord, .clinicalNoteRecord, .conditionRecord, .coverageRecord, .immunizationRecord, .labResultRecord,
        .medicationRecord, .procedureRecord, .vitalSignRecord,
    ]
}
