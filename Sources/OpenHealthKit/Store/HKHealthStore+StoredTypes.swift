import Foundation
import GRDB

extension HKHealthStore {
    /// The sample types of which the store holds at least one sample (OpenHealthKit extension,
    /// not HealthKit API), in the order of `HKObjectType.allSampleTypes`.
    ///
    /// One read of the store's type index finds them, so a caller that wants the newest sample
    /// of every stored type queries only these types instead of every known one. Deleted
    /// samples do not count; types OpenHealthKit does not know are left out.
    /// - Returns: the stored sample types.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner: an app
    ///   may not learn which types hold samples it cannot read.
    public func sampleTypesWithSamples() async throws -> [HKSampleType] {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may list the stored sample types")
        }
        let stored = try await engine.databaseAsync().storedSampleTypes()
        return HKObjectType.allSampleTypes.filter { stored.contains($0.identifier) }
    }
}

extension HealthDatabase {
    /// The distinct types of the sample table: each of `sample_type`'s codes (one per type ever
    /// stored, a few hundred at most) that still has a row, found with one seek of the
    /// `sample_type_start` index, not by reading every row.
    func storedSampleTypes() async throws -> Set<String> {
        try await readAsync { db in
            Set(try String.fetchAll(db, sql: """
                SELECT t.identifier FROM sample_type t WHERE EXISTS (SELECT 1 FROM sample s WHERE s.type = t.id)
                """))
        }
    }
}
