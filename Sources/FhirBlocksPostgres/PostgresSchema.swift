import FhirBlocksStore

/// The PostgreSQL schema as numbered migrations. ``PostgresTrustStore/migrate()`` applies the
/// ones above the number recorded in `schema_version`, each in the same transaction as its
/// version row, under an advisory lock so that two servers starting together do not race.
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
    static let migrations: [[String]] = [
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
        // (``PostgresTrustStore/migrate()`` backfills them from the stored resources).
        SearchSQL.schema,
        // 6: token rows say whether their resource has one `date` value (``migrate()`` indexes
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
        PostgresResourceWriters.schema,
    ]

    /// The version that adds the search index.
    static let searchIndexVersion = 5

    /// The version after which every stored resource is indexed (again) in Swift (by
    /// ``PostgresTrustStore/migrate()`` once every version is applied: the rows have the
    /// newest columns).
    static let searchIndexBackfillVersion = 6

    /// The newest schema version.
    static var latestVersion: Int { migrations.count }
}
