import Testing
@testable import FhirBlocks

/// The frontier's tree head equals the reference `MerkleTree.rootHash` at every size.
@Suite struct MerkleFrontierTests {
    @Test func matchesTheReferenceAtEverySize() {
        var frontier = MerkleFrontier()
        var leaves: [MerkleHash] = []
        #expect(frontier.rootHash == .emptyTree && frontier.size == 0)
        for index in 0..<300 {
            let leaf = MerkleHash.leaf(Array("entry \(index)".utf8))
            frontier.append(leaf)
            leaves.append(leaf)
            #expect(frontier.size == leaves.count)
            #expect(frontier.rootHash == MerkleTree.rootHash(leaves: leaves), "size \(leaves.count)")
        }
    }

    @Test func rfc6962Vectors() {
        var frontier = MerkleFrontier()
        for text in ["a", "b", "c"] { frontier.append(.leaf(Array(text.utf8))) }
        #expect(frontier.rootHash.hex == "36642e73c2540ab121e3a6bf9545b0a24982cd830eb13d3cd19de3ce6c021ec1")
    }
}
