import Testing
@testable import FhirBlocks
import TestSupport

/// RFC 6962 / 9162 hashing, inclusion and consistency proofs.
@Suite struct MerkleTreeTests {
    static func leaves(_ n: Int) -> [MerkleHash] { (0..<n).map { MerkleHash.leaf(Array("entry \($0)".utf8)) } }

    @Test func vectorsOfTheDoc() {
        #expect(MerkleHash.emptyTree.hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(MerkleTree.rootHash(leaves: []).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(MerkleHash.leaf([]).hex == "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d")
        let a = MerkleHash.leaf(Array("a".utf8)), b = MerkleHash.leaf(Array("b".utf8)), c = MerkleHash.leaf(Array("c".utf8))
        #expect(a.hex == "022a6979e6dab7aa5ae4c3e5e45f7e977112a7e63593820dbec1ec738a24f93c")
        #expect(b.hex == "57eb35615d47f34ec714cacdf5fd74608a5e8e102724e80b24b287c0c27b6a31")
        #expect(MerkleTree.rootHash(leaves: [a, b]).hex == "b137985ff484fb600db93107c77b0365c80d78f5b429ded0fd97361d077999eb")
        #expect(MerkleTree.rootHash(leaves: [a, b, c]).hex == "36642e73c2540ab121e3a6bf9545b0a24982cd830eb13d3cd19de3ce6c021ec1")
        #expect(MerkleTree.rootHash(leaves: [a, b, c]) == .node(.node(a, b), c))
        #expect(MerkleHash(hex: a.hex) == a && MerkleHash(hex: "00") == nil && MerkleHash(bytes: [1]) == nil)
    }

    @Test func inclusionProofsForEveryIndexUpTo64() throws {
        for n in 1...64 {
            let leaves = Self.leaves(n)
            let root = MerkleTree.rootHash(leaves: leaves)
            for index in 0..<n {
                let proof = try MerkleTree.inclusionProof(index: index, leaves: leaves)
                try MerkleTree.verifyInclusion(index: index, treeSize: n, leaf: leaves[index], proof: proof, root: root)
                // Wrong index, wrong leaf, wrong size, a flipped byte, a dropped or extra hash: all rejected.
                if n > 1 {
                    let wrong = (index + 1) % n
                    #expect(throws: MerkleProofError.self) { try MerkleTree.verifyInclusion(index: wrong, treeSize: n, leaf: leaves[index], proof: proof,
                                                                                            root: root) }
                    #expect(throws: MerkleProofError.self) { try MerkleTree.verifyInclusion(index: index, treeSize: n, leaf: leaves[wrong], proof: proof,
                                                                                            root: root) }
                    var flipped = proof
                    let position = (index * 7) % proof.count
                    var bytes = flipped[position].bytes
                    bytes[(index * 13) % 32] ^= 0x01
                    flipped[position] = MerkleHash(bytes: bytes) ?? flipped[position]
                    #expect(throws: MerkleProofError.self) { try MerkleTree.verifyInclusion(index: index, treeSize: n, leaf: leaves[index], proof: flipped,
                                                                                            root: root) }
                    #expect(throws: MerkleProofError.self) { try MerkleTree.verifyInclusion(index: index, treeSize: n, leaf: leaves[index],
                                                                                            proof: Array(proof.dropLast()), root: root) }
                }
                #expect(throws: MerkleProofError.self) { try MerkleTree.verifyInclusion(index: index, treeSize: n, leaf: leaves[index], proof: proof + [root],
                                                                                        root: root) }
                // The proof for size n does not prove inclusion in the tree of n + 1 leaves.
                let bigger = MerkleTree.rootHash(leaves: leaves + [MerkleHash.leaf(Array("next".utf8))])
                #expect(throws: MerkleProofError.self) { try MerkleTree.verifyInclusion(index: index, treeSize: n + 1, leaf: leaves[index], proof: proof,
                                                                                        root: bigger) }
            }
            #expect(throws: MerkleProofError.indexOutOfRange) { try MerkleTree.inclusionProof(index: n, leaves: leaves) }
            #expect(throws: MerkleProofError.indexOutOfRange) { try MerkleTree.verifyInclusion(index: n, treeSize: n, leaf: leaves[0], proof: [], root: root) }
        }
    }

    @Test func consistencyProofsForEveryPairUpTo64() throws {
        let all = Self.leaves(64)
        let roots = (0...64).map { MerkleTree.rootHash(leaves: all[0..<$0]) }
        for n in 0...64 {
            let leaves = Array(all[0..<n])
            for m in 0...n {
                let proof = try MerkleTree.consistencyProof(oldSize: m, leaves: leaves)
                try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: roots[m], newRoot: roots[n], proof: proof)
                guard m > 0, m < n else { continue }
                // A flipped byte anywhere, a wrong old root, a wrong size: rejected.
                for position in proof.indices {
                    var flipped = proof
                    var bytes = flipped[position].bytes
                    bytes[(m + n + position) % 32] ^= 0x80
                    flipped[position] = MerkleHash(bytes: bytes) ?? flipped[position]
                    #expect(throws: MerkleProofError.self) { try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: roots[m], newRoot: roots[n],
                                                                                              proof: flipped) }
                }
                #expect(throws: MerkleProofError.self) { try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: roots[m - 1], newRoot: roots[n],
                                                                                          proof: proof) }
                #expect(throws: MerkleProofError.self) { try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: roots[m], newRoot: roots[n - 1],
                                                                                          proof: proof) }
                if m + 1 < n {
                    #expect(throws: MerkleProofError.self) { try MerkleTree.verifyConsistency(oldSize: m + 1, newSize: n, oldRoot: roots[m], newRoot: roots[n],
                                                                                              proof: proof) }
                }
                #expect(throws: MerkleProofError.self) { try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: roots[m], newRoot: roots[n],
                                                                                          proof: []) }
            }
        }
        #expect(throws: MerkleProofError.indexOutOfRange) { try MerkleTree.consistencyProof(oldSize: 3, leaves: Array(all[0..<2])) }
        #expect(throws: MerkleProofError.rootMismatch) { try MerkleTree.verifyConsistency(oldSize: 2, newSize: 2, oldRoot: roots[2], newRoot: roots[1],
                                                                                          proof: []) }
        #expect(throws: MerkleProofError.rootMismatch) { try MerkleTree.verifyConsistency(oldSize: 0, newSize: 2, oldRoot: roots[1], newRoot: roots[2],
                                                                                          proof: []) }
    }

    @Test func rewrittenHistoryFailsConsistency() throws {
        var random = SplitMix64(seed: 77)
        for _ in 0..<200 {
            let n = Int.random(in: 2...200, using: &random)
            let m = Int.random(in: 1..<n, using: &random)
            var leaves = Self.leaves(n)
            let proof = try MerkleTree.consistencyProof(oldSize: m, leaves: leaves)
            let oldRoot = MerkleTree.rootHash(leaves: leaves[0..<m])
            try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: oldRoot, newRoot: MerkleTree.rootHash(leaves: leaves), proof: proof)
            // Tamper with one old entry: the new tree is no longer consistent with the old root.
            let victim = Int.random(in: 0..<m, using: &random)
            leaves[victim] = MerkleHash.leaf(Array("tampered".utf8))
            let forgedProof = try MerkleTree.consistencyProof(oldSize: m, leaves: leaves)
            #expect(throws: MerkleProofError.self) {
                try MerkleTree.verifyConsistency(oldSize: m, newSize: n, oldRoot: oldRoot, newRoot: MerkleTree.rootHash(leaves: leaves), proof: forgedProof)
            }
            // Inclusion of a random leaf in a bigger tree.
            let index = Int.random(in: 0..<n, using: &random)
            try MerkleTree.verifyInclusion(index: index, treeSize: n, leaf: leaves[index], proof: try MerkleTree.inclusionProof(index: index, leaves: leaves),
                                           root: MerkleTree.rootHash(leaves: leaves))
        }
    }

    /// The stored subtrees answer every tree head and proof of every prefix exactly as the
    /// array forms do (which rehash the leaves), while the log grows one leaf at a time.
    @Test func storedSubtreesGiveTheArrayFormsProofsForEveryPrefix() throws {
        let all = Self.leaves(40)
        var tree = MerkleSubtrees()
        #expect(try tree.rootHash(treeSize: 0) == .emptyTree)
        for n in 1...all.count {
            tree.append(all[n - 1])
            #expect(tree.count == n && tree.leaves == Array(all[..<n]))
            for size in 0...n {
                let prefix = Array(all[..<size])
                #expect(try tree.rootHash(treeSize: size) == MerkleTree.rootHash(leaves: prefix))
                for index in 0..<size {
                    #expect(try tree.inclusionProof(index: index, treeSize: size) == MerkleTree.inclusionProof(index: index, leaves: prefix))
                }
                for old in 0...size {
                    #expect(try tree.consistencyProof(oldSize: old, newSize: size) == MerkleTree.consistencyProof(oldSize: old, leaves: prefix))
                }
            }
            #expect(throws: MerkleProofError.self) { try tree.rootHash(treeSize: n + 1) }
            #expect(throws: MerkleProofError.self) { try tree.inclusionProof(index: n, treeSize: n) }
            #expect(throws: MerkleProofError.self) { try tree.inclusionProof(index: 0, treeSize: n + 1) }
            #expect(throws: MerkleProofError.self) { try tree.consistencyProof(oldSize: n, newSize: n + 1) }
            #expect(throws: MerkleProofError.self) { try tree.consistencyProof(oldSize: 1, newSize: 0) }
        }
        #expect(MerkleSubtrees(leaves: all).leaves == all)
        #expect(try MerkleSubtrees(leaves: all).rootHash(treeSize: 40) == MerkleTree.rootHash(leaves: all))
    }
}
