import Foundation
import GRDB

/// The sync hashes a bulk write's store may hold, as a Bloom filter: a save looks a sync hash up in the
/// `sample_sync` index (a random place in a large index, about 2 µs a sample on a two-year import) only when
/// the filter says the store may hold it. A hash the filter has never seen is in no row.
///
/// That holds while every row with a sync hash is known to the filter:
/// - it is built on the writer connection from every sync hash stored when the bulk write begins, read in the same
///   transaction as SQLite's `data_version`;
/// - each save through this connection adds the hashes of the rows it inserts (``HealthDatabase/insert(_:revision:deletingVerifiableRecords:alsoWrite:)``
///   is the only path that writes `sample` rows); a save rolled back leaves its hashes in, which only costs a look-up;
/// - another connection's commit changes `data_version`: the save that sees it drops the filter for the rest of the
///   bulk write, and looks every hash up as before.
///
/// A store with more than ``maximumStoredHashes`` hashes gets no filter: reading them all when the bulk write begins
/// (about 0.4 s for 1.76 M) would cost more than the look-ups it saves, since an import into such a store (a newer
/// export of the same person) mostly finds its records stored, and a re-import finds all of them before converting
/// anything. A first import, the case it is for, starts from none. The filter takes ``byteCount`` bytes, whatever
/// the import's size; past about a million and a half hashes more of its answers are "may hold" (more look-ups),
/// never a wrong "does not hold".
///
/// Written here because no package this project may use has a Bloom filter; the hashes are already keyed
/// HMAC-SHA256 output, so the filter's bit positions are taken from their bytes (double hashing).
struct SyncHashFilter: Sendable {
    /// 2^25 bits: 4 MiB.
    static let bitCount = 1 << 25
    static var byteCount: Int { bitCount / 8 }
    /// Bits set per hash.
    static let probes = 3
    /// The most stored hashes a filter is built from.
    static let maximumStoredHashes = 100_000

    private var words: [UInt64]
    /// SQLite's `data_version` on the writer connection when the filter last matched the store.
    let dataVersion: Int64
    /// How many hashes were added (tests).
    private(set) var count = 0

    init(dataVersion: Int64) {
        self.dataVersion = dataVersion
        words = [UInt64](repeating: 0, count: Self.bitCount / 64)
    }

    /// Adds a hash stored in a row.
    mutating func insert(_ hash: Data) {
        let (first, step) = Self.positions(hash)
        for probe in 0..<UInt64(Self.probes) {
            let bit = Int(truncatingIfNeeded: (first &+ probe &* step) & UInt64(Self.bitCount - 1))
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
        count += 1
    }

    /// False when no row holds `hash`; true when one may.
    func mayContain(_ hash: Data) -> Bool {
        let (first, step) = Self.positions(hash)
        for probe in 0..<UInt64(Self.probes) {
            let bit = Int(truncatingIfNeeded: (first &+ probe &* step) & UInt64(Self.bitCount - 1))
            if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// The first bit position and the step between probes: the hash's first two 8-byte words when it has 16 bytes
    /// or more (keyed hashes are uniformly distributed), else two FNV-1a folds of its bytes. The step is odd, so the
    /// probes of a hash differ.
    private static func positions(_ hash: Data) -> (UInt64, UInt64) {
        hash.withUnsafeBytes { bytes -> (UInt64, UInt64) in
            if bytes.count >= 16 {
                return (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self) | 1)
            }
            var first: UInt64 = 0xcbf2_9ce4_8422_2325
            var second: UInt64 = 0x8422_2325_cbf2_9ce4
            for byte in bytes {
                first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                second ^= second >> 29
            }
            return (first ^ (first >> 31), second | 1)
        }
    }

    /// SQLite's `data_version` on `db`: it changes when another connection commits.
    static func dataVersion(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
    }

    /// A filter of every sync hash stored, read in one transaction with `data_version`; nil when the store holds
    /// more than ``maximumStoredHashes``.
    static func build(_ db: Database) throws -> SyncHashFilter? {
        var filter: SyncHashFilter?
        try db.inTransaction(.deferred) {
            var built = SyncHashFilter(dataVersion: try dataVersion(db))
            // The partial index `sample_sync` holds exactly these, in order: read without touching the table.
            let hashes = try Data.fetchCursor(db, sql: "SELECT sync_id FROM sample WHERE sync_id IS NOT NULL LIMIT ?",
                                              arguments: [maximumStoredHashes + 1])
            while let hash = try hashes.next() {
                guard built.count < maximumStoredHashes else { return .commit }
                built.insert(hash)
            }
            filter = built
            return .commit
        }
        return filter
    }
}

extension HealthDatabase {
    /// The bulk write's sync-hash filter, taken for one save on the writer, or nil (none, or another connection
    /// committed since it was last checked: then it is dropped). Put it back with ``returnSyncHashFilter(_:)``.
    func takeSyncHashFilter(_ db: Database) throws -> SyncHashFilter? {
        guard let filter = syncHashFilter.withLock({ filter in defer { filter = nil }; return filter }) else { return nil }
        return try SyncHashFilter.dataVersion(db) == filter.dataVersion ? filter : nil
    }

    /// Gives back the filter a save took, with the hashes it stored, while the bulk write lasts.
    func returnSyncHashFilter(_ filter: SyncHashFilter?) {
        guard let filter else { return }
        syncHashFilter.withLock { $0 = filter }
    }
}
