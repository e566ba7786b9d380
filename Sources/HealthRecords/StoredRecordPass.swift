import Foundation
import OpenHealthKit

/// A one-time pass over the stored clinical records that lack a metadata key the import now
/// writes (``HealthRecordPatient/completeStoredRecords(in:)``,
/// ``HealthRecordTestCode/completeStoredRecords(in:)``): it gives them that metadata in place, a
/// batch to a transaction, and the store then remembers it ran.
enum StoredRecordPass {
    /// Runs the pass `name` unless the store remembers it ran: reads the records of `types`
    /// kept without `key` in their metadata, `batchSize` at a time, writes the metadata
    /// `metadata` gives each batch (it must include `key`), and when none is left remembers the
    /// pass ran. A pass that meets records it cannot change (three batches in a row change none:
    /// another pass got there first, or they never will) stops without being remembered. Nothing
    /// is caught: an error (a `CancellationError` too) ends the pass and is thrown, and a later
    /// call goes on from where it stopped.
    /// - Parameters:
    ///   - name: the pass's name, as the store remembers it.
    ///   - key: the metadata key the records without it lack.
    ///   - types: the clinical types read.
    ///   - batchSize: how many records are read and changed per transaction.
    ///   - store: the store, opened as its owner.
    ///   - metadata: the metadata to add to each record of a batch, by UUID.
    /// - Returns: how many records were changed.
    static func run(_ name: String, missing key: String, of types: [HKClinicalType], batchSize: Int, in store: HKHealthStore,
                    metadata: ([HKClinicalRecord]) async throws -> [UUID: [String: Any]]) async throws -> Int {
        if try await store.hasCompletedStorePass(name) { return 0 }
        let unkeyed = NSCompoundPredicate(notPredicateWithSubpredicate: HKQuery.predicateForObjects(withMetadataKey: key))
        var completed = 0, idle = 0
        while true {
            let records = try await HKSampleQueryDescriptor(predicates: types.map { .clinicalRecord(type: $0, predicate: unkeyed) },
                                                            sortDescriptors: [], limit: batchSize).result(for: store)
            guard !records.isEmpty else { break }
            let changed = try await store.addMetadata(toClinicalRecords: try await metadata(records))
            completed += changed
            // Nothing changed: another pass (a page view beside the background one) got there first.
            // Its records are not read again; one that could never change would be, so give up after a few.
            idle = changed > 0 ? 0 : idle + 1
            guard idle < 3 else { return completed }
        }
        try await store.completeStorePass(name)
        return completed
    }
}
