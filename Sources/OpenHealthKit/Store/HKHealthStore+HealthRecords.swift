import Foundation
import GRDB

extension HKHealthStore {
    /// Saves clinical and verifiable records under their provider's source (OpenHealthKit API,
    /// for the store's owner: apps cannot write health records).
    ///
    /// A clinical record replaces the stored record of the same source, resource type and
    /// resource id, and a verifiable record the stored record of the same card, leaving a
    /// deleted object for anchored queries: importing again duplicates nothing. A record the
    /// store already has with the same dates and content is not stored again: it is counted as
    /// already stored (its UUID in `alreadyStoredObjects`), so a re-import reports 0 stored.
    /// All records are stored, or none.
    /// - Parameters:
    ///   - records: The clinical and verifiable records.
    ///   - source: The provider they come from.
    /// - Returns: What was stored, already in the store, and replaced, by type identifier.
    /// - Throws: `errorAuthorizationDenied` for an app; `errorInvalidArgument` for other samples.
    @discardableResult
    public func saveHealthRecords(_ records: [HKSample], source: HKSource) async throws -> HKSaveCounts {
        try await storeHealthRecords(records, source: source, connection: nil)
    }

    /// Saves health records and, in the same transaction, deletes the verifiable records
    /// `deleting` names and saves a connection's state (nil: none).
    /// - Returns: What the save stored and found already stored.
    @discardableResult
    func storeHealthRecords(_ records: [HKSample], source: HKSource, deleting: [UUID] = [],
                            connection: HKHealthRecordsConnection?) async throws -> HKSaveCounts {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can save health records") }
        guard records.allSatisfy({ $0 is HKClinicalRecord || $0 is HKVerifiableClinicalRecord }) else {
            throw HKError(.errorInvalidArgument, "saveHealthRecords takes clinical and verifiable records only")
        }
        let database = try await engine.databaseAsync()
        guard !records.isEmpty || !deleting.isEmpty else {
            if let connection { try await database.saveConnection(connection) }
            return HKSaveCounts()
        }
        let preparer = SamplePreparer(cipher: database.cipher, bundleIdentifier: source.bundleIdentifier)
        let prepared = try records.map(preparer.prepare)
        var alsoWrite: (@Sendable (GRDB.Database) throws -> Void)?
        if let connection {
            alsoWrite = { db in try database.writeConnection(db, connection) }
        }
        let changes = try await database.insert(prepared, revision: SourceRevisionRecord(HKSourceRevision(source: source, version: nil)),
                                            deletingVerifiableRecords: deleting, alsoWrite: alsoWrite)
        notify(changes)
        return changes.saveCounts
    }

    /// Every recorded execution of a verifiable-record query by an app, oldest first
    /// (OpenHealthKit API, for the store's owner).
    public func verifiableRecordShares() async throws -> [HKVerifiableRecordShare] {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can list shares") }
        return try await engine.databaseAsync().shares()
    }

    /// Runs a verifiable-record query: the matching records, then, for an app, the person's
    /// one-time choice among them, recorded in the share log. The owner gets every match.
    func shareVerifiableRecords(recordTypes: [String], sourceTypes: [HKVerifiableClinicalRecordSourceType],
                                predicate: NSPredicate?) async throws -> [HKVerifiableClinicalRecord] {
        let database = try await engine.databaseAsync()
        let node = try HKQueryPredicate.node(from: predicate)
        let fetch = SampleFetch(types: [HKVerifiableClinicalRecordType.identifierString], predicate: SQLPredicate(node, cipher: database.cipher),
                                scope: .everything, order: [SampleOrder(key: .startDate, ascending: true)])
        let matches = try await database.fetchSamples(fetch).compactMap { $0 as? HKVerifiableClinicalRecord }.filter { record in
            guard let sourceType = record.sourceType, sourceTypes.contains(sourceType) else { return false }
            return recordTypes.allSatisfy(record.recordTypes.contains)
        }
        if engine.isOwner { return matches }
        guard !matches.isEmpty else { return [] }
        let request = VerifiableRecordShareRequest(bundleIdentifier: engine.bundleIdentifier, appName: engine.configuration.source.name,
                                                   recordTypes: recordTypes, records: matches)
        let decision = try await engine.configuration.authorizationProvider.decideVerifiableRecordShare(request)
        switch decision {
        case .decline:
            try await database.recordShare(bundleIdentifier: request.bundleIdentifier, appName: request.appName, records: [], declined: true,
                                     at: database.now())
            throw HKError(.errorUserCanceled, "the person declined to share verifiable records")
        case .share(let chosen):
            let shared = matches.filter { chosen.contains($0.uuid) }
            try await database.recordShare(bundleIdentifier: request.bundleIdentifier, appName: request.appName, records: shared.map(\.uuid),
                                     declined: false, at: database.now())
            return shared
        }
    }
}
