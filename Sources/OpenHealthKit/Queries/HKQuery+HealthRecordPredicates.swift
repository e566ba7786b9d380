import Foundation

extension HKQuery {
    /// Matches clinical records whose FHIR resource has this type.
    public class func predicateForClinicalRecords(withFHIRResourceType resourceType: HKFHIRResourceType) -> NSPredicate {
        HKQueryPredicate(.fhirResource(type: resourceType.rawValue, identifier: nil))
    }

    /// Matches the clinical record of one FHIR resource: its source (the provider), resource
    /// type and id.
    public class func predicateForClinicalRecords(from source: HKSource, fhirResourceType resourceType: HKFHIRResourceType,
                                                  identifier: String) -> NSPredicate {
        HKQueryPredicate(.and([.sources([source.bundleIdentifier]), .fhirResource(type: resourceType.rawValue, identifier: identifier)]))
    }

    /// Matches verifiable clinical records whose relevant date lies within `dateInterval`
    /// (both ends included).
    public class func predicateForVerifiableClinicalRecords(withRelevantDateWithin dateInterval: DateInterval) -> NSPredicate {
        HKQueryPredicate(.dates(start: dateInterval.start, end: dateInterval.end, options: [.strictStartDate, .strictEndDate]))
    }
}
