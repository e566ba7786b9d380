import Foundation

extension HKHealthStore {
    /// Saves objects atomically, each recorded under the source revision given for it rather
    /// than the store's own source: what an import of another device's export needs, so that a
    /// sample keeps the app, version and device that wrote it (OpenHealthKit API, owner only).
    ///
    /// Sync identifiers are scoped to each object's own source, as HealthKit scopes them.
    /// - Parameters:
    ///   - objects: the samples to save.
    ///   - revisions: one source revision per object, in the same order.
    /// - Returns: what was stored and what the store already had, by type (``HKSaveCounts``):
    ///   an object whose sync identifier is stored with the same or a higher version is not
    ///   stored again, so an import run twice stores nothing the second time.
    /// - Throws: `errorAuthorizationDenied` unless the store is opened as its owner;
    ///   `errorInvalidArgument` when the counts differ or an object cannot be saved.
    @discardableResult
    public func save(_ objects: [HKObject], recordedAs revisions: [HKSourceRevision]) async throws -> HKSaveCounts {
        guard engine.isOwner else {
            throw HKError(.errorAuthorizationDenied, "only the store's owner may save samples under other sources")
        }
        guard objects.count == revisions.count else {
            throw HKError(.errorInvalidArgument, "one source revision is needed per object")
        }
        guard !objects.isEmpty else { return HKSaveCounts() }
        let database = try await engine.databaseAsync()
        var preparers: [String: SamplePreparer] = [:]
        var prepared: [PreparedSample] = []
        prepared.reserveCapacity(objects.count)
        for (object, revision) in zip(objects, revisions) {
            guard object is HKSample else { throw HKError(.errorInvalidArgument, "only samples can be saved") }
            let bundle = revision.source.bundleIdentifier
            let preparer = preparers[bundle] ?? SamplePreparer(cipher: database.cipher, bundleIdentifier: bundle)
            preparers[bundle] = preparer
            var sample = try preparer.prepare(object)
            sample.revision = SourceRevisionRecord(revision)
            prepared.append(sample)
        }
        let changes = try await database.insert(prepared, revision: engine.revision)
        notify(changes)
        return changes.saveCounts
    }
}
