/// RFC 6962 / RFC 9162 Merkle tree hashing over leaf hashes: tree heads, inclusion and
/// consistency proofs (generation per RFC 9162 §2.1.3.1/§2.1.4.1, verification per
/// §2.1.3.2/§2.1.4.2).
///
/// Generation here works on an array of leaf hashes, rehashing the subtrees a proof needs (O(n));
/// ``MerkleSubtrees`` keeps every complete subtree's hash of a growing log and answers the same
/// proofs from them in O(log² n), through the same recursion.
public enum MerkleTree {
    /// `MTH(D[n])` over leaf hashes (`MerkleHash.leaf` of each entry).
    public static func rootHash(leaves: ArraySlice<MerkleHash>) -> MerkleHash {
        switch leaves.count {
        case 0: return .emptyTree
        case 1: return leaves[leaves.startIndex]
        default:
            let k = splitPoint(leaves.count)
            let middle = leaves.startIndex + k
            return .node(rootHash(leaves: leaves[leaves.startIndex..<middle]), rootHash(leaves: leaves[middle...]))
        }
    }

    /// `MTH` of all leaves.
    public static func rootHash(leaves: [MerkleHash]) -> MerkleHash { rootHash(leaves: leaves[...]) }

    /// The largest power of two smaller than `n` (n ≥ 2).
    static func splitPoint(_ n: Int) -> Int {
        var k = 1
        while k << 1 < n { k <<= 1 }
        return k
    }

    // MARK: Inclusion

    /// The audit path `PATH(index, D[n])` for the leaf at `index` in the tree of `leaves`.
    public static func inclusionProof(index: Int, leaves: [MerkleHash]) throws(MerkleProofError) -> [MerkleHash] {
        guard index >= 0, index < leaves.count else { throw .indexOutOfRange }
        return path(index, start: 0, count: leaves.count) { rootHash(leaves: leaves[$0..<($0 + $1)]) }
    }

    /// `PATH(m, D[start..<start+count])`, with `hash(s, c)` the `MTH` of the `c` leaves from `s`
    /// (the array's leaves rehashed, or ``MerkleSubtrees``' stored subtrees).
    static func path(_ m: Int, start: Int, count: Int, hash: (Int, Int) -> MerkleHash) -> [MerkleHash] {
        guard count > 1 else { return [] }
        let k = splitPoint(count)
        if m < k {
            return path(m, start: start, count: k, hash: hash) + [hash(start + k, count - k)]
        }
        return path(m - k, start: start + k, count: count - k, hash: hash) + [hash(start, k)]
    }

    /// Verifies that `leaf` is at `index` in the tree of `treeSize` leaves with root `root`.
    public static func verifyInclusion(index: Int, treeSize: Int, leaf: MerkleHash, proof: [MerkleHash], root: MerkleHash) throws(MerkleProofError) {
        guard index >= 0, index < treeSize else { throw .indexOutOfRange }
        var fn = UInt64(index)
        var sn = UInt64(treeSize - 1)
        var r = leaf
        for p in proof {
            guard sn != 0 else { throw .wrongProofLength }
            if fn & 1 == 1 || fn == sn {
                r = .node(p, r)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                r = .node(r, p)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .wrongProofLength }
        guard r == root else { throw .rootMismatch }
    }

    // MARK: Consistency

    /// The consistency proof `PROOF(m, D[n])` between the first `oldSize` leaves and all `leaves`.
    public static func consistencyProof(oldSize: Int, leaves: [MerkleHash]) throws(MerkleProofError) -> [MerkleHash] {
        guard oldSize >= 0, oldSize <= leaves.count else { throw .indexOutOfRange }
        guard oldSize > 0, oldSize < leaves.count else { return [] }
        return subproof(oldSize, start: 0, count: leaves.count, complete: true) { rootHash(leaves: leaves[$0..<($0 + $1)]) }
    }

    /// `SUBPROOF(m, D[start..<start+count], complete)`, with `hash` as in `path(_:start:count:hash:)`.
    static func subproof(_ m: Int, start: Int, count: Int, complete: Bool, hash: (Int, Int) -> MerkleHash) -> [MerkleHash] {
        if m == count { return complete ? [] : [hash(start, count)] }
        let k = splitPoint(count)
        if m <= k {
            return subproof(m, start: start, count: k, complete: complete, hash: hash) + [hash(start + k, count - k)]
        }
        return subproof(m - k, start: start + k, count: count - k, complete: false, hash: hash) + [hash(start, k)]
    }

    /// Verifies that the tree of `oldSize` leaves with root `oldRoot` is a prefix of the tree of
    /// `newSize` leaves with root `newRoot`.
    public static func verifyConsistency(oldSize: Int, newSize: Int, oldRoot: MerkleHash, newRoot: MerkleHash, proof: [MerkleHash]) throws(MerkleProofError) {
        guard oldSize >= 0, oldSize <= newSize else { throw .indexOutOfRange }
        if oldSize == newSize {
            guard proof.isEmpty else { throw .wrongProofLength }
            guard oldRoot == newRoot else { throw .rootMismatch }
            return
        }
        if oldSize == 0 {
            guard proof.isEmpty else { throw .wrongProofLength }
            guard oldRoot == .emptyTree else { throw .rootMismatch }
            return
        }
        guard !proof.isEmpty else { throw .wrongProofLength }
        var path = proof
        if oldSize & (oldSize - 1) == 0 { path.insert(oldRoot, at: 0) }
        var fn = UInt64(oldSize - 1)
        var sn = UInt64(newSize - 1)
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = path[0]
        var sr = path[0]
        for c in path.dropFirst() {
            guard sn != 0 else { throw .wrongProofLength }
            if fn & 1 == 1 || fn == sn {
                fr = .node(c, fr)
                sr = .node(c, sr)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = .node(sr, c)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .wrongProofLength }
        guard fr == oldRoot, sr == newRoot else { throw .rootMismatch }
    }
}
