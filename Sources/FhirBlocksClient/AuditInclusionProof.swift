import FhirBlocks

/// `GET /audit/proof/inclusion`: the audit path of one leaf in a tree of `treeSize` leaves.
public struct AuditInclusionProof: Sendable, Hashable {
    /// The leaf's index.
    public var leafIndex: Int
    /// The tree size.
    public var treeSize: Int
    /// The root the server claims for that size.
    public var rootHash: MerkleHash
    /// The path.
    public var hashes: [MerkleHash]

    /// Creates a proof.
    public init(leafIndex: Int, treeSize: Int, rootHash: MerkleHash, hashes: [MerkleHash]) {
        self.leafIndex = leafIndex
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.hashes = hashes
    }

    /// Verifies that `leaf` is at ``leafIndex`` under `root` (a checkpoint's root for ``treeSize``).
    public func verify(leaf: MerkleHash, root: MerkleHash) throws(MerkleProofError) {
        try MerkleTree.verifyInclusion(index: leafIndex, treeSize: treeSize, leaf: leaf, proof: hashes, root: root)
    }
}
