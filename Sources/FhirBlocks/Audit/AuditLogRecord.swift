/// One stored entry of an audit log as a source serves it: its index, the leaf hash stored
/// beside it, and its canonical bytes when the source releases them (a server releases an
/// entry's content only to the patient it concerns, the agent that acted and auditors).
public struct AuditLogRecord: Sendable, Hashable {
    /// The 0-based position in the log.
    public var index: Int
    /// The leaf hash the log stores for the entry.
    public var leafHash: MerkleHash
    /// The entry's canonical bytes; nil when the source withholds them.
    public var entry: [UInt8]?

    /// Creates a record.
    public init(index: Int, leafHash: MerkleHash, entry: [UInt8]?) {
        self.index = index
        self.leafHash = leafHash
        self.entry = entry
    }

    /// A record for an entry, with its true leaf hash.
    public init(index: Int, entry: AuditEntry) {
        self.init(index: index, leafHash: entry.leafHash, entry: entry.canonicalBytes)
    }
}
