import Foundation

/// A clinical record: one FHIR resource from a healthcare provider, filed under a clinical type
/// (HealthKit's `HKClinicalRecord`).
///
/// Apps read clinical records; only the store's owner stores them (``HKHealthStore/saveHealthRecords(_:source:)``).
public final class HKClinicalRecord: HKSample, @unchecked Sendable {
    /// The record's clinical type.
    public var clinicalType: HKClinicalType {
        sampleType as? HKClinicalType ?? HKClinicalType(HKClinicalTypeIdentifier(rawValue: sampleType.identifier))
    }
    /// A name for display, e.g. "Hemoglobin A1c" or "Penicillin allergy".
    public let displayName: String
    /// The FHIR resource.
    public let fhirResource: HKFHIRResource?

    /// Creates a record (OpenHealthKit API, for importers: HealthKit has no public initializer).
    /// Apps cannot save clinical records; the store's owner saves them with
    /// ``HKHealthStore/saveHealthRecords(_:source:)``.
    public init(type: HKClinicalType, startDate: Date, endDate: Date, displayName: String, fhirResource: HKFHIRResource,
                metadata: [String: Any]? = nil) {
        self.displayName = displayName
        self.fhirResource = fhirResource
        super.init(sampleType: type, startDate: startDate, endDate: endDate, device: nil, metadata: metadata)
    }

    init(type: HKClinicalType, startDate: Date, endDate: Date, displayName: String, fhirResource: HKFHIRResource?, uuid: UUID,
         sourceRevision: HKSourceRevision, metadata: [String: Any]?) {
        self.displayName = displayName
        self.fhirResource = fhirResource
        super.init(sampleType: type, startDate: startDate, endDate: endDate, uuid: uuid, sourceRevision: sourceRevision,
                   device: nil, metadata: metadata)
    }

    public override var description: String {
        "\(clinicalType.identifier) \(fhirResource?.description ?? "") \(startDate)"
    }
}
