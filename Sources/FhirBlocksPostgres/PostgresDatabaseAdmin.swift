import FhirBlocksStore
import Logging
import PostgresNIO

/// Creates and drops whole databases through a maintenance connection (for provisioning a
/// server's database, and for tests that want one fresh database each). Names are limited to
/// `[a-z0-9_]`, starting with a letter or `_`, at most 63 characters, so they need no quoting.
public enum PostgresDatabaseAdmin {
    /// Creates database `name` (owned by the connecting user) through `adminURL`, whose
    /// database (default `postgres`) must already exist.
    public static func createDatabase(_ name: String, adminURL: PostgresURL, timeout: Duration = .seconds(10)) async throws(TrustStoreError) {
        try checkName(name)
        try await execute("CREATE DATABASE \(name)", adminURL: adminURL, timeout: timeout)
    }

    /// Creates database `name` as a copy of database `template` (`CREATE DATABASE … TEMPLATE …`),
    /// which no session may be connected to meanwhile.
    public static func copyDatabase(_ name: String, from template: String, adminURL: PostgresURL,
                                    timeout: Duration = .seconds(10)) async throws(TrustStoreError) {
        try checkName(name)
        try checkName(template)
        try await execute("CREATE DATABASE \(name) TEMPLATE \(template)", adminURL: adminURL, timeout: timeout)
    }

    /// Drops database `name` if it exists, disconnecting its sessions (`WITH (FORCE)`).
    public static func dropDatabase(_ name: String, adminURL: PostgresURL, timeout: Duration = .seconds(10)) async throws(TrustStoreError) {
        try checkName(name)
        try await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", adminURL: adminURL, timeout: timeout)
    }

    private static func checkName(_ name: String) throws(TrustStoreError) {
        let utf8 = Array(name.utf8)
        guard (1...63).contains(utf8.count),
              let first = utf8.first, first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
              utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw .unavailable("invalid database name")
        }
    }

    private static func execute(_ sql: String, adminURL: PostgresURL, timeout: Duration) async throws(TrustStoreError) {
        let url = adminURL.database == nil ? adminURL.with(database: "postgres") : adminURL
        let store = PostgresTrustStore(url: url, connectionTimeout: timeout, maximumConnections: 1)
        let outcome: Result<Void, TrustStoreError>
        do {
            try await store.withConnection { connection, logger in
                _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await store.close()
        try outcome.get()
    }
}
