import FhirBlocksStore

/// Creates a fresh PostgreSQL database per test (filled in when the PostgreSQL store lands).
enum PostgresTestDatabase {
    static func freshStore(adminURL: String) async throws -> any TrustStore {
        throw TestSkip("MERGE-PENDING: PostgreSQL store")
    }
}
