import Crypto

/// A run of plain records as the export lists them, cut where their content says (``ImportRun``): what a re-import
/// recognises as stored whole, without looking each record up (`HKHealthStore.StoredImportRuns`).
///
/// A run ends after a record whose content digest meets ``isBoundary(_:)`` once it holds ``minimumCount`` records, at
/// ``maximumCount`` records, or where the file has anything else than a plain record. Since the cuts depend on the
/// records and not on their positions, an export taken months later, with new records among the old ones, cuts the old
/// stretches where it cut them before, and those runs are found again.
struct RecordRun {
    /// Fewer records never end on a content boundary (no run of a handful of records).
    static let minimumCount = 256
    /// The most records a run holds (held in memory while their run is looked up).
    static let maximumCount = 6_144
    /// What the fingerprint is of: a different derivation of runs or of records' sync identifiers needs a new label.
    static let label = Array("apple-health-export record run 1".utf8)

    private var hasher = SHA256()
    /// The records in the run.
    private(set) var count = 0
    /// The run's records by type, in the order first met (a run has few types: exports list records by type).
    private(set) var types: [(identifier: String, count: Int)] = []

    init() {
        hasher.update(data: Self.label)
    }

    /// Whether a record whose content digest is `digest` ends a run that holds ``minimumCount`` records: one in 2,048.
    static func isBoundary(_ digest: [UInt8]) -> Bool {
        digest.count > 1 && digest[0] == 0 && digest[1] < 0x20
    }

    /// Adds a record of `type` whose content digest is `digest`.
    /// - Returns: whether the run ends with it.
    mutating func add(_ digest: [UInt8], type: String) -> Bool {
        hasher.update(data: digest)
        count += 1
        if let last = types.indices.last, types[last].identifier == type {
            types[last].count += 1
        } else if let index = types.firstIndex(where: { $0.identifier == type }) {
            types[index].count += 1
        } else {
            types.append((type, 1))
        }
        return count >= Self.maximumCount || (count >= Self.minimumCount && Self.isBoundary(digest))
    }

    /// The run's fingerprint: SHA-256 of the label and its records' content digests in order.
    func fingerprint() -> [UInt8] {
        Array(hasher.finalize())
    }
}

/// Whether every record of a run was stored, as the import learns it: each one found stored, or put in a batch that the
/// store then wrote without refusing any of its samples.
struct RunOutcome {
    /// Whether every record of the run converted so far was put in a batch (none skipped as unreadable). A sample the
    /// store refuses is found later, by its batch (``ImportRun``'s `refusedBatches`).
    private(set) var isComplete = true
    /// The batches holding records of the run, by their position in the import's order (nil: none).
    private(set) var batches: ClosedRange<Int>?

    /// A record of the run converted: put in the batch at `batch`, or left out (nil).
    mutating func converted(into batch: Int?) {
        guard let batch else {
            isComplete = false
            return
        }
        batches = batches.map { min($0.lowerBound, batch)...max($0.upperBound, batch) } ?? batch...batch
    }
}
