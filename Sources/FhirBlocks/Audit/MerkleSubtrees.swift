/// The leaf hashes of a growing log with the hash of every complete, aligned subtree kept beside
/// them, so that the tree head and the inclusion and consistency proofs of any prefix cost
/// O(log² n) lookups and hashes rather than rehashing the leaves (``MerkleTree``'s array forms).
///
/// RFC 9162 §2.1.1 splits a tree of `n` leaves at the largest power of two `k < n`; every subtree
/// that recursion meets whose size is a power of two starts at a multiple of its size, so its hash
/// is one of those kept here. Appending a leaf stores the subtrees it completes (amortised one
/// hash per leaf); the hashes take about twice the leaves' memory.
public struct MerkleSubtrees: Sendable {
    /// `levels[h][i]` is the `MTH` of the `2^h` leaves from `i · 2^h`; `levels[0]` the leaves.
    private var levels: [[MerkleHash]] = [[]]

    /// An empty log.
    public init() {}

    /// The log of `leaves`, in order.
    /// - Parameter leaves: the leaf hashes (`MerkleHash.leaf` of each entry).
    public init(leaves: some Sequence<MerkleHash>) {
        for leaf in leaves { append(leaf) }
    }

    /// The number of leaves.
    public var count: Int { levels[0].count }

    /// Every leaf hash, in order.
    public var leaves: [MerkleHash] { levels[0] }

    /// Appends `leaf` and stores the hashes of the subtrees it completes.
    /// - Parameter leaf: the next leaf hash.
    public mutating func append(_ leaf: MerkleHash) {
        levels[0].append(leaf)
        var height = 0
        while levels[height].count % 2 == 0 {
            let level = levels[height]
            let node = MerkleHash.node(level[level.count - 2], level[level.count - 1])
            if levels.count == height + 1 { levels.append([]) }
            levels[height + 1].append(node)
            height += 1
        }
    }

    /// `MTH(D[n])` of the first `treeSize` leaves.
    /// - Parameter treeSize: the number of leaves of the tree, at most ``count``.
    /// - Throws: `MerkleProofError.indexOutOfRange` for a size beyond the log or below zero.
    public func rootHash(treeSize: Int) throws(MerkleProofError) -> MerkleHash {
        guard treeSize >= 0, treeSize <= count else { throw .indexOutOfRange }
        return hash(start: 0, count: treeSize)
    }

    /// The audit path of the leaf at `index` in the tree of the first `treeSize` leaves, as
    /// `MerkleTree.inclusionProof(index:leaves:)` gives it for those leaves.
    /// - Parameters:
    ///   - index: the leaf's index, below `treeSize`.
    ///   - treeSize: the number of leaves of the tree, at most ``count``.
    /// - Throws: `MerkleProofError.indexOutOfRange` when the index or size is out of range.
    public func inclusionProof(index: Int, treeSize: Int) throws(MerkleProofError) -> [MerkleHash] {
        guard treeSize <= count, index >= 0, index < treeSize else { throw .indexOutOfRange }
        return MerkleTree.path(index, start: 0, count: treeSize) { hash(start: $0, count: $1) }
    }

    /// The consistency proof between the trees of the first `oldSize` and `newSize` leaves, as
    /// `MerkleTree.consistencyProof(oldSize:leaves:)` gives it for the first `newSize` leaves.
    /// - Parameters:
    ///   - oldSize: the earlier tree's size, at most `newSize`.
    ///   - newSize: the later tree's size, at most ``count``.
    /// - Throws: `MerkleProofError.indexOutOfRange` when the sizes are out of range.
    public func consistencyProof(oldSize: Int, newSize: Int) throws(MerkleProofError) -> [MerkleHash] {
        guard oldSize >= 0, oldSize <= newSize, newSize <= count else { throw .indexOutOfRange }
        guard oldSize > 0, oldSize < newSize else { return [] }
        return MerkleTree.subproof(oldSize, start: 0, count: newSize, complete: true) { hash(start: $0, count: $1) }
    }

    /// The hashes of a C2SP tile (`TilePath`) of the log as it is, or nil when the log does not
    /// hold that many hashes there yet: tile `N` of level `L` is the stored subtree hashes of
    /// height `8 · L` from index `N · 256`, `W` of them for a partial tile and 256 for a full one.
    /// A tile's hashes never change once the log holds them, whatever it appends later.
    /// - Parameter tile: the tile.
    public func hashes(of tile: TilePath) -> [MerkleHash]? {
        let height = tile.level * TilePath.height
        guard height < levels.count else { return nil }
        let (start, overflow) = tile.index.multipliedReportingOverflow(by: TilePath.fullWidth)
        let level = levels[height]
        guard !overflow, start < level.count, level.count - start >= tile.width else { return nil }
        return Array(level[start..<(start + tile.width)])
    }

    /// `MTH` of the `count` leaves from `start`: a stored hash when they form a complete, aligned
    /// subtree, otherwise the RFC's split into a stored left part and a smaller right part.
    func hash(start: Int, count: Int) -> MerkleHash {
        if count == 0 { return .emptyTree }
        if count & (count - 1) == 0, start % count == 0 {
            let height = count.trailingZeroBitCount
            return levels[height][start >> height]
        }
        let k = MerkleTree.splitPoint(count)
        return .node(hash(start: start, count: k), hash(start: start + k, count: count - k))
    }
}
