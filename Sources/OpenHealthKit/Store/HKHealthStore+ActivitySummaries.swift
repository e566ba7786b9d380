import Foundation

extension HKHealthStore {
    /// Saves activity summaries recorded by `revision` (OpenHealthKit API, for the store's owner:
    /// apps only read summaries). A summary replaces the stored summary of the same day from the
    /// same source, leaving a deleted object for anchored queries, so saving a day again
    /// duplicates nothing; a summary equal to the stored one is not stored again. All are stored, or none.
    /// - Parameters:
    ///   - summaries: The summaries, one per day.
    ///   - revision: The source revision that recorded them.
    /// - Returns: what was stored, replaced and already stored (``HKSaveCounts``).
    /// - Throws: `errorAuthorizationDenied` for an app.
    @discardableResult
    public func saveActivitySummaries(_ summaries: [HKActivitySummary], recordedAs revision: HKSourceRevision) async throws -> HKSaveCounts {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can save activity summaries") }
        guard !summaries.isEmpty else { return HKSaveCounts() }
        let database = try engine.database()
        let preparer = SamplePreparer(cipher: database.cipher, bundleIdentifier: revision.source.bundleIdentifier)
        let prepared = try summaries.map { try preparer.prepare(ActivitySummarySample($0)) }
        let changes = try await database.insert(prepared, revision: SourceRevisionRecord(revision))
        notify(changes)
        return changes.saveCounts
    }
}
