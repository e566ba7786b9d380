import FhirBlocksStore
import GRDB

/// The SQLite schema of the trust store, as GRDB migrations.
enum SQLiteTrustSchema {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
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
                """)
        }
        // Issued GUIDs expire: each issue deletes the old ones by time.
        migrator.registerMigration("v2-issued-guid-expiry") { db in
            try db.execute(sql: "CREATE INDEX issued_guid_issued_at ON issued_guid (issued_at)")
        }
        // SMART App Launch: dynamically registered public clients, authorizations waiting for the
        // wallet (with the code, by hash) and refresh tokens (by hash).
        migrator.registerMigration("v3-smart-app-launch") { db in
            try db.execute(sql: """
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
                """)
        }
        // The ledger's version: raised by every commit that registers, grants or revokes, so
        // that servers sharing the file reload their ledger when another one changed it.
        migrator.registerMigration("v4-ledger-version") { db in
            try db.execute(sql: """
                CREATE TABLE ledger_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
                INSERT INTO ledger_version (id, version) VALUES (1, 0);
                """)
        }
        // FHIR search: the token and date values of every resource, by parameter, backfilled
        // from the stored resources.
        migrator.registerMigration("v5-search-index") { db in
            for statement in SearchSQL.schema { try db.execute(sql: statement) }
        }
        // FHIR search: token rows say whether their resource has one `date` value (then a date
        // clause is tested on the row); every stored resource is indexed (again).
        migrator.registerMigration("v6-search-hull-single") { db in
            for statement in SearchSQL.hullSingleUpgrade { try db.execute(sql: statement) }
            try SQLiteSearchIndex.backfill(in: db, hullSpan: false)
        }
        // FHIR search: token rows carry their hull's width class, before `hull_low` in the
        // value index (both ends of a date range are then index ranges); set for the rows
        // already there from their hull.
        migrator.registerMigration("v7-search-hull-span") { db in
            for statement in SearchSQL.hullSpanUpgrade { try db.execute(sql: statement) }
        }
        // Health cards (issue 33): who wrote each resource's current version, so that
        // `$health-cards-issue` signs only what the operator's card sources wrote. Resources
        // stored before have no writer (and are not signed).
        migrator.registerMigration("v8-fhir-resource-writer") { db in
            try db.execute(sql: SQLiteResourceWriters.schema)
        }
        return migrator
    }()
}
