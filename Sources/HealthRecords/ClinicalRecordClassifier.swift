import FHIRCore
import OpenHealthKit

/// Files a FHIR resource under a clinical type, as HealthKit does: AllergyIntolerance → allergy,
/// Condition → condition, Immunization → immunization, Observation with a `vital-signs` category
/// → vital sign and other Observations and DiagnosticReport → lab result, the medication
/// resources → medication, Procedure → procedure, Coverage → coverage, DocumentReference →
/// clinical note. Other resources (Patient, Encounter…) are not clinical records.
public enum ClinicalRecordClassifier {
    /// The FHIR R4 resource types that are clinical records, in the order a sync searches them
    /// (MedicationOrder is DSTU2 only).
    public static let r4ResourceTypes = [
        "AllergyIntolerance", "Condition", "Immunization", "Observation", "DiagnosticReport", "MedicationStatement", "MedicationRequest",
        "MedicationDispense", "Procedure", "Coverage", "DocumentReference",
    ]

    /// The clinical type of a resource, or nil when it is not a clinical record.
    public static func clinicalType(of resource: JSONObject) -> HKClinicalTypeIdentifier? {
        guard let resourceType = resource["resourceType"]?.stringValue else { return nil }
        switch resourceType {
        case "AllergyIntolerance": return .allergyRecord
        case "Condition": return .conditionRecord
        case "Immunization": return .immunizationRecord
        case "Observation": return isVitalSign(resource) ? .vitalSignRecord : .labResultRecord
        case "DiagnosticReport": return .labResultRecord
        case "MedicationStatement", "MedicationRequest", "MedicationOrder", "MedicationDispense": return .medicationRecord
        case "Procedure": return .procedureRecord
        case "Coverage": return .coverageRecord
        case "DocumentReference": return .clinicalNoteRecord
        default: return nil
        }
    }

    /// Whether an Observation's category (an array in R4, one concept in DSTU2) says `vital-signs`.
    static func isVitalSign(_ observation: JSONObject) -> Bool {
        let concepts: [JSONValue]
        switch observation["category"] {
        case .array(let array)?: concepts = array
        case .object(let concept)?: concepts = [.object(concept)]
        default: concepts = []
        }
        return concepts.contains { concept in
            concept.objectValue?["coding"]?.arrayValue?.contains { $0.objectValue?["code"]?.stringValue == "vital-signs" } ?? false
        }
    }
}
