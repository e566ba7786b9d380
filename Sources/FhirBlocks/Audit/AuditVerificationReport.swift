/// What ``AuditVerifier`` found.
public struct AuditVerificationReport: Sendable, Hashable {
    /// The number of entries the log reported.
    public var treeSize: Int
    /// The number of entries read and checked (their leaf hashes against the checkpoints).
    public var entriesChecked: Int
    /// How many of those the source served as leaf hashes only, without content (entries the
    /// reader may not see): their bytes could not be checked against their leaf hashes.
    public var entriesWithheld: Int
    /// The sizes of the validly signed checkpoints, ascending, without duplicates.
    public var verifiedCheckpointSizes: [Int]
    /// The largest validly signed checkpoint.
    public var latestCheckpoint: Checkpoint?
    /// The findings, first tampered position first.
    public var problems: [AuditProblem]
    /// For each required witness (by key name) that cosigned, the largest validly signed
    /// checkpoint size its valid `cosignature/v1` covers.
    public var cosignedSizes: [String: Int]

    /// Creates a report. Problems are sorted by the entry index they point at; a rewritten
    /// range that contains an entry-level finding sorts right after that finding (which names
    /// the entry precisely), and findings about checkpoints or keys come last.
    public init(treeSize: Int, entriesChecked: Int, verifiedCheckpointSizes: [Int], latestCheckpoint: Checkpoint?, problems: [AuditProblem],
                entriesWithheld: Int = 0, cosignedSizes: [String: Int] = [:]) {
        self.treeSize = treeSize
        self.cosignedSizes = cosignedSizes
        self.entriesChecked = entriesChecked
        self.entriesWithheld = entriesWithheld
        self.verifiedCheckpointSizes = verifiedCheckpointSizes
        self.latestCheckpoint = latestCheckpoint
        let entryIndexes = problems.compactMap { problem -> Int? in
            switch problem {
            case .leafHashMismatch(let index), .entryNotCanonical(let index, _): index
            default: nil
            }
        }
        func key(_ problem: AuditProblem) -> (Int, Int) {
            var (position, rank) = problem.sortKey
            if case .rewrittenRange(let from, let to) = problem, let inside = entryIndexes.filter({ (from..<to).contains($0) }).min() {
                position = inside
            }
            return (position, rank)
        }
        self.problems = problems.sorted { key($0) < key($1) }
    }

    /// Whether nothing was found.
    public var isIntact: Bool { problems.isEmpty }

    /// The most important finding: the one at the lowest entry index.
    public var firstProblem: AuditProblem? { problems.first }

    /// The entry index the first finding points at (for a rewritten range: its start, or the
    /// entry-level finding inside it).
    public var firstTamperedIndex: Int? { problems.first?.position }

    /// Entries after the latest valid checkpoint (checked for canonical bytes and leaf hashes,
    /// but not yet covered by a signature).
    public var uncheckpointedEntries: Int { max(0, entriesChecked - (latestCheckpoint?.treeSize ?? 0)) }
}
