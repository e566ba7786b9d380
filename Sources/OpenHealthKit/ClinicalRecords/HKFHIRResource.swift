import Foundation

/// A FHIR resource as a clinical record holds it (HealthKit's `HKFHIRResource`).
public final class HKFHIRResource: NSObject, @unchecked Sendable {
    /// The resource's type.
    public let resourceType: HKFHIRResourceType
    /// The resource's `id`.
    public let identifier: String
    /// The resource's JSON exactly as it was received: member order, decimals and extensions kept.
    public let data: Data
    /// The resource's URL on the server it came from (its FHIR base + `/Type/id`), when known.
    public let sourceURL: URL?
    /// The FHIR version the resource is written in.
    public let fhirVersion: HKFHIRVersion

    /// Creates a resource (OpenHealthKit API, for importers; HealthKit has no public initializer).
    public init(resourceType: HKFHIRResourceType, identifier: String, data: Data, sourceURL: URL?, fhirVersion: HKFHIRVersion) {
        self.resourceType = resourceType
        self.identifier = identifier
        self.data = data
        self.sourceURL = sourceURL
        self.fhirVersion = fhirVersion
        super.init()
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKFHIRResource else { return false }
        return other.resourceType == resourceType && other.identifier == identifier && other.data == data
            && other.sourceURL == sourceURL && other.fhirVersion == fhirVersion
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(resourceType)
        hasher.combine(identifier)
        hasher.combine(data)
        return hasher.finalize()
    }

    public override var description: String { "\(resourceType.rawValue)/\(identifier) (FHIR \(fhirVersion.stringRepresentation))" }
}
