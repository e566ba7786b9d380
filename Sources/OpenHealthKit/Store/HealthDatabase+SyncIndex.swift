import Foundation
import GRDB
import Synchronization

/// How the store finds samples by their sync identifier and version (`HKMetadataKeySyncIdentifier`,
/// `HKMetadataKeySyncVersion`) without a `metadata_index` row for either.
///
/// A sample whose metadata holds a sync identifier already keeps it in its row: `sync_id` is the
/// keyed hash of the identifier scoped to the sample's source (`RecordCipher.indexHash("sync",
/// bundle, identifier)`) and `sync_version` is the version, both written by every save. Indexing
/// the same two entries again in `metadata_index` cost four keyed hashes and about 200 bytes a
/// sample (an Apple Health import's samples all have them), so since `v18-sync-column-index`
/// a save leaves them out for such rows and metadata predicates on these two keys also look at
/// the row's own columns (`SQLPredicate`):
/// - "has a sync identifier" (or version): ``syncRowCondition``, or a `metadata_index` row;
/// - "the sync identifier is X": `sync_id` among the keyed hashes of X for each source's bundle
///   identifier (the SQL function ``syncHashFunctionName``), or a `metadata_index` row;
/// - "the sync version is N": ``syncRowCondition`` and `sync_version = N` for whole numbers
///   below ``columnVersionLimit`` in magnitude, or a `metadata_index` row.
///
/// Health records and activity summaries keep another key in `sync_id` (their resource, card or
/// day), so their sync metadata stays in `metadata_index`; so does a version whose index form
/// is not its whole number's (``versionInColumn(_:)``). Stores written before keep their rows
/// until ``moveSyncIndexIfPending()`` deletes the ones the columns answer, when the store is next
/// opened with its key; the predicates above are exact before, during and after.
extension HealthDatabase {
    /// The SQL function `ohk_sync_hash(bundle_identifier, identifier)`: the `sync_id` a sample of
    /// that source with that sync identifier is saved with.
    static let syncHashFunctionName = "ohk_sync_hash"

    /// The rows whose `sync_id` and `sync_version` are their metadata's sync identifier and
    /// version (every kind but health records and activity summaries, which key `sync_id` otherwise).
    static let syncRowCondition = "s.sync_id IS NOT NULL AND s.kind NOT IN (\(SampleKind.clinicalRecord.rawValue), "
        + "\(SampleKind.verifiableRecord.rawValue), \(SampleKind.activitySummary.rawValue))"

    /// Sync versions at least this large in magnitude stay in `metadata_index`: the index form of
    /// a `Double` that large is not its whole number's.
    static let columnVersionLimit: Int64 = 9_000_000_000_000_000

    /// Whether the index form of a stored sync version is the whole number its `sync_version`
    /// column holds, so that the column answers equality exactly as its index row would.
    static func versionInColumn(_ value: MetadataCodec.Value?) -> Bool {
        switch value {
        case .integer(let version): return version.magnitude < columnVersionLimit.magnitude
        case .bool: return true
        case .double(let version): return version == version.rounded() && abs(version) < 9e15
        default: return false
        }
    }

    /// The whole numbers an equality on `HKMetadataKeySyncVersion` with these values can find in
    /// the `sync_version` column (each value's index form `n:N`, with N below the limit).
    static func columnVersions(_ values: [MetadataCodec.Value]) -> [Int64] {
        values.compactMap { value in
            guard let form = value.indexForm, form.hasPrefix("n:"), let number = Int64(form.dropFirst(2)),
                  number.magnitude < columnVersionLimit.magnitude else { return nil }
            return number
        }
    }

    /// The `store_info` key a store migrated to `v18-sync-column-index` gets while its old
    /// `metadata_index` rows for sync identifiers and versions are still there.
    static let syncIndexPendingKey = "sync_index_pending"

    /// Deletes the `metadata_index` rows of sync identifiers and versions that the rows' own
    /// columns now answer (a store written before `v18-sync-column-index`), in one transaction.
    /// The sealed metadata is untouched: every sample reads back as before.
    func moveSyncIndexIfPending() throws {
        try writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM store_info WHERE key = ?", arguments: [Self.syncIndexPendingKey]) == true else {
                return
            }
            let identifierKey = cipher.indexHash("mk", HKMetadataKeySyncIdentifier)
            let versionKey = cipher.indexHash("mk", HKMetadataKeySyncVersion)
            try db.execute(sql: """
                DELETE FROM metadata_index
                WHERE key_id = \(MetadataIndexEntry.keyID) AND sample_id IN (SELECT s.id FROM sample s WHERE \(Self.syncRowCondition))
                """, arguments: [identifierKey])
            // A version goes where its index row is the one its whole number gives (a large Double's
            // index form is not): by distinct version, a few in any store, so memory stays small.
            let versions = try Int64.fetchAll(db, sql: """
                SELECT DISTINCT s.sync_version FROM sample s WHERE \(Self.syncRowCondition) AND s.sync_version IS NOT NULL
                """)
            let remove = try db.cachedStatement(sql: """
                DELETE FROM metadata_index WHERE key_id = \(MetadataIndexEntry.keyID) AND value_hash = ?
                AND sample_id IN (SELECT s.id FROM sample s WHERE \(Self.syncRowCondition) AND s.sync_version = ?)
                """)
            for version in versions where version.magnitude < Self.columnVersionLimit.magnitude {
                try remove.execute(arguments: [versionKey, cipher.indexHash("mv", HKMetadataKeySyncVersion, "n:\(version)"), version])
            }
            try db.execute(sql: "DELETE FROM store_info WHERE key = ?", arguments: [Self.syncIndexPendingKey])
        }
    }
}

/// The cipher the SQL function `ohk_sync_hash` hashes with, known once the store is unlocked
/// (connections are prepared before that; a pool's readers after).
final class SyncHashKey: Sendable {
    private let cipher = Mutex<RecordCipher?>(nil)

    func set(_ value: RecordCipher) {
        cipher.withLock { $0 = value }
    }

    /// `ohk_sync_hash(bundle_identifier, identifier)`: the keyed hash `sync_id` holds for a
    /// sample of that source with that sync identifier; NULL for other arguments or before unlock.
    var function: DatabaseFunction {
        DatabaseFunction(HealthDatabase.syncHashFunctionName, argumentCount: 2, pure: true) { [self] values in
            guard let bundle = String.fromDatabaseValue(values[0]), let identifier = String.fromDatabaseValue(values[1]),
                  let key = cipher.withLock({ $0 }) else { return nil }
            return key.indexHash("sync", bundle, identifier)
        }
    }
}
