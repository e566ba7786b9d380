import FhirBlocks
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import GRDB
import Testing

/// The SQLite schema written once (`TrustSchema` through `SQLDialect`) is the schema every
/// existing database has: a database made by the migrations as they were written before (their
/// text kept below, verbatim) and one made by the store today have the same `sqlite_master`
/// (whitespace aside), the same columns and indexes and the same migration names; an existing
/// database opens and migrates without a change.
@Suite struct TrustSchemaTests {
    /// The SQLite migrations as `SQLiteTrustSchema` spelled them before the schema was written
    /// once (the search index's statements were already `SearchSQL`'s, shared, and are unchanged).
    static let migrationsBefore: [(name: String, statements: [String])] = [
        ("v1", [
            """
            CREATE TABLE issued_guid (guid TEXT PRIMARY KEY, issued_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE registration (
                csi TEXT PRIMARY KEY, spki BLOB NOT NULL, device_id TEXT NOT NULL, application_class TEXT NOT NULL,
                claims TEXT NOT NULL, registered_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE permission (
                id TEXT PRIMARY KEY, patient TEXT NOT NULL, grantor TEXT NOT NULL, grantee TEXT NOT NULL, scope TEXT NOT NULL,
                not_before INTEGER NOT NULL, not_after INTEGER NOT NULL, parent TEXT, granted_at INTEGER NOT NULL,
                revoked_at INTEGER) WITHOUT ROWID;
            CREATE INDEX permission_grantee ON permission (grantee);
            CREATE TABLE nonce (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE auth_code (
                code TEXT PRIMARY KEY, client TEXT NOT NULL, patient TEXT NOT NULL, scope TEXT NOT NULL,
                permission_ids TEXT NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE access_token (
                token_hash TEXT PRIMARY KEY, id TEXT NOT NULL, client TEXT NOT NULL, patient TEXT NOT NULL, scope TEXT NOT NULL,
                permission_ids TEXT NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            CREATE TABLE fhir_resource (
                type TEXT NOT NULL, id TEXT NOT NULL, patient TEXT NOT NULL, version_id INTEGER NOT NULL,
                last_updated INTEGER NOT NULL, json BLOB NOT NULL, PRIMARY KEY (patient, type, id)) WITHOUT ROWID;
            CREATE TABLE fhir_resource_history (
                type TEXT NOT NULL, id TEXT NOT NULL, version_id INTEGER NOT NULL, patient TEXT NOT NULL,
                last_updated INTEGER NOT NULL, json BLOB NOT NULL, PRIMARY KEY (patient, type, id, version_id)) WITHOUT ROWID;
            CREATE TABLE audit_entry (
                idx INTEGER PRIMARY KEY, leaf_hash BLOB NOT NULL, canonical BLOB NOT NULL, signature_digest TEXT);
            CREATE INDEX audit_entry_signature ON audit_entry (signature_digest) WHERE signature_digest IS NOT NULL;
            CREATE TABLE checkpoint (tree_size INTEGER PRIMARY KEY, note TEXT NOT NULL);
            """,
        ]),
        ("v2-issued-guid-expiry", ["CREATE INDEX issued_guid_issued_at ON issued_guid (issued_at)"]),
        ("v3-smart-app-launch", [
            """
            CREATE TABLE smart_client (
                client_id TEXT PRIMARY KEY, redirect_uris TEXT NOT NULL, client_name TEXT, registered_at INTEGER NOT NULL,
                public_key BLOB) WITHOUT ROWID;
            CREATE TABLE smart_authorization (
                id TEXT PRIMARY KEY, user_code TEXT NOT NULL UNIQUE, client TEXT NOT NULL, redirect_uri TEXT NOT NULL,
                requested_scope TEXT NOT NULL, state TEXT, code_challenge TEXT NOT NULL, created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL, status TEXT NOT NULL, patient TEXT, granted_scope TEXT, permission_ids TEXT NOT NULL,
                offline INTEGER NOT NULL, code_hash TEXT UNIQUE, code_expires_at INTEGER) WITHOUT ROWID;
            CREATE INDEX smart_authorization_expires_at ON smart_authorization (expires_at);
            CREATE TABLE refresh_token (
                token_hash TEXT PRIMARY KEY, authorization_id TEXT NOT NULL, client TEXT NOT NULL, patient TEXT NOT NULL,
                scope TEXT NOT NULL, permission_ids TEXT NOT NULL, issued_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                used INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            """,
        ]),
        ("v4-ledger-version", [
            """
            CREATE TABLE ledger_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
            INSERT INTO ledger_version (id, version) VALUES (1, 0);
            """,
        ]),
        ("v5-search-index", SearchSQL.schema),
        ("v6-search-hull-single", SearchSQL.hullSingleUpgrade),
        ("v7-search-hull-span", SearchSQL.hullSpanUpgrade),
        ("v8-fhir-resource-writer", [
            """
            CREATE TABLE fhir_resource_writer (
                patient TEXT NOT NULL, type TEXT NOT NULL, id TEXT NOT NULL, version_id INTEGER NOT NULL, writer TEXT NOT NULL,
                PRIMARY KEY (patient, type, id)) WITHOUT ROWID
            """,
        ]),
        ("v9-shared-links", [
            """
            CREATE TABLE IF NOT EXISTS shared_link (
                id TEXT PRIMARY KEY, owner TEXT NOT NULL, flags TEXT NOT NULL, label TEXT, expires_at INTEGER, created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL, passcode_hash TEXT, attempts_left INTEGER CHECK (attempts_left >= 0), revoked_at INTEGER) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS shared_link_owner ON shared_link (owner, created_at);
            CREATE TABLE IF NOT EXISTS shared_link_file (
                link_id TEXT NOT NULL, position INTEGER NOT NULL, content_type TEXT NOT NULL, jwe TEXT NOT NULL,
                PRIMARY KEY (link_id, position)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS shared_link_location (
                token TEXT PRIMARY KEY, link_id TEXT NOT NULL, position INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS shared_link_location_expires_at ON shared_link_location (expires_at);
            CREATE TABLE IF NOT EXISTS shared_link_access (
                id TEXT PRIMARY KEY, link_id TEXT NOT NULL, recipient TEXT NOT NULL, at INTEGER NOT NULL, outcome TEXT NOT NULL) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS shared_link_access_link ON shared_link_access (link_id, at)
            """,
        ]),
        ("v10-bulk-export", [
            """
            CREATE TABLE IF NOT EXISTS export_job (
                id TEXT PRIMARY KEY, client TEXT NOT NULL, token_id TEXT NOT NULL, scope TEXT NOT NULL, kind TEXT NOT NULL, request TEXT NOT NULL,
                types TEXT NOT NULL, since INTEGER, status TEXT NOT NULL, transaction_time INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                lease_owner TEXT, lease_until INTEGER, progress TEXT, error TEXT) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS export_job_expires_at ON export_job (expires_at);
            CREATE TABLE IF NOT EXISTS export_chunk (
                job_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL, line_count INTEGER NOT NULL, data BLOB NOT NULL,
                PRIMARY KEY (job_id, type, seq)) WITHOUT ROWID
            """,
        ]),
        ("v11-export-group", [
            """
            CREATE TABLE IF NOT EXISTS export_group (
                id TEXT PRIMARY KEY, client TEXT NOT NULL, members TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID
            """,
        ]),
        ("v12-backend-client", [
            """
            CREATE TABLE IF NOT EXISTS backend_client (
                client_id TEXT PRIMARY KEY, client_name TEXT, jwks TEXT, jwks_uri TEXT, registered_at INTEGER NOT NULL) WITHOUT ROWID
            """,
        ]),
        ("v13-cosigned-checkpoint", [
            "CREATE TABLE IF NOT EXISTS cosigned_checkpoint (tree_size INTEGER PRIMARY KEY)",
            """
            INSERT INTO cosigned_checkpoint (tree_size) SELECT tree_size FROM checkpoint \
            WHERE length(note) - length(replace(note, '— ', '')) > 4 ON CONFLICT (tree_size) DO NOTHING
            """,
        ]),
    ]

    /// Makes a database at `path` as the store made it before (GRDB migrations of the same names).
    static func makeDatabaseBefore(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        for migration in migrationsBefore {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements { try db.execute(sql: statement) }
            }
        }
        try migrator.migrate(queue)
        try queue.close()
    }

    /// Everything SQLite knows of a database's schema, as lines: each `sqlite_master` entry with
    /// its SQL, whitespace collapsed (SQLite keeps the text it was given); each table's columns
    /// (`table_xinfo`: name, declared type, not null, default, primary key position); each
    /// index's columns and whether it is unique or partial; the migrations GRDB recorded.
    static func schema(at path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines: [String] = []
            for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name") {
                let (type, name, table): (String, String, String) = (row["type"], row["name"], row["tbl_name"])
                let sql: String? = row["sql"]
                lines.append("\(type) \(name) on \(table): \(sql.map(normalized) ?? "-")")
            }
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                for column in try Row.fetchAll(db, sql: "SELECT * FROM pragma_table_xinfo(?)", arguments: [table]) {
                    let (name, type, notNull, defaultValue, key): (String, String, Int, String?, Int) =
                        (column["name"], column["type"], column["notnull"], column["dflt_value"], column["pk"])
                    lines.append("column \(table).\(name) \(type) notnull=\(notNull) default=\(defaultValue ?? "-") pk=\(key)")
                }
                for index in try Row.fetchAll(db, sql: "SELECT * FROM pragma_index_list(?)", arguments: [table]) {
                    let (name, unique, origin, partial): (String, Int, String, Int) = (index["name"], index["unique"], index["origin"], index["partial"])
                    let columns = try Row.fetchAll(db, sql: "SELECT * FROM pragma_index_xinfo(?) WHERE key = 1", arguments: [name])
                        .map { column -> String in
                            let (name, collation, descending): (String?, String, Int) = (column["name"], column["coll"], column["desc"])
                            return "\(name ?? "expression") \(collation) desc=\(descending)"
                        }
                    lines.append("index \(table).\(name) unique=\(unique) origin=\(origin) partial=\(partial): \(columns.joined(separator: ", "))")
                }
            }
            lines += try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid").map { "migration \($0)" }
            return lines
        }
    }

    /// `sql` with each run of whitespace one space, and none just inside parentheses.
    static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
    }

    static func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trust-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder)
    }

    @Test func sqliteSchemaWrittenOnceIsTheExistingOne() async throws {
        try await Self.withFolder { folder in
            let before = folder.appendingPathComponent("before.sqlite").path
            try Self.makeDatabaseBefore(at: before)
            let now = folder.appendingPathComponent("now.sqlite").path
            let store = try SQLiteTrustStore(path: now)
            try await store.migrate()
            await store.close()
            let expected = try Self.schema(at: before)
            let actual = try Self.schema(at: now)
            // Line by line, so that a failure names what differs.
            let differences = zip(actual, expected).filter { $0 != $1 }.map { "now: \($0)\nbefore: \($1)" }
            #expect(actual.count == expected.count)
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
            #expect(actual.contains { $0.hasPrefix("table fhir_resource on fhir_resource: ") && $0.hasSuffix("WITHOUT ROWID") })
        }
    }

    @Test func sqliteExistingDatabaseOpensUnchanged() async throws {
        try await Self.withFolder { folder in
            let path = folder.appendingPathComponent("trust.sqlite").path
            try Self.makeDatabaseBefore(at: path)
            let before = try Self.schema(at: path)
            let store = try SQLiteTrustStore(path: path)
            try await store.migrate()
            // A resource written and read back through the statements written once.
            let patient = Fixtures.csi()
            var change = TrustChange()
            let record = FHIRResourceRecord(type: "Patient", id: "p", patient: patient, versionID: 1, lastUpdated: Fixtures.t0,
                                            json: Array(#"{"resourceType":"Patient"}"#.utf8))
            change.resources = [FHIRResourceWrite(record: record, writer: patient)]
            try await store.commit(change)
            #expect(try await store.resource(patient: patient, type: "Patient", id: "p")?.versionID == 1)
            #expect(try await store.resourceWriters(patient: patient, type: "Patient")["p"]?.writer == patient)
            await store.close()
            #expect(try Self.schema(at: path) == before)
        }
    }

    /// Issue 38: a database of before `v13-cosigned-checkpoint` knows its cosigned checkpoints
    /// after migrating: the notes with more signature lines than the log's two.
    @Test func sqliteMigrationFindsTheCheckpointsCosignedBefore() async throws {
        try await Self.withFolder { folder in
            let path = folder.appendingPathComponent("trust.sqlite").path
            let queue = try DatabaseQueue(path: path)
            var migrator = DatabaseMigrator()
            for migration in Self.migrationsBefore.dropLast() {
                migrator.registerMigration(migration.name) { db in
                    for statement in migration.statements { try db.execute(sql: statement) }
                }
            }
            try migrator.migrate(queue)
            let body = "log.example/audit\n7\nAAAA\n\n"
            try await queue.write { db in
                for size in 1...9 {
                    let lines = size == 4 || size == 6 ? 3 : 2
                    let note = body + (0..<lines).map { "— key\($0) c2lnbmF0dXJl\n" }.joined()
                    try db.execute(sql: "INSERT INTO checkpoint (tree_size, note) VALUES (?, ?)", arguments: [size, note])
                }
            }
            try queue.close()
            let store = try SQLiteTrustStore(path: path)
            try await store.migrate()
            #expect(try await store.latestCosignedCheckpoint()?.treeSize == 6)
            #expect(try await store.latestCheckpoint()?.treeSize == 9)
            await store.close()
        }
    }

    @Test func migrationNamesAndPostgresVersionsAreTheShippedOnes() {
        #expect(TrustSchema.migrations(for: .sqlite).map(\.name) == Self.migrationsBefore.map(\.name))
        // PostgreSQL's version 7 is its compartment index (SQLite's primary key serves).
        #expect(TrustSchema.migrations(for: .postgres).map(\.name) == [
            "v1", "v2-issued-guid-expiry", "v3-smart-app-launch", "v4-ledger-version", "v5-search-index", "v6-search-hull-single",
            "compartment-order", "v7-search-hull-span", "v8-fhir-resource-writer", "v9-shared-links", "v10-bulk-export",
            "v11-export-group", "v12-backend-client", "v13-cosigned-checkpoint",
        ])
    }

    @Test func placeholdersAreNumberedOnPostgresOnly() {
        let sql = "UPDATE t SET a = ? WHERE b = ? AND c IN (?, ?)"
        #expect(SQLDialect.sqlite.placeholders(sql) == sql)
        #expect(SQLDialect.postgres.placeholders(sql) == "UPDATE t SET a = $1 WHERE b = $2 AND c IN ($3, $4)")
    }
}
