import FhirBlocks

/// One stored entry of the audit log.
public struct AuditRecord: Sendable, Hashable {
    /// The log index (from 0).
    public var index: Int
    /// The leaf hash stored with it.
    public var leafHash: MerkleHash
    /// The entry's canonical bytes (`AuditEntry.canonicalBytes`).
    public var canonicalBytes: [UInt8]

    /// Creates a record.
    public init(index: Int, leafHash: MerkleHash, canonicalBytes: [UInt8]) {
        self.index = index
        self.leafHash = leafHash
        self.canonicalBytes = canonicalBytes
    }

    /// Whether the stored leaf hash is the hash of the stored bytes.
    public var isSelfConsistent: Bool { MerkleHash.leaf(canonicalBytes) == leafHash }
}

/// A signed checkpoint as stored: the C2SP signed note text and the tree size it covers.
public struct StoredCheckpoint: Sendable, Hashable {
    /// The tree size.
    public var treeSize: Int
    /// The signed note.
    public var note: String

    /// Creates a record.
    public init(treeSize: Int, note: String) {
        self.treeSize = treeSize
        self.note = note
    }
}
