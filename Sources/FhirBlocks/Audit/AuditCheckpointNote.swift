/// A checkpoint as a source serves it: the size it claims to cover and the signed note text
/// (parsed and verified by ``AuditVerifier``).
public struct AuditCheckpointNote: Sendable, Hashable {
    /// The tree size the source files the note under.
    public var treeSize: Int
    /// The C2SP signed note.
    public var note: String

    /// Creates a note.
    public init(treeSize: Int, note: String) {
        self.treeSize = treeSize
        self.note = note
    }
}
