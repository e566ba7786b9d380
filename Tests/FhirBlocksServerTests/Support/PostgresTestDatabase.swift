import FhirBlocksPostgres
import FhirBlocksStore
import Foundation

/// A fresh PostgreSQL database per test, created through the server named by
/// `OPENHEALTHKIT_POSTGRES_URL` (the throw-away server `scripts/postgres.sh` starts; it is
/// deleted with its data after the run, so the test databases are not dropped one by one).
enum PostgresTestDatabase {
    static func freshStore(adminURL: String) async throws -> any TrustStore {
        let admin = try PostgresURL(adminURL)
        let name = "s_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await PostgresDatabaseAdmin.createDatabase(name, adminURL: admin, timeout: .seconds(120))
        let store = PostgresTrustStore(url: admin.with(database: name), connectionTimeout: .seconds(300), maximumConnections: 4)
        try await store.migrate()
        return store
    }

    /// The URL of a fresh, empty database (for a `health serve --database` process).
    static func freshURL(adminURL: String) async throws -> String {
        let admin = try PostgresURL(adminURL)
        let name = "s_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await PostgresDatabaseAdmin.createDatabase(name, adminURL: admin, timeout: .seconds(120))
        return admin.with(database: name).text
    }
}
