/// Why an inclusion or consistency proof is refused (RFC 9162 §2.1.3.2, §2.1.4.2).
public enum MerkleProofError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The index is not below the tree size, or the sizes are not `0 ≤ m ≤ n`.
    case indexOutOfRange
    /// The proof has the wrong number of hashes for the sizes.
    case wrongProofLength
    /// The recomputed root differs from the expected one.
    case rootMismatch

    public var description: String {
        switch self {
        case .indexOutOfRange: "index or tree size out of range"
        case .wrongProofLength: "proof has the wrong length"
        case .rootMismatch: "recomputed root does not match"
        }
    }
}
