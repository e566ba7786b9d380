import FhirBlocksPostgres
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation

/// Makes a fresh, migrated, empty store per test for each backend.
///
/// - SQLite: a database file in a new temporary folder, deleted afterwards.
/// - PostgreSQL: only when `OPENHEALTHKIT_POSTGRES_URL` names a server (`scripts/test.sh`
///   starts one; `scripts/postgres.sh start` prints such a URL). Each test gets its own
///   database `t_<random>`, created through that URL (its user must be allowed to create
///   databases) and dropped afterwards, so tests are isolated and may run in parallel.
enum StoreBackends {
    /// The environment variable naming the PostgreSQL server for the tests.
    static let postgresURLVariable = "OPENHEALTHKIT_POSTGRES_URL"

    /// The PostgreSQL URL from the environment, if set and not empty.
    static var postgresURL: String? {
        guard let text = ProcessInfo.processInfo.environment[postgresURLVariable], !text.isEmpty else { return nil }
        return text
    }

    /// Whether the PostgreSQL cases can run.
    static var postgresAvailable: Bool { postgresURL != nil }

    /// Runs `body` with a new session on `backend`, then closes its stores and deletes its
    /// database, whether `body` threw or not.
    static func withSession(_ backend: StoreBackend, _ body: (StoreSession) async throws -> Void) async throws {
        switch backend {
        case .sqlite: try await withSQLiteSession(body)
        case .postgres: try await withPostgresSession(body)
        }
    }

    private static func withSQLiteSession(_ body: (StoreSession) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fhirblocks-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("trust.sqlite").path
        let session = try await StoreSession(backend: .sqlite) {
            try SQLiteTrustStore(path: path)
        }
        do {
            try await body(session)
        } catch {
            await session.closeAll()
            throw error
        }
        await session.closeAll()
    }

    private static func withPostgresSession(_ body: (StoreSession) async throws -> Void) async throws {
        guard let text = postgresURL else {
            throw SessionError.postgresNotConfigured
        }
        let admin = try PostgresURL(text)
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await PostgresDatabaseAdmin.createDatabase(name, adminURL: admin, timeout: .seconds(120))
        let url = admin.with(database: name)
        let outcome: Result<Void, any Error>
        do {
            let session = try await StoreSession(backend: .postgres) {
                PostgresTrustStore(url: url, connectionTimeout: .seconds(300), maximumConnections: 4)
            }
            do {
                try await body(session)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await session.closeAll()
        } catch {
            outcome = .failure(error)
        }
        try? await PostgresDatabaseAdmin.dropDatabase(name, adminURL: admin, timeout: .seconds(120))
        try outcome.get()
    }

    /// Why a session could not be made.
    enum SessionError: Error, CustomStringConvertible {
        case postgresNotConfigured

        var description: String { "\(StoreBackends.postgresURLVariable) is not set" }
    }
}
