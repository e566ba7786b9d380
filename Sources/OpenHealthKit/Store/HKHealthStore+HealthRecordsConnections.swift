import Foundation

extension HKHealthStore {
    /// Every health-records connection in the store, by name (OpenHealthKit API, for the
    /// store's owner).
    /// - Throws: `errorAuthorizationDenied` for an app.
    public func healthRecordsConnections() async throws -> [HKHealthRecordsConnection] {
        try requireOwner()
        return try await engine.databaseAsync().connections()
    }

    /// The connection of that name, if any (OpenHealthKit API, for the store's owner).
    public func healthRecordsConnection(named name: String) async throws -> HKHealthRecordsConnection? {
        try await healthRecordsConnections().first { $0.name == name }
    }

    /// Saves a connection, replacing the one of the same name (OpenHealthKit API, for the
    /// store's owner).
    public func saveHealthRecordsConnection(_ connection: HKHealthRecordsConnection) async throws {
        try requireOwner()
        try await engine.databaseAsync().saveConnection(connection)
    }

    /// Forgets a connection (the records it brought stay); whether there was one of that name
    /// (OpenHealthKit API, for the store's owner).
    @discardableResult
    public func removeHealthRecordsConnection(named name: String) async throws -> Bool {
        try requireOwner()
        return try await engine.databaseAsync().removeConnection(named: name)
    }

    /// Saves health records and a connection's new state in one transaction: both are
    /// committed, or neither (OpenHealthKit API, for the store's owner). A sync that stops
    /// between two batches leaves the connection describing exactly what was stored.
    /// - Throws: as ``saveHealthRecords(_:source:)``.
    public func saveHealthRecords(_ records: [HKSample], source: HKSource, connection: HKHealthRecordsConnection) async throws {
        try await storeHealthRecords(records, source: source, connection: connection)
    }

    /// Saves health records, deletes the verifiable records named by `uuids` (leaving deleted
    /// objects for anchored queries; UUIDs no longer stored, and samples of other kinds, are
    /// skipped) and saves a connection's new state, in one transaction: all of it is committed,
    /// or none (OpenHealthKit API, for the store's owner). A sync replaces the health cards a
    /// server no longer issues this way.
    /// - Throws: as ``saveHealthRecords(_:source:)``.
    public func saveHealthRecords(_ records: [HKSample], source: HKSource, deletingVerifiableRecords uuids: [UUID],
                                  connection: HKHealthRecordsConnection) async throws {
        try await storeHealthRecords(records, source: source, deleting: uuids, connection: connection)
    }

    private func requireOwner() throws {
        guard engine.isOwner else { throw HKError(.errorAuthorizationDenied, "only the store's owner can manage health-records connections") }
    }
}
