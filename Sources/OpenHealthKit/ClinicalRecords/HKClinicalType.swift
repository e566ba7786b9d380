import Foundation

/// A type of clinical record (HealthKit's `HKClinicalType`): FHIR resources downloaded from a
/// provider. Apps may request to read clinical types and never to share them.
public final class HKClinicalType: HKSampleType, @unchecked Sendable {
    static let known = Set(HKClinicalTypeIdentifier.allKnown)

    /// Creates the clinical type for an identifier.
    public init(_ identifier: HKClinicalTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }

    /// The type's identifier as a clinical type identifier.
    var clinicalTypeIdentifier: HKClinicalTypeIdentifier { HKClinicalTypeIdentifier(rawValue: identifier) }
}

extension HKObjectType {
    /// Returns the clinical type for an identifier, or nil when HealthKit has no such type.
    public class func clinicalType(forIdentifier identifier: HKClinicalTypeIdentifier) -> HKClinicalType? {
        HKClinicalType.known.contains(identifier) ? HKClinicalType(identifier) : nil
    }

    /// Every clinical type (OpenHealthKit API).
    public static var allClinicalTypes: [HKClinicalType] {
        HKClinicalTypeIdentifier.allKnown.map { HKClinicalType($0) }
    }
}

/// The type of verifiable clinical records (SMART Health Cards). HealthKit exposes no such type:
/// these records are never authorized per type, only shared record by record through
/// ``HKVerifiableClinicalRecordQuery``. The store's owner reads them with
/// `HKObjectType.verifiableClinicalRecordType()` (OpenHealthKit API).
public final class HKVerifiableClinicalRecordType: HKSampleType, @unchecked Sendable {
    /// The identifier verifiable records are stored under.
    static let identifierString = "HKVerifiableClinicalRecordTypeIdentifier"

    override init(identifier: String = HKVerifiableClinicalRecordType.identifierString) {
        super.init(identifier: identifier)
    }
}

extension HKObjectType {
    /// The type of verifiable clinical records, for the store's owner (OpenHealthKit API). Apps
    /// cannot request it: a sample query by an app finds nothing of it.
    public class func verifiableClinicalRecordType() -> HKVerifiableClinicalRecordType {
        HKVerifiableClinicalRecordType()
    }
}
