/// The trust store's schema, written once for both databases: its tables (``tables``) and the
/// migrations that create them (``migrations``), which each store applies in order — SQLite as
/// GRDB migrations named by ``TrustSchemaMigration/name``, PostgreSQL as numbered versions in
/// `schema_version` (``TrustSchemaMigration/postgresVersion(of:)``). The databases differ only
/// where ``SQLDialect`` says, and in the few places a step names the databases it runs on
/// (an index one of them was first given alone): a database created by this schema is the
/// one each store created before it was written once (`TrustSchemaTests`,
/// `PostgresSchemaTests`).
///
/// Times are 64-bit milliseconds since 1970 (`Timestamp`). On PostgreSQL,
/// identifiers are `text` and are sorted with `COLLATE "C"` (byte order, as SQLite's) wherever
/// an order is promised.
public enum TrustSchema {
    // MARK: Tables

    /// GUIDs `util/getGloballyUniqueIdentifier` handed out, until they expire.
    public static let issuedGuid = SQLTable("issued_guid", [
        SQLColumn("guid", .text, primaryKey: true), SQLColumn("issued_at", .int64),
    ])
    /// Registered CSIs: their key (SPKI DER) and public claims.
    public static let registration = SQLTable("registration", [
        SQLColumn("csi", .text, primaryKey: true), SQLColumn("spki", .bytes), SQLColumn("device_id", .text),
        SQLColumn("application_class", .text), SQLColumn("claims", .text), SQLColumn("registered_at", .int64),
    ])
    /// Permissions, revoked ones included (`revoked_at`).
    public static let permission = SQLTable("permission", [
        SQLColumn("id", .text, primaryKey: true), SQLColumn("patient", .text), SQLColumn("grantor", .text), SQLColumn("grantee", .text),
        SQLColumn("scope", .text), SQLColumn("not_before", .int64), SQLColumn("not_after", .int64), SQLColumn("parent", .text, nullable: true),
        SQLColumn("granted_at", .int64), SQLColumn("revoked_at", .int64, nullable: true),
    ])
    /// Nonces seen, until they expire.
    public static let nonce = SQLTable("nonce", [SQLColumn("key", .text, primaryKey: true), SQLColumn("expires_at", .int64)])
    /// SMOAC authorization codes, until taken or expired.
    public static let authCode = SQLTable("auth_code", [
        SQLColumn("code", .text, primaryKey: true), SQLColumn("client", .text), SQLColumn("patient", .text), SQLColumn("scope", .text),
        SQLColumn("permission_ids", .textList), SQLColumn("issued_at", .int64), SQLColumn("expires_at", .int64),
    ])
    /// Access tokens, by the SHA-256 of the token.
    public static let accessToken = SQLTable("access_token", [
        SQLColumn("token_hash", .text, primaryKey: true), SQLColumn("id", .text), SQLColumn("client", .text), SQLColumn("patient", .text),
        SQLColumn("scope", .text), SQLColumn("permission_ids", .textList), SQLColumn("issued_at", .int64), SQLColumn("expires_at", .int64),
        SQLColumn("revoked", .boolean, defaultValue: false),
    ])
    /// The current version of each FHIR resource, by compartment.
    public static let fhirResource = SQLTable("fhir_resource", [
        SQLColumn("type", .text), SQLColumn("id", .text), SQLColumn("patient", .text),
        SQLColumn("version_id", .int64, check: "version_id >= 1", checkOn: [.postgres]),
        SQLColumn("last_updated", .int64), SQLColumn("json", .bytes),
    ], primaryKey: ["patient", "type", "id"])
    /// Every version of each FHIR resource.
    public static let fhirResourceHistory = SQLTable("fhir_resource_history", [
        SQLColumn("type", .text), SQLColumn("id", .text), SQLColumn("version_id", .int64), SQLColumn("patient", .text),
        SQLColumn("last_updated", .int64), SQLColumn("json", .bytes),
    ], primaryKey: ["patient", "type", "id", "version_id"])
    /// The audit log: dense indexes from 0, the Merkle leaf hash, the canonical entry.
    public static let auditEntry = SQLTable("audit_entry", [
        SQLColumn("idx", .int64, primaryKey: true, check: "idx >= 0", checkOn: [.postgres]), SQLColumn("leaf_hash", .bytes),
        SQLColumn("canonical", .bytes), SQLColumn("signature_digest", .text, nullable: true),
    ], withoutRowID: false)
    /// Signed checkpoint notes, by tree size.
    public static let checkpoint = SQLTable("checkpoint", [SQLColumn("tree_size", .int64, primaryKey: true), SQLColumn("note", .text)],
                                            withoutRowID: false)
    /// The checkpoints a witness cosigned (`health audit witness` stored cosignature lines on
    /// their notes), by tree size: `GET /audit/checkpoint` finds the newest one in one indexed row.
    public static let cosignedCheckpoint = SQLTable("cosigned_checkpoint", [SQLColumn("tree_size", .int64, primaryKey: true)],
                                                    withoutRowID: false)
    /// SMART App Launch: dynamically registered public clients.
    public static let smartClient = SQLTable("smart_client", [
        SQLColumn("client_id", .text, primaryKey: true), SQLColumn("redirect_uris", .textList), SQLColumn("client_name", .text, nullable: true),
        SQLColumn("registered_at", .int64), SQLColumn("public_key", .bytes, nullable: true),
    ])
    /// SMART App Launch: authorizations waiting for the wallet, granted (with the code, by
    /// hash) or denied.
    public static let smartAuthorization = SQLTable("smart_authorization", [
        SQLColumn("id", .text, primaryKey: true), SQLColumn("user_code", .text, unique: true), SQLColumn("client", .text),
        SQLColumn("redirect_uri", .text), SQLColumn("requested_scope", .text), SQLColumn("state", .text, nullable: true),
        SQLColumn("code_challenge", .text), SQLColumn("created_at", .int64), SQLColumn("expires_at", .int64), SQLColumn("status", .text),
        SQLColumn("patient", .text, nullable: true), SQLColumn("granted_scope", .text, nullable: true), SQLColumn("permission_ids", .textList),
        SQLColumn("offline", .boolean), SQLColumn("code_hash", .text, nullable: true, unique: true),
        SQLColumn("code_expires_at", .int64, nullable: true),
    ])
    /// SMART App Launch: refresh tokens, by hash, used once each.
    public static let refreshToken = SQLTable("refresh_token", [
        SQLColumn("token_hash", .text, primaryKey: true), SQLColumn("authorization_id", .text), SQLColumn("client", .text),
        SQLColumn("patient", .text), SQLColumn("scope", .text), SQLColumn("permission_ids", .textList), SQLColumn("issued_at", .int64),
        SQLColumn("expires_at", .int64), SQLColumn("used", .boolean, defaultValue: false),
    ])
    /// The ledger's version: one row, raised by every commit that registers, grants or revokes.
    public static let ledgerVersion = SQLTable("ledger_version", [
        SQLColumn("id", .int32, primaryKey: true, check: "id = 1"), SQLColumn("version", .int64),
    ], withoutRowID: false)
    /// Health cards (issue 33): who wrote each resource's current version.
    public static let fhirResourceWriter = SQLTable("fhir_resource_writer", [
        SQLColumn("patient", .text), SQLColumn("type", .text), SQLColumn("id", .text), SQLColumn("version_id", .int64),
        SQLColumn("writer", .text),
    ], primaryKey: ["patient", "type", "id"])

    /// SMART Health Links (issue 37): the links hosted for wallets (the passcode as a scrypt
    /// hash, the wrong-passcode attempts left, counted here so servers sharing the database
    /// share the count).
    public static let sharedLink = SQLTable("shared_link", [
        SQLColumn("id", .text, primaryKey: true), SQLColumn("owner", .text), SQLColumn("flags", .text), SQLColumn("label", .text, nullable: true),
        SQLColumn("expires_at", .int64, nullable: true), SQLColumn("created_at", .int64), SQLColumn("updated_at", .int64),
        SQLColumn("passcode_hash", .text, nullable: true), SQLColumn("attempts_left", .int64, nullable: true, check: "attempts_left >= 0"),
        SQLColumn("revoked_at", .int64, nullable: true),
    ])
    /// SMART Health Links: each link's encrypted files (JWE compact), in order.
    public static let sharedLinkFile = SQLTable("shared_link_file", [
        SQLColumn("link_id", .text), SQLColumn("position", .int64), SQLColumn("content_type", .text), SQLColumn("jwe", .text),
    ], primaryKey: ["link_id", "position"])
    /// SMART Health Links: file locations handed out in manifests, until they expire.
    public static let sharedLinkLocation = SQLTable("shared_link_location", [
        SQLColumn("token", .text, primaryKey: true), SQLColumn("link_id", .text), SQLColumn("position", .int64), SQLColumn("expires_at", .int64),
    ])
    /// SMART Health Links: who asked for each link, when, and what was answered.
    public static let sharedLinkAccess = SQLTable("shared_link_access", [
        SQLColumn("id", .text, primaryKey: true), SQLColumn("link_id", .text), SQLColumn("recipient", .text), SQLColumn("at", .int64),
        SQLColumn("outcome", .text),
    ])

    /// Every table above, in the order the migrations create them (the search index's tables
    /// are ``SearchSQL/schema``).
    public static let tables = [issuedGuid, registration, permission, nonce, authCode, accessToken, fhirResource, fhirResourceHistory,
                                auditEntry, checkpoint, smartClient, smartAuthorization, refreshToken, ledgerVersion, fhirResourceWriter,
                                sharedLink, sharedLinkFile, sharedLinkLocation, sharedLinkAccess, cosignedCheckpoint]

    // MARK: Migrations

    /// The migrations, in order. A database records the ones it applied (SQLite: GRDB's
    /// `grdb_migrations`, by name; PostgreSQL: `schema_version`, by number): append new ones,
    /// never change or reorder one that shipped.
    public static let migrations: [TrustSchemaMigration] = [
        TrustSchemaMigration("v1", [
            .table(issuedGuid), .table(registration), .table(permission),
            .index(SQLIndex("permission_grantee", on: "permission", ["grantee"]), on: [.sqlite]),
            .table(nonce),
            .index(SQLIndex("nonce_expires_at", on: "nonce", ["expires_at"]), on: [.postgres]),
            .table(authCode),
            .index(SQLIndex("auth_code_expires_at", on: "auth_code", ["expires_at"]), on: [.postgres]),
            .table(accessToken), .table(fhirResource), .table(fhirResourceHistory), .table(auditEntry),
            // The same index under the name each store first gave it.
            .index(SQLIndex("audit_entry_signature", on: "audit_entry", ["signature_digest"], where: "signature_digest IS NOT NULL"),
                   on: [.sqlite]),
            .index(SQLIndex("audit_entry_signature_digest", on: "audit_entry", ["signature_digest"], where: "signature_digest IS NOT NULL"),
                   on: [.postgres]),
            .table(checkpoint),
        ]),
        // Issued GUIDs expire: each issue deletes the old ones by time.
        TrustSchemaMigration("v2-issued-guid-expiry", [.index(SQLIndex("issued_guid_issued_at", on: "issued_guid", ["issued_at"]))]),
        // SMART App Launch: dynamically registered public clients, authorizations waiting for
        // the wallet (with the code, by hash) and refresh tokens (by hash).
        TrustSchemaMigration("v3-smart-app-launch", [
            .table(smartClient), .table(smartAuthorization),
            .index(SQLIndex("smart_authorization_expires_at", on: "smart_authorization", ["expires_at"])),
            .table(refreshToken),
        ]),
        // The ledger's version, raised by every commit that registers, grants or revokes, so
        // that servers sharing the database reload their ledger when another one changed it.
        TrustSchemaMigration("v4-ledger-version", [
            .table(ledgerVersion), .statements(["INSERT INTO ledger_version (id, version) VALUES (1, 0)"]),
        ]),
        // FHIR search: the token and date values of every resource, by parameter.
        TrustSchemaMigration("v5-search-index", [.statements(SearchSQL.schema)]),
        // FHIR search: token rows say whether their resource has one `date` value (then a date
        // clause is tested on the row); every stored resource is indexed (again).
        TrustSchemaMigration("v6-search-hull-single", [.statements(SearchSQL.hullSingleUpgrade)], reindexesResources: true),
        // A compartment in (type, id) byte order, as `Patient/$everything` pages it: the
        // primary key follows the database's collation, which need not be bytewise on
        // PostgreSQL (SQLite's is, BINARY).
        TrustSchemaMigration("compartment-order", [
            .index(SQLIndex("fhir_resource_compartment_order", on: "fhir_resource", ["patient", #"type COLLATE "C""#, #"id COLLATE "C""#]),
                   ifNotExists: true),
        ], on: [.postgres]),
        // FHIR search: token rows carry their hull's width class, before `hull_low` in the
        // value index (both ends of a date range are then index ranges); set for the rows
        // already there from their hull.
        TrustSchemaMigration("v7-search-hull-span", [.statements(SearchSQL.hullSpanUpgrade)]),
        // Health cards (issue 33): who wrote each resource's current version, so that
        // `$health-cards-issue` signs only what the operator's card sources wrote. Resources
        // stored before have no writer (and are not signed).
        TrustSchemaMigration("v8-fhir-resource-writer", [.table(fhirResourceWriter, ifNotExists: [.postgres])]),
        // SMART Health Links (issue 37): links hosted for wallets, their files, the file
        // locations handed out and the access log. `IF NOT EXISTS`, as every migration after
        // the first may run again on PostgreSQL (a database taken back to an earlier version).
        TrustSchemaMigration("v9-shared-links", [
            .table(sharedLink, ifNotExists: Set(SQLDialect.allCases)),
            .index(SQLIndex("shared_link_owner", on: "shared_link", ["owner", "created_at"]), ifNotExists: true),
            .table(sharedLinkFile, ifNotExists: Set(SQLDialect.allCases)),
            .table(sharedLinkLocation, ifNotExists: Set(SQLDialect.allCases)),
            .index(SQLIndex("shared_link_location_expires_at", on: "shared_link_location", ["expires_at"]), ifNotExists: true),
            .table(sharedLinkAccess, ifNotExists: Set(SQLDialect.allCases)),
            .index(SQLIndex("shared_link_access_link", on: "shared_link_access", ["link_id", "at"]), ifNotExists: true),
        ]),
        // Bulk Data export (issue 38): jobs and their files' chunks (``ExportSQL``).
        ExportSQL.migration,
        // Bulk Data export: the Groups clients create to export.
        ExportSQL.groupMigration,
        // SMART Backend Services: clients registered with a key set (``BackendClientSQL``).
        BackendClientSQL.migration,
        // Issue 38: the checkpoints a witness cosigned, so that GET /audit/checkpoint reads the
        // newest in one row; those stored before are the notes with more signature lines ("— ")
        // than the log's own two.
        TrustSchemaMigration("v13-cosigned-checkpoint", [
            .table(cosignedCheckpoint, ifNotExists: Set(SQLDialect.allCases)),
            .statements([
                "INSERT INTO cosigned_checkpoint (tree_size) SELECT tree_size FROM checkpoint "
                    + "WHERE length(note) - length(replace(note, '— ', '')) > 4 ON CONFLICT (tree_size) DO NOTHING",
            ]),
        ]),
    ]

    /// The migrations `dialect` applies, in order.
    public static func migrations(for dialect: SQLDialect) -> [TrustSchemaMigration] {
        migrations.filter { $0.databases.contains(dialect) }
    }
}

/// One migration of ``TrustSchema``: its steps, and the databases it runs on.
public struct TrustSchemaMigration: Sendable, Hashable {
    /// One step of a migration.
    public enum Step: Sendable, Hashable {
        /// Creates a table (`IF NOT EXISTS` on the databases named).
        case table(SQLTable, ifNotExists: Set<SQLDialect> = [])
        /// Creates an index, on the databases named.
        case index(SQLIndex, on: Set<SQLDialect> = Set(SQLDialect.allCases), ifNotExists: Bool = false)
        /// Statements whose text is the same on both databases.
        case statements([String])
    }

    /// Its name: SQLite's GRDB migration identifier.
    public var name: String
    /// Its steps, in order.
    public var steps: [Step]
    /// The databases it runs on.
    public var databases: Set<SQLDialect>
    /// Whether every stored resource's search index rows are written again after it (SQLite
    /// in the migration itself, PostgreSQL once every migration is applied).
    public var reindexesResources: Bool

    /// Creates a migration.
    public init(_ name: String, _ steps: [Step], on databases: Set<SQLDialect> = Set(SQLDialect.allCases), reindexesResources: Bool = false) {
        self.name = name
        self.steps = steps
        self.databases = databases
        self.reindexesResources = reindexesResources
    }

    /// The statements it runs on `dialect`, in order.
    public func statements(_ dialect: SQLDialect) -> [String] {
        steps.flatMap { step -> [String] in
            switch step {
            case .table(let table, let ifNotExists): [table.create(dialect, ifNotExists: ifNotExists.contains(dialect))]
            case .index(let index, let databases, let ifNotExists): databases.contains(dialect) ? [index.create(ifNotExists: ifNotExists)] : []
            case .statements(let statements): statements
            }
        }
    }

    /// The PostgreSQL schema version of `migration` (its position among PostgreSQL's, from
    /// 1), nil if it does not run there.
    public static func postgresVersion(of name: String) -> Int? {
        TrustSchema.migrations(for: .postgres).firstIndex { $0.name == name }.map { $0 + 1 }
    }
}
