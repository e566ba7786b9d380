/// Why checkpoint text is refused. Line numbers are 1-based.
public enum CheckpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Longer than the limit.
    case tooLong
    /// Not UTF-8, no blank line between body and signatures, or not ending in a newline.
    case malformedNote
    /// A body line is wrong (origin empty, size not a decimal, root not 32 bytes of base64,
    /// timestamp missing or unreadable).
    case malformedBody(line: Int)
    /// A signature line is not `— <name> <base64>` with at least 5 bytes.
    case malformedSignature(line: Int)
    /// No signature line.
    case unsigned
    /// No signature by the expected key verifies.
    case noValidSignature
    /// A key name that is empty or contains whitespace or `+`.
    case invalidKeyName
    /// A verifier key that is not `<name>+<key ID>+<base64(type ‖ 32-byte Ed25519 key)>` with its
    /// own key ID, or a key of a type other than Ed25519 (0x01) or Ed25519 cosignature (0x04).
    case invalidVerifierKey
    /// No `cosignature/v1` line by the expected witness key verifies.
    case noValidCosignature

    public var description: String {
        switch self {
        case .tooLong: "checkpoint is too long"
        case .malformedNote: "not a signed note"
        case .malformedBody(let line): "checkpoint body line \(line) is malformed"
        case .malformedSignature(let line): "signature line \(line) is malformed"
        case .unsigned: "checkpoint has no signature"
        case .noValidSignature: "no valid signature by the expected key"
        case .invalidKeyName: "invalid key name"
        case .invalidVerifierKey: "not a signed-note verifier key for Ed25519"
        case .noValidCosignature: "no valid cosignature by the expected witness key"
        }
    }
}
