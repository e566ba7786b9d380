import Foundation

/// The FHIR resource types HealthKit stores as clinical records (HealthKit's `HKFHIRResourceType`).
/// The raw value is the FHIR resource type name, e.g. `"AllergyIntolerance"`.
public struct HKFHIRResourceType: RawRepresentable, Hashable, Sendable, Codable {
    /// The FHIR resource type name.
    public let rawValue: String

    /// Creates a resource type from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a resource type from its name.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}

extension HKFHIRResourceType {
    /// `AllergyIntolerance`.
    public static let allergyIntolerance = HKFHIRResourceType(rawValue: "AllergyIntolerance")
    /// `Condition`.
    public static let condition = HKFHIRResourceType(rawValue: "Condition")
    /// `Coverage`.
    public static let coverage = HKFHIRResourceType(rawValue: "Coverage")
    /// `DiagnosticReport`.
    public static let diagnosticReport = HKFHIRResourceType(rawValue: "DiagnosticReport")
    /// `DocumentReference`.
    public static let documentReference = HKFHIRResourceType(rawValue: "DocumentReference")
    /// `Immunization`.
    public static let immunization = HKFHIRResourceType(rawValue: "Immunization")
    /// `MedicationDispense`.
    public static let medicationDispense = HKFHIRResourceType(rawValue: "MedicationDispense")
    /// `MedicationOrder` (DSTU2).
    public static let medicationOrder = HKFHIRResourceType(rawValue: "MedicationOrder")
    /// `MedicationRequest` (R4).
    public static let medicationRequest = HKFHIRResourceType(rawValue: "MedicationRequest")
    /// `MedicationStatement`.
    public static let medicationStatement = HKFHIRResourceType(rawValue: "MedicationStatement")
    /// `Observation`.
    public static let observation = HKFHIRResourceType(rawValue: "Observation")
    /// `Procedure`.
    public static let procedure = HKFHIRResourceType(rawValue: "Procedure")

    /// Every resource type HealthKit stores.
    public static let allKnown: [HKFHIRResourceType] = [
        .allergyIntolerance, .condition, .coverage, .diagnosticReport, .documentReference, .immunization, .medicationDispense,
        .medicationOrder, .medicationRequest, .medicationStatement, .observation, .procedure,
    ]
}
