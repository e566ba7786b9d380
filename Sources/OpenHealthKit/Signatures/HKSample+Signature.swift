import Crypto
import Foundation
import SampleSignatures

extension HKSample {
    /// What a device signs for this sample (see `SampleSignatureContent` in SampleSignatures):
    /// a quantity sample's value in `unit` (default: the unit it was created with), a category
    /// sample's raw value with an empty unit; the sync identifier from the metadata. Nil for
    /// other samples, and when the quantity has no value in `unit`.
    public func signatureContent(unit: String? = nil) -> SampleSignatureContent? {
        let syncIdentifier = metadata?[HKMetadataKeySyncIdentifier] as? String
        switch self {
        case let sample as HKQuantitySample:
            let target: HKUnit
            if let unit {
                guard let parsed = try? HKUnit.parse(unit) else { return nil }
                target = parsed
            } else {
                target = sample.quantity.storedUnit
            }
            guard let value = try? sample.quantity.value(in: target) else { return nil }
            return SampleSignatureContent(typeIdentifier: sampleType.identifier, value: value, unit: unit ?? target.unitString,
                                          startDate: startDate, endDate: endDate, syncIdentifier: syncIdentifier)
        case let sample as HKCategorySample:
            guard unit == nil || unit == "" else { return nil }
            return SampleSignatureContent(typeIdentifier: sampleType.identifier, value: Double(sample.value), unit: "",
                                          startDate: startDate, endDate: endDate, syncIdentifier: syncIdentifier)
        default:
            return nil
        }
    }

    /// The verdict on this sample's `HKMetadataKeyDigitalSignature` with `verifier`'s trusted keys.
    /// A metadata value that is not text is malformed.
    public func signatureVerdict(_ verifier: SampleSignatureVerifier) -> SampleSignatureVerdict {
        guard let value = metadata?[HKMetadataKeyDigitalSignature] else { return .unsigned }
        guard let text = value as? String else {
            return .malformed(SampleSignatureError(.notBase64, "the signature metadata is not text"))
        }
        return verifier.verdict(base64: text) { unit in signatureContent(unit: unit) }
    }

    /// The metadata with `key`'s signature over this sample's content added.
    func signedMetadata(with key: P256.Signing.PrivateKey) throws -> [String: Any] {
        guard let content = signatureContent() else {
            throw HKError(.errorInvalidArgument, "only quantity and category samples can be signed")
        }
        let signature: SampleSignature
        do {
            signature = try SampleSignature.sign(content, with: key)
        } catch {
            throw HKError(.errorInvalidArgument, "the sample cannot be signed: \(error.message)")
        }
        var metadata = self.metadata ?? [:]
        metadata[HKMetadataKeyDigitalSignature] = signature.base64Encoded
        return metadata
    }
}

extension HKQuantitySample {
    /// A copy of the sample (new UUID) whose metadata carries `key`'s signature over its type,
    /// value, unit, dates and sync identifier (OpenHealthKit API).
    /// - Throws: `errorInvalidArgument` when a date lies outside the years 1–9999.
    public func signed(with key: P256.Signing.PrivateKey) throws -> HKQuantitySample {
        HKQuantitySample(type: quantityType, quantity: quantity, start: startDate, end: endDate, device: device,
                         metadata: try signedMetadata(with: key))
    }
}

extension HKCategorySample {
    /// A copy of the sample (new UUID) whose metadata carries `key`'s signature over its type,
    /// value, dates and sync identifier (OpenHealthKit API).
    /// - Throws: `errorInvalidArgument` when a date lies outside the years 1–9999.
    public func signed(with key: P256.Signing.PrivateKey) throws -> HKCategorySample {
        HKCategorySample(type: categoryType, value: value, start: startDate, end: endDate, device: device,
                         metadata: try signedMetadata(with: key))
    }
}
