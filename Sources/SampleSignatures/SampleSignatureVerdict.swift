/// What checking one sample's `HKMetadataKeyDigitalSignature` found. Every outcome is a value:
/// nothing a sample carries makes verification crash or throw.
public enum SampleSignatureVerdict: Sendable, Hashable {
    /// The sample carries no signature.
    case unsigned
    /// A trusted device key signed exactly this sample's content.
    case valid(signer: DeviceKeyIdentifier)
    /// Signed by a key that is not among the trusted device keys.
    case unknownKey(DeviceKeyIdentifier)
    /// The signature does not verify with the trusted key it names (the signed bytes or the
    /// signature were altered, or another key signed).
    case badSignature(signer: DeviceKeyIdentifier)
    /// The signature is genuine but covers other content: the sample differs in `field`
    /// (its value or dates were changed after signing, or the signature was copied from another sample).
    case contentMismatch(signer: DeviceKeyIdentifier, field: SampleSignatureContent.Field)
    /// A digest or signature algorithm other than SHA-256 and ECDSA P-256 with SHA-256 (its dotted OID).
    case unsupportedAlgorithm(String)
    /// The value is not a readable signature in this profile.
    case malformed(SampleSignatureError)

    /// Whether the verdict is ``valid(signer:)``.
    public var isValid: Bool {
        if case .valid = self { return true }
        return false
    }

    /// A short label for reports: valid, unsigned, unknown-key, bad-signature, content-mismatch,
    /// unsupported-algorithm or malformed.
    public var label: String {
        switch self {
        case .unsigned: "unsigned"
        case .valid: "valid"
        case .unknownKey: "unknown-key"
        case .badSignature: "bad-signature"
        case .contentMismatch: "content-mismatch"
        case .unsupportedAlgorithm: "unsupported-algorithm"
        case .malformed: "malformed"
        }
    }
}
