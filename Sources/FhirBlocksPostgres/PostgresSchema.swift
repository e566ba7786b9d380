import FhirBlocksStore

/// The PostgreSQL schema: ``TrustSchema``'s migrations for PostgreSQL, numbered from 1.
/// ``PostgresTrustStore/migrate()`` applies the ones above the number recorded in
/// `schema_version`, each in the same transaction as its version row, under an advisory lock
/// so that two servers starting together do not race.
///
/// Times are `bigint` milliseconds since 1970 (``FhirBlocks/Timestamp``). Identifiers are
/// `text`; sorting uses `COLLATE "C"` (byte order, as SQLite's), wherever an order is promised.
enum PostgresSchema {
    /// The key of the advisory lock taken while migrating ("FHIRBLKS" as ASCII).
    static let migrationLockKey: Int64 = 0x4648_4952_424C_4B53

    /// The statements that create `schema_version`.
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS schema_version (
            version integer PRIMARY KEY,
            applied_at bigint NOT NULL
        )
        """

    /// Migration `n` is `migrations[n - 1]`: a list of statements run in order.
    static let migrations: [[String]] = TrustSchema.migrations(for: .postgres).map { $0.statements(.postgres) }

    /// The version that adds the search index.
    static let searchIndexVersion = TrustSchemaMigration.postgresVersion(of: "v5-search-index") ?? 0

    /// The version after which every stored resource is indexed (again) in Swift (by
    /// ``PostgresTrustStore/migrate()`` once every version is applied: the rows have the
    /// newest columns): the last migration that asks for it.
    static let searchIndexBackfillVersion = TrustSchema.migrations(for: .postgres).lastIndex(where: \.reindexesResources).map { $0 + 1 } ?? 0

    /// The newest schema version.
    static var latestVersion: Int { migrations.count }
}
