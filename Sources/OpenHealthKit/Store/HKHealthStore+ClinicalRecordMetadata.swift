import Foundation

extension HKHealthStore {
    /// Adds metadata to stored clinical records, in place (OpenHealthKit API, for the store's
    /// owner: what an importer learns about records it stored before, such as the patient a later
    /// file names).
    ///
    /// Each record keeps its UUID, dates, source, resource and place in the change history; the
    /// entries of `additions` are merged into its metadata (a value replaces the one of the same
    /// key), the metadata index follows, and a later save of the same content with that metadata
    /// is found already stored. UUIDs of no stored clinical record are skipped. All records
    /// change, or none.
    /// - Parameter additions: the metadata to add, by record UUID (values as HealthKit allows them).
    /// - Returns: how many records changed (a record that already had that metadata is not counted).
    /// - Throws: `errorAuthorizationDenied` for an app; `errorInvalidArgument` for a value
    ///   HealthKit does not allow in metadata.
    @discardableResult
    public func addMetadata(toClinicalRecords additions: [UUID: [String: Any]]) async throws -> Int {
        try requireClinicalMetadataOwner()
        var values: [UUID: [String: MetadataCodec.Value]] = [:]
        for (uuid, metadata) in additions {
            let encoded = try MetadataCodec.values(metadata)
            if !encoded.isEmpty { values[uuid] = encoded }
        }
        return try await engine.databaseAsync().addClinicalRecordMetadata(values)
    }

    /// Whether the one-time pass `name` has run on this store (OpenHealthKit API, for the
    /// store's owner): a pass over stored data that a newer version needs once (see
    /// ``completeStorePass(_:)``).
    /// - Parameter name: the pass's name.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func hasCompletedStorePass(_ name: String) async throws -> Bool {
        try requireClinicalMetadataOwner()
        return try await engine.databaseAsync().hasCompletedPass(name)
    }

    /// Notes that the one-time pass `name` has run on this store (OpenHealthKit API, for the
    /// store's owner), so that ``hasCompletedStorePass(_:)`` answers true from now on, until a
    /// clinical record is restored from "Recently deleted" (``restoreRecentlyDeleted(_:)``): it may
    /// have been deleted before the pass ran, so every pass is then to run again.
    /// - Parameter name: the pass's name.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func completeStorePass(_ name: String) async throws {
        try requireClinicalMetadataOwner()
        try await engine.databaseAsync().completePass(name)
    }

    /// Keeps what an importer read about a patient that clinical records refer to (OpenHealthKit
    /// API, for the store's owner), replacing what was kept for the same reference: a Patient
    /// that arrived without its records, so that records imported later are named after it.
    /// The details are sealed; the reference is findable only through a keyed hash.
    /// - Parameters:
    ///   - reference: the reference records make to the patient (such as `Patient/123`).
    ///   - details: what the importer keeps about the patient, in its own encoding.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func saveHealthRecordPatient(reference: String, details: Data) async throws {
        try requireClinicalMetadataOwner()
        try await engine.databaseAsync().saveRecordPatient(reference: reference, details: details)
    }

    /// What ``saveHealthRecordPatient(reference:details:)`` kept about the patients `references`
    /// name, by reference (OpenHealthKit API, for the store's owner); references the store keeps
    /// nothing about are left out.
    /// - Parameter references: the references records make to their patients.
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func healthRecordPatients(references: [String]) async throws -> [String: Data] {
        try requireClinicalMetadataOwner()
        guard !references.isEmpty else { return [:] }
        return try await engine.databaseAsync().recordPatients(references)
    }

    private func requireClinicalMetadataOwner() throws {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can change health records") }
    }
}
