/// The right edge of an RFC 6962 Merkle tree: the roots of its perfect subtrees, largest
/// first (one per set bit of the size). Appending a leaf is O(1) amortised and the tree head
/// O(log n), so a log can sign checkpoints without rehashing every leaf (``MerkleTree`` stays
/// the reference for proofs).
public struct MerkleFrontier: Sendable, Hashable {
    /// The number of leaves.
    public private(set) var size: Int = 0
    private var roots: [MerkleHash] = []

    /// An empty tree.
    public init() {}

    /// Appends a leaf hash (``MerkleHash/leaf(_:)`` of an entry).
    public mutating func append(_ leaf: MerkleHash) {
        var node = leaf
        var remaining = size
        // Each trailing 1 bit of the old size is a perfect subtree of the same height as
        // `node`: merge it in (left is older).
        while remaining & 1 == 1, let left = roots.popLast() {
            node = .node(left, node)
            remaining >>= 1
        }
        roots.append(node)
        size += 1
    }

    /// `MTH` of the leaves so far: the subtrees folded from the smallest, each larger one on
    /// the left (RFC 6962 §2.1 splits at the largest power of two below the size).
    public var rootHash: MerkleHash {
        guard var accumulated = roots.last else { return .emptyTree }
        for root in roots.dropLast().reversed() {
            accumulated = .node(root, accumulated)
        }
        return accumulated
    }
}
