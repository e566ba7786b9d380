import FhirBlocksPostgres
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import Testing

/// A second server on the same database: its own store connection (a second SQLite pool on the
/// same file, or a second PostgreSQL client), its own caches, the same clock, configuration and
/// audit key. What one commits the other must honour at once.
extension TestWorld {
    /// A second ``TrustService`` over the same database; close it with ``close()``.
    func twin() async throws -> TestWorld {
        let second: any TrustStore
        if let sqlite = store as? SQLiteTrustStore {
            second = try SQLiteTrustStore(path: sqlite.path)
        } else {
            let postgres = try #require(store as? PostgresTrustStore)
            second = PostgresTrustStore(url: postgres.url, connectionTimeout: .seconds(300), maximumConnections: 4)
        }
        try await second.migrate()
        let service = TrustService(store: second, configuration: service.configuration, auditKey: service.auditKey, clock: clock.trustClock)
        try await service.start()
        return TestWorld(service: service, store: second, clock: clock, backend: backend)
    }

    /// Runs `body` with a ``twin()`` and closes the twin afterwards, whether `body` returns or throws.
    func withTwin<Result>(_ body: (TestWorld) async throws -> Result) async throws -> Result {
        let second = try await twin()
        do {
            let result = try await body(second)
            await second.close()
            return result
        } catch {
            await second.close()
            throw error
        }
    }
}
