/// One integrity finding of ``AuditVerifier``. Descriptions name indexes and sizes only.
public enum AuditProblem: Sendable, Hashable, CustomStringConvertible {
    /// The entry's bytes do not hash to the leaf hash stored beside it: the entry was rewritten.
    case leafHashMismatch(index: Int)
    /// The entry's bytes are not a canonical audit entry.
    case entryNotCanonical(index: Int, reason: AuditEntryError)
    /// The source served entry `found` where entry `expected` belongs.
    case misnumberedEntry(expected: Int, found: Int)
    /// The root of the first `to` stored leaves differs from the checkpoint signed at size
    /// `to`, while the checkpoint at size `from` (or the empty prefix) matches: some entry in
    /// `from..<to` was rewritten together with its stored leaf hash.
    case rewrittenRange(from: Int, to: Int)
    /// The log serves only `present` entries, fewer than `expected` (a signed checkpoint's size,
    /// or the size the log itself reports).
    case truncated(present: Int, expected: Int)
    /// A checkpoint note does not parse (filed under `declaredSize`).
    case checkpointUnreadable(declaredSize: Int, reason: CheckpointError)
    /// A checkpoint is filed under another size than it states.
    case checkpointSizeMismatch(declaredSize: Int, statedSize: Int)
    /// No signature by the log's key verifies on the checkpoint of size `treeSize`.
    case checkpointSignatureInvalid(treeSize: Int)
    /// Two validly signed checkpoints of the same size name different roots.
    case forkedCheckpoints(treeSize: Int)
    /// The source's consistency proof between two validly signed checkpoints does not verify.
    case inconsistentCheckpoints(from: Int, to: Int)
    /// The log's key is not the pinned one.
    case unexpectedKey
    /// The log has entries but no validly signed checkpoint covers any of them.
    case noValidCheckpoint
    /// The log's latest signed checkpoint is smaller than the one this reader saw before: the log
    /// was rolled back.
    case rolledBack(previousSize: Int, latestSize: Int)
    /// The log's latest signed checkpoint does not extend the one this reader saw before (the
    /// consistency proof between them fails, the entries no longer give its root, or a checkpoint
    /// of the same size names another root): the log forked or rewrote its history.
    case forkedFromPrevious(previousSize: Int, latestSize: Int)
    /// No validly signed checkpoint carries a valid `cosignature/v1` by the required witness.
    case missingCosignature(witness: String)

    /// The first entry index the finding points at (nil for findings about checkpoints or keys).
    public var position: Int? {
        switch self {
        case .leafHashMismatch(let index), .entryNotCanonical(let index, _): index
        case .misnumberedEntry(let expected, _): expected
        case .rewrittenRange(let from, _): from
        case .truncated(let present, _): present
        case .checkpointUnreadable, .checkpointSizeMismatch, .checkpointSignatureInvalid, .forkedCheckpoints,
             .inconsistentCheckpoints, .unexpectedKey, .noValidCheckpoint, .rolledBack, .forkedFromPrevious, .missingCosignature: nil
        }
    }

    /// Orders findings: by position (entry-level before range-level at the same index), then
    /// findings without a position.
    var sortKey: (Int, Int) {
        let rank: Int
        switch self {
        case .leafHashMismatch: rank = 0
        case .entryNotCanonical: rank = 1
        case .misnumberedEntry: rank = 2
        case .rewrittenRange: rank = 3
        case .truncated: rank = 4
        default: rank = 5
        }
        return (position ?? Int.max, rank)
    }

    /// A short machine-readable code.
    public var code: String {
        switch self {
        case .leafHashMismatch: "leaf-hash-mismatch"
        case .entryNotCanonical: "entry-not-canonical"
        case .misnumberedEntry: "misnumbered-entry"
        case .rewrittenRange: "rewritten-range"
        case .truncated: "truncated"
        case .checkpointUnreadable: "checkpoint-unreadable"
        case .checkpointSizeMismatch: "checkpoint-size-mismatch"
        case .checkpointSignatureInvalid: "checkpoint-signature-invalid"
        case .forkedCheckpoints: "forked-checkpoints"
        case .inconsistentCheckpoints: "inconsistent-checkpoints"
        case .unexpectedKey: "unexpected-key"
        case .noValidCheckpoint: "no-valid-checkpoint"
        case .rolledBack: "rolled-back"
        case .forkedFromPrevious: "forked-from-previous"
        case .missingCosignature: "missing-cosignature"
        }
    }

    public var description: String {
        switch self {
        case .leafHashMismatch(let index): "entry \(index) was rewritten: its bytes do not hash to its stored leaf hash"
        case .entryNotCanonical(let index, let reason): "entry \(index) is not a canonical audit entry (\(reason))"
        case .misnumberedEntry(let expected, let found): "the log serves entry \(found) where entry \(expected) belongs"
        case .rewrittenRange(let from, let to):
            "an entry in \(from)..<\(to) was rewritten with its leaf hash: the first \(to) entries no longer match the checkpoint signed at size \(to)"
                + (from == 0 ? "" : " (the checkpoint at size \(from) still matches)")
        case .truncated(let present, let expected): "the log is truncated: it serves \(present) entries but \(expected) were recorded"
        case .checkpointUnreadable(let size, let reason): "the checkpoint filed under size \(size) is unreadable: \(reason)"
        case .checkpointSizeMismatch(let declared, let stated): "the checkpoint filed under size \(declared) states size \(stated)"
        case .checkpointSignatureInvalid(let size): "the checkpoint at size \(size) is not signed by the log's key (forged or altered)"
        case .forkedCheckpoints(let size): "two signed checkpoints of size \(size) name different roots (the log forked)"
        case .inconsistentCheckpoints(let from, let to): "the checkpoints at sizes \(from) and \(to) are not consistent: the log was not append-only"
        case .unexpectedKey: "the log's signing key is not the expected key"
        case .noValidCheckpoint: "no validly signed checkpoint covers the log's entries"
        case .rolledBack(let previous, let latest):
            "the log was rolled back: its latest signed checkpoint has size \(latest), smaller than the checkpoint of size \(previous) seen before"
        case .forkedFromPrevious(let previous, let latest):
            "the log forked: its checkpoint of size \(latest) is not consistent with the checkpoint of size \(previous) seen before"
        case .missingCosignature(let witness): "no signed checkpoint carries a valid cosignature by the witness \(witness)"
        }
    }
}
