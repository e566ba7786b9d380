import Foundation

/// The identifier of electrocardiogram samples, as HealthKit stores it.
let HKElectrocardiogramTypeIdentifierString = "HKDataTypeIdentifierElectrocardiogram"
/// The identifier of audiogram samples, as HealthKit stores it.
let HKAudiogramTypeIdentifierString = "HKDataTypeIdentifierAudiogram"

/// A type identifier for vision prescription samples (HealthKit's `HKVisionPrescriptionTypeIdentifier`).
public let HKVisionPrescriptionTypeIdentifier = "HKVisionPrescriptionTypeIdentifier"

/// The electrocardiogram type (HealthKit's `HKElectrocardiogramType`). Electrocardiograms are
/// read-only for apps: they may ask to read them, never to share them.
public final class HKElectrocardiogramType: HKSampleType, @unchecked Sendable {
    init() {
        super.init(identifier: HKElectrocardiogramTypeIdentifierString)
    }
}

/// The audiogram type (HealthKit's `HKAudiogramSampleType`).
public final class HKAudiogramSampleType: HKSampleType, @unchecked Sendable {
    init() {
        super.init(identifier: HKAudiogramTypeIdentifierString)
    }
}

/// The vision prescription type (HealthKit's `HKPrescriptionType`). Apps read prescriptions
/// one by one, as the person chooses them (``HKHealthStore/requestPerObjectReadAuthorization(for:predicate:)``).
public final class HKPrescriptionType: HKSampleType, @unchecked Sendable {
    init() {
        super.init(identifier: HKVisionPrescriptionTypeIdentifier)
    }
}

extension HKObjectType {
    /// Returns the shared electrocardiogram type (HealthKit's `electrocardiogramType()`).
    public class func electrocardiogramType() -> HKElectrocardiogramType { HKElectrocardiogramType() }

    /// Returns the audiogram sample type (HealthKit's `audiogramSampleType()`).
    public class func audiogramSampleType() -> HKAudiogramSampleType { HKAudiogramSampleType() }

    /// Returns the shared vision prescription type (HealthKit's `visionPrescriptionType()`).
    public class func visionPrescriptionType() -> HKPrescriptionType { HKPrescriptionType() }

    /// Whether the type requires per-object authorization (HealthKit's
    /// `requiresPerObjectAuthorization()`): true for vision prescriptions, which apps read only
    /// as the person chooses them, object by object.
    public func requiresPerObjectAuthorization() -> Bool {
        identifier == HKVisionPrescriptionTypeIdentifier || identifier == HKDataTypeIdentifierUserAnnotatedMedicationConcept
    }

    /// The clinical measurement types by identifier (electrocardiograms, audiograms, vision
    /// prescriptions), for ``type(forIdentifierString:)``-style lookups.
    static func clinicalMeasurementType(forIdentifierString identifier: String) -> HKSampleType? {
        switch identifier {
        case HKElectrocardiogramTypeIdentifierString: return HKElectrocardiogramType()
        case HKAudiogramTypeIdentifierString: return HKAudiogramSampleType()
        case HKVisionPrescriptionTypeIdentifier: return HKPrescriptionType()
        default: return nil
        }
    }

    /// The clinical measurement types, in the order the type lists show them.
    static var clinicalMeasurementTypes: [HKSampleType] {
        [HKElectrocardiogramType(), HKAudiogramSampleType(), HKPrescriptionType()]
    }
}

extension HKObjectType {
    /// The clinical measurement type a person names (lowercased): `electrocardiogram` (or `ecg`),
    /// `audiogram`, `visionPrescription`, or the type's identifier.
    static func clinicalMeasurementType(named key: String) -> HKSampleType? {
        switch key {
        case "electrocardiogram", "electrocardiograms", "ecg", HKElectrocardiogramTypeIdentifierString.lowercased():
            return HKElectrocardiogramType()
        case "audiogram", "audiograms", HKAudiogramTypeIdentifierString.lowercased():
            return HKAudiogramSampleType()
        case "visionprescription", "visionprescriptions", HKVisionPrescriptionTypeIdentifier.lowercased():
            return HKPrescriptionType()
        default:
            return nil
        }
    }
}
