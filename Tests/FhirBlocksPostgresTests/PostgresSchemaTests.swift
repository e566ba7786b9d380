@testable import FhirBlocksPostgres
import FhirBlocks
import FhirBlocksStore
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL schema written once (`TrustSchema` through `SQLDialect`) is the schema every
/// existing database has: a database made by the migrations as they were spelled before (kept
/// below, verbatim) and one migrated by the store today have the same columns (names, order,
/// types, nullability, defaults), indexes (their definitions) and constraints, and an existing
/// database migrates without a change.
@Suite("PostgreSQL schema")
struct PostgresSchemaTests {
    /// The migrations as `PostgresSchema` spelled them before the schema was written once (the
    /// search index's statements were already `SearchSQL`'s, shared, and are unchanged).
    static let migrationsBefore: [[String]] = [
        // 1: everything.
        [
            """
            CREATE TABLE issued_guid (
                guid text PRIMARY KEY,
                issued_at bigint NOT NULL
            )
            """,
            """
            CREATE TABLE registration (
                csi text PRIMARY KEY,
                spki bytea NOT NULL,
                device_id text NOT NULL,
                application_class text NOT NULL,
                claims text NOT NULL,
                registered_at bigint NOT NULL
            )
            """,
            """
            CREATE TABLE permission (
                id text PRIMARY KEY,
                patient text NOT NULL,
                grantor text NOT NULL,
                grantee text NOT NULL,
                scope text NOT NULL,
                not_before bigint NOT NULL,
                not_after bigint NOT NULL,
                parent text,
                granted_at bigint NOT NULL,
                revoked_at bigint
            )
            """,
            """
            CREATE TABLE nonce (
                key text PRIMARY KEY,
                expires_at bigint NOT NULL
            )
            """,
            "CREATE INDEX nonce_expires_at ON nonce (expires_at)",
            """
            CREATE TABLE auth_code (
                code text PRIMARY KEY,
                client text NOT NULL,
                patient text NOT NULL,
                scope text NOT NULL,
                permission_ids text[] NOT NULL,
                issued_at bigint NOT NULL,
                expires_at bigint NOT NULL
            )
            """,
            "CREATE INDEX auth_code_expires_at ON auth_code (expires_at)",
            """
            CREATE TABLE access_token (
                token_hash text PRIMARY KEY,
                id text NOT NULL,
                client text NOT NULL,
                patient text NOT NULL,
                scope text NOT NULL,
                permission_ids text[] NOT NULL,
                issued_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                revoked boolean NOT NULL DEFAULT false
            )
            """,
            """
            CREATE TABLE fhir_resource (
                type text NOT NULL,
                id text NOT NULL,
                patient text NOT NULL,
                version_id bigint NOT NULL CHECK (version_id >= 1),
                last_updated bigint NOT NULL,
                json bytea NOT NULL,
                PRIMARY KEY (patient, type, id)
            )
            """,
            """
            CREATE TABLE fhir_resource_history (
                type text NOT NULL,
                id text NOT NULL,
                version_id bigint NOT NULL,
                patient text NOT NULL,
                last_updated bigint NOT NULL,
                json bytea NOT NULL,
                PRIMARY KEY (patient, type, id, version_id)
            )
            """,
            """
            CREATE TABLE audit_entry (
                idx bigint PRIMARY KEY CHECK (idx >= 0),
                leaf_hash bytea NOT NULL,
                canonical bytea NOT NULL,
                signature_digest text
            )
            """,
            "CREATE INDEX audit_entry_signature_digest ON audit_entry (signature_digest) WHERE signature_digest IS NOT NULL",
            """
            CREATE TABLE checkpoint (
                tree_size bigint PRIMARY KEY,
                note text NOT NULL
            )
            """,
        ],
        // 2: issued GUIDs expire; each issue deletes the old ones by time.
        [
            "CREATE INDEX issued_guid_issued_at ON issued_guid (issued_at)",
        ],
        // 3: SMART App Launch: dynamically registered public clients, authorizations waiting
        // for the wallet (with the code, by hash) and refresh tokens (by hash).
        [
            """
            CREATE TABLE smart_client (
                client_id text PRIMARY KEY,
                redirect_uris text[] NOT NULL,
                client_name text,
                registered_at bigint NOT NULL,
                public_key bytea
            )
            """,
            """
            CREATE TABLE smart_authorization (
                id text PRIMARY KEY,
                user_code text NOT NULL UNIQUE,
                client text NOT NULL,
                redirect_uri text NOT NULL,
                requested_scope text NOT NULL,
                state text,
                code_challenge text NOT NULL,
                created_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                status text NOT NULL,
                patient text,
                granted_scope text,
                permission_ids text[] NOT NULL,
                offline boolean NOT NULL,
                code_hash text UNIQUE,
                code_expires_at bigint
            )
            """,
            "CREATE INDEX smart_authorization_expires_at ON smart_authorization (expires_at)",
            """
            CREATE TABLE refresh_token (
                token_hash text PRIMARY KEY,
                authorization_id text NOT NULL,
                client text NOT NULL,
                patient text NOT NULL,
                scope text NOT NULL,
                permission_ids text[] NOT NULL,
                issued_at bigint NOT NULL,
                expires_at bigint NOT NULL,
                used boolean NOT NULL DEFAULT false
            )
            """,
        ],
        // 4: the ledger's version, raised by every commit that registers, grants or revokes,
        // so that servers sharing the database reload their ledger when another one changed it.
        [
            "CREATE TABLE ledger_version (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)",
            "INSERT INTO ledger_version (id, version) VALUES (1, 0)",
        ],
        // 5: FHIR search: the token and date values of every resource, by parameter
        // (`PostgresTrustStore.migrate()` backfills them from the stored resources).
        SearchSQL.schema,
        // 6: token rows say whether their resource has one `date` value (`migrate()` indexes
        // every stored resource again).
        SearchSQL.hullSingleUpgrade,
        // 7: a compartment in (type, id) byte order, as `Patient/$everything` pages it (the
        // primary key follows the database's collation, which need not be bytewise).
        [#"CREATE INDEX IF NOT EXISTS fhir_resource_compartment_order ON fhir_resource (patient, type COLLATE "C", id COLLATE "C")"#],
        // 8: token rows carry their hull's width class, before `hull_low` in the value index
        // (both ends of a date range are then index ranges); set for the rows already there.
        SearchSQL.hullSpanUpgrade,
        // 9: health cards (issue 33): who wrote each resource's current version, so that
        // `$health-cards-issue` signs only what the operator's card sources wrote (resources
        // stored before have no writer, and are not signed).
        [
            """
            CREATE TABLE IF NOT EXISTS fhir_resource_writer (
                patient text NOT NULL,
                type text NOT NULL,
                id text NOT NULL,
                version_id bigint NOT NULL,
                writer text NOT NULL,
                PRIMARY KEY (patient, type, id)
            )
            """,
        ],
        // 10: SMART Health Links (issue 37): links hosted for wallets, their files, file
        // locations and access log.
        [
            """
            CREATE TABLE IF NOT EXISTS shared_link (
                id text PRIMARY KEY, owner text NOT NULL, flags text NOT NULL, label text, expires_at bigint, created_at bigint NOT NULL,
                updated_at bigint NOT NULL, passcode_hash text, attempts_left bigint CHECK (attempts_left >= 0), revoked_at bigint
            )
            """,
            "CREATE INDEX IF NOT EXISTS shared_link_owner ON shared_link (owner, created_at)",
            """
            CREATE TABLE IF NOT EXISTS shared_link_file (
                link_id text NOT NULL, position bigint NOT NULL, content_type text NOT NULL, jwe text NOT NULL, PRIMARY KEY (link_id, position)
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS shared_link_location (token text PRIMARY KEY, link_id text NOT NULL, position bigint NOT NULL, \
            expires_at bigint NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS shared_link_location_expires_at ON shared_link_location (expires_at)",
            """
            CREATE TABLE IF NOT EXISTS shared_link_access (id text PRIMARY KEY, link_id text NOT NULL, recipient text NOT NULL, at bigint NOT NULL, \
            outcome text NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS shared_link_access_link ON shared_link_access (link_id, at)",
        ],
        // 11: Bulk Data export (issue 38): jobs and their files' chunks.
        [
            """
            CREATE TABLE IF NOT EXISTS export_job (
                id text PRIMARY KEY, client text NOT NULL, token_id text NOT NULL, scope text NOT NULL, kind text NOT NULL, request text NOT NULL,
                types text NOT NULL, since bigint, status text NOT NULL, transaction_time bigint NOT NULL, expires_at bigint NOT NULL,
                lease_owner text, lease_until bigint, progress text, error text
            )
            """,
            "CREATE INDEX IF NOT EXISTS export_job_expires_at ON export_job (expires_at)",
            """
            CREATE TABLE IF NOT EXISTS export_chunk (
                job_id text NOT NULL, type text NOT NULL, seq bigint NOT NULL, line_count bigint NOT NULL, data bytea NOT NULL,
                PRIMARY KEY (job_id, type, seq)
            )
            """,
        ],
        // 12: Bulk Data export: the Groups clients create to export.
        [
            "CREATE TABLE IF NOT EXISTS export_group (id text PRIMARY KEY, client text NOT NULL, members text NOT NULL, created_at bigint NOT NULL)",
        ],
        // 13: SMART Backend Services clients and their key sets.
        [
            """
            CREATE TABLE IF NOT EXISTS backend_client (client_id text PRIMARY KEY, client_name text, jwks text, jwks_uri text, \
            registered_at bigint NOT NULL)
            """,
        ],
        // 14: the checkpoints a witness cosigned (issue 38).
        [
            "CREATE TABLE IF NOT EXISTS cosigned_checkpoint (tree_size bigint PRIMARY KEY)",
            """
            INSERT INTO cosigned_checkpoint (tree_size) SELECT tree_size FROM checkpoint \
            WHERE length(note) - length(replace(note, '— ', '')) > 4 ON CONFLICT (tree_size) DO NOTHING
            """,
        ],
    ]

    /// The schema as lines: every column of the public tables, every index's definition and
    /// every constraint's, in a stable order.
    static func schema(_ store: PostgresTrustStore) async throws -> [String] {
        try await store.withConnection { connection, logger in
            var lines: [String] = []
            let queries = [
                """
                SELECT 'column ' || table_name || '.' || column_name || ' #' || ordinal_position || ' ' || data_type || ' ' || udt_name
                    || ' nullable=' || is_nullable || ' default=' || COALESCE(column_default, '-')
                FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
                """,
                "SELECT 'index ' || indexname || ': ' || indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname",
                """
                SELECT 'constraint ' || conrelid::regclass::text || '.' || conname || ': ' || pg_get_constraintdef(oid)
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1
                """,
            ]
            for sql in queries {
                for try await line in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) {
                    lines.append(line)
                }
            }
            return lines
        }
    }

    /// Applies ``migrationsBefore`` to `store`'s database as the store did before, with their
    /// versions recorded.
    static func migrateBefore(_ store: PostgresTrustStore) async throws {
        try await store.withTransaction { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.versionTable), logger: logger)
            for (offset, statements) in migrationsBefore.enumerated() {
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("INSERT INTO schema_version (version, applied_at) VALUES (\(offset + 1), 0)", logger: logger)
            }
        }
    }

    /// Runs `body` with a new empty database per name, dropped afterwards.
    static func withDatabases(_ count: Int, _ body: ([PostgresTrustStore]) async throws -> Void) async throws {
        let admin = try PostgresURL(try #require(PostgresTrustStoreTests.adminURL))
        let names = (0..<count).map { _ in "s_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
        for name in names { try await PostgresDatabaseAdmin.createDatabase(name, adminURL: admin, timeout: .seconds(120)) }
        let stores = names.map { PostgresTrustStore(url: admin.with(database: $0), connectionTimeout: .seconds(300), maximumConnections: 2) }
        let outcome: Result<Void, any Error>
        do {
            try await body(stores)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        for store in stores { await store.close() }
        for name in names { try? await PostgresDatabaseAdmin.dropDatabase(name, adminURL: admin, timeout: .seconds(120)) }
        try outcome.get()
    }

    @Test(.enabled(if: PostgresTrustStoreTests.adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresSchemaWrittenOnceIsTheExistingOne() async throws {
        try await Self.withDatabases(2) { stores in
            try await Self.migrateBefore(stores[0])
            try await stores[1].migrate()
            let expected = try await Self.schema(stores[0])
            let actual = try await Self.schema(stores[1])
            // Line by line, so that a failure names what differs.
            let differences = zip(actual, expected).filter { $0 != $1 }.map { "now: \($0)\nbefore: \($1)" }
            #expect(actual.count == expected.count)
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
            #expect(actual.contains { $0.hasPrefix("column access_token.permission_ids ") && $0.contains(" ARRAY _text ") })
            #expect(try await stores[1].schemaVersion() == Self.migrationsBefore.count)
        }
    }

    @Test(.enabled(if: PostgresTrustStoreTests.adminURL != nil, "OPENHEALTHKIT_POSTGRES_URL is not set: no PostgreSQL server to test against"))
    func postgresExistingDatabaseMigratesUnchanged() async throws {
        try await Self.withDatabases(1) { stores in
            let store = stores[0]
            try await Self.migrateBefore(store)
            let before = try await Self.schema(store)
            try await store.migrate()
            #expect(try await store.schemaVersion() == Self.migrationsBefore.count)
            #expect(try await Self.schema(store) == before)
        }
    }
}
