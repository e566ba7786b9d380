import Crypto

/// Checks samples' signatures against the device keys the owner trusts. Pure: no I/O.
public struct SampleSignatureVerifier: Sendable {
    /// The trusted device public keys, by identifier.
    public let trustedKeys: [DeviceKeyIdentifier: P256.Signing.PublicKey]

    /// A verifier trusting `keys`.
    public init(trustedKeys keys: some Sequence<P256.Signing.PublicKey>) {
        var trusted: [DeviceKeyIdentifier: P256.Signing.PublicKey] = [:]
        for key in keys { trusted[DeviceKeyIdentifier(key)] = key }
        trustedKeys = trusted
    }

    /// The verdict on a metadata value (nil: the sample is unsigned).
    ///
    /// Checks, in order: the value parses (``SampleSignatureVerdict/malformed(_:)``); the
    /// algorithms are SHA-256 and ECDSA with SHA-256 (``SampleSignatureVerdict/unsupportedAlgorithm(_:)``);
    /// the signer is trusted (``SampleSignatureVerdict/unknownKey(_:)``); the signature verifies
    /// (``SampleSignatureVerdict/badSignature(signer:)``); the signed content decodes and
    /// describes the sample (``SampleSignatureVerdict/contentMismatch(signer:field:)``).
    /// - Parameters:
    ///   - value: the `HKMetadataKeyDigitalSignature` text; nil when the sample has none.
    ///   - sample: the sample's content expressed in the unit the signer used (the closure's
    ///     argument); nil when the sample has no value in that unit.
    public func verdict(base64 value: String?, sample: (_ unit: String) -> SampleSignatureContent?) -> SampleSignatureVerdict {
        guard let value else { return .unsigned }
        let signature: SampleSignature
        do {
            signature = try SampleSignature(base64Encoded: value)
        } catch {
            return .malformed(error)
        }
        return verdict(signature, sample: sample)
    }

    /// The verdict on a parsed signature.
    public func verdict(_ signature: SampleSignature, sample: (_ unit: String) -> SampleSignatureContent?) -> SampleSignatureVerdict {
        guard signature.digestAlgorithm == .idSHA256 else { return .unsupportedAlgorithm(signature.digestAlgorithm.description) }
        guard signature.signatureAlgorithm == .idECDSAWithSHA256 else { return .unsupportedAlgorithm(signature.signatureAlgorithm.description) }
        guard let key = trustedKeys[signature.signer] else { return .unknownKey(signature.signer) }
        guard signature.isValid(with: key) else { return .badSignature(signer: signature.signer) }
        let signed: SampleSignatureContent
        do {
            signed = try SampleSignatureContent(derEncoded: signature.content)
        } catch {
            return .malformed(error)
        }
        guard let actual = sample(signed.unit) else { return .contentMismatch(signer: signature.signer, field: .unit) }
        if let field = signed.firstDifference(from: actual) { return .contentMismatch(signer: signature.signer, field: field) }
        return .valid(signer: signature.signer)
    }
}
