import FhirBlocks

/// The reads both stores run, written once like the writes: each statement names its columns in
/// the order the stores decode them, and orders its rows the same way on both databases (text
/// in byte order: SQLite's `BINARY` collation, `COLLATE "C"` on PostgreSQL, whose default
/// collation follows the locale).
extension TrustSQL {
    // MARK: Columns

    /// The columns a registration row is read as, in order.
    public static let registrationColumns = "csi, spki, device_id, application_class, claims, registered_at"

    /// The columns a permission row is read as, in order.
    public static let permissionColumns = "id, patient, grantor, grantee, scope, not_before, not_after, parent, granted_at, revoked_at"

    /// The columns an access token row is read as, in order.
    public static let accessTokenColumns = "token_hash, id, client, patient, scope, permission_ids, issued_at, expires_at, revoked"

    /// The columns a SMART client row is read as, in order.
    public static let smartClientColumns = "client_id, redirect_uris, client_name, registered_at, public_key"

    /// The columns a SMART authorization row is read as, in order.
    public static let smartAuthorizationColumns = """
        id, user_code, client, redirect_uri, requested_scope, state, code_challenge, created_at, expires_at, status, patient, \
        granted_scope, permission_ids, offline, code_hash, code_expires_at
        """

    /// The columns an audit entry is read as, in order.
    public static let auditColumns = "idx, leaf_hash, canonical"

    // MARK: Ledger

    /// When the GUID was handed out (`issued_at`), if it is still kept.
    public static func issuedGuid(_ guid: CsiGuid) -> SQLStatement {
        SQLStatement("SELECT issued_at FROM issued_guid WHERE guid = ?", [.text(guid.rawValue)])
    }

    /// The registration of `csi` (``registrationColumns``), if any.
    public static func registration(_ csi: CsiGuid) -> SQLStatement {
        SQLStatement("SELECT \(registrationColumns) FROM registration WHERE csi = ?", [.text(csi.rawValue)])
    }

    /// Every registration (``registrationColumns``), oldest first: by `registered_at`, then by
    /// csiGuid in byte order.
    public static func registrations(dialect: SQLDialect) -> SQLStatement {
        SQLStatement("SELECT \(registrationColumns) FROM registration ORDER BY registered_at, \(dialect.byteOrdered("csi"))")
    }

    /// Every permission (``permissionColumns``), revoked ones included, oldest grant first: by
    /// `granted_at`, then by id in byte order.
    public static func permissions(dialect: SQLDialect) -> SQLStatement {
        SQLStatement("SELECT \(permissionColumns) FROM permission ORDER BY granted_at, \(dialect.byteOrdered("id"))")
    }

    /// The ledger's version (one row, `version`).
    public static let ledgerVersion = SQLStatement("SELECT version FROM ledger_version WHERE id = 1")

    /// The ledger's version and, when the resource is stored, its `version_id`, `last_updated`
    /// and `json` (NULL otherwise), in one statement: one snapshot. One row, or none when the
    /// version row is missing.
    public static func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) -> SQLStatement {
        SQLStatement("""
            SELECT v.version, r.version_id, r.last_updated, r.json FROM ledger_version v
            LEFT JOIN fhir_resource r ON r.patient = ? AND r.type = ? AND r.id = ? WHERE v.id = 1
            """, [.text(patient.rawValue), .text(type), .text(id)])
    }

    // MARK: Tokens

    /// The access token whose SHA-256 is `hash` (``accessTokenColumns``), if stored.
    public static func accessToken(hash: String) -> SQLStatement {
        SQLStatement("SELECT \(accessTokenColumns) FROM access_token WHERE token_hash = ?", [.text(hash)])
    }

    /// The SMART client `clientID` (``smartClientColumns``), if registered.
    public static func smartClient(_ clientID: CsiGuid) -> SQLStatement {
        SQLStatement("SELECT \(smartClientColumns) FROM smart_client WHERE client_id = ?", [.text(clientID.rawValue)])
    }

    /// The first `limit` SMART clients by registration (``smartClientColumns``): for the CORS
    /// origins their redirect URIs allow.
    public static func smartClients(limit: Int) -> SQLStatement {
        SQLStatement("SELECT \(smartClientColumns) FROM smart_client ORDER BY registered_at, client_id LIMIT ?", [.integer(Int64(max(0, limit)))])
    }

    /// How many SMART clients are registered (one row, a count).
    public static let smartClientCount = SQLStatement("SELECT COUNT(*) FROM smart_client")

    /// The SMART authorization with this id (``smartAuthorizationColumns``), if kept.
    public static func smartAuthorization(id: String) -> SQLStatement {
        SQLStatement("SELECT \(smartAuthorizationColumns) FROM smart_authorization WHERE id = ?", [.text(id)])
    }

    /// The SMART authorization with this user code (``smartAuthorizationColumns``), if kept.
    public static func smartAuthorization(userCode: String) -> SQLStatement {
        SQLStatement("SELECT \(smartAuthorizationColumns) FROM smart_authorization WHERE user_code = ?", [.text(userCode)])
    }

    /// The SMART authorization whose code has this SHA-256 (``smartAuthorizationColumns``), if kept.
    public static func smartAuthorization(codeHash: String) -> SQLStatement {
        SQLStatement("SELECT \(smartAuthorizationColumns) FROM smart_authorization WHERE code_hash = ?", [.text(codeHash)])
    }

    // MARK: Resources

    /// The current resource `type`/`id` of `patient`'s compartment (``resourceColumns``), if stored.
    public static func resource(patient: CsiGuid, type: String, id: String) -> SQLStatement {
        SQLStatement("SELECT \(resourceColumns) FROM fhir_resource WHERE patient = ? AND type = ? AND id = ?",
                     [.text(patient.rawValue), .text(type), .text(id)])
    }

    /// The current resources of `patient`'s compartment (``resourceColumns``), of `type` only
    /// when given, by type then id, both in byte order.
    public static func resources(patient: CsiGuid, type: String?, dialect: SQLDialect) -> SQLStatement {
        let order = " ORDER BY \(dialect.byteOrdered("type")), \(dialect.byteOrdered("id"))"
        guard let type else {
            return SQLStatement("SELECT \(resourceColumns) FROM fhir_resource WHERE patient = ?" + order, [.text(patient.rawValue)])
        }
        return SQLStatement("SELECT \(resourceColumns) FROM fhir_resource WHERE patient = ? AND type = ?" + order,
                            [.text(patient.rawValue), .text(type)])
    }

    /// The current resources of `type` in `patient`'s compartment whose ids are among `ids`
    /// (``resourceColumns``), in no particular order; an id not stored gives no row, and one
    /// given more than once one row (each id is listed once, in the order first given). One
    /// statement per ``SQLDialect/valuesPerList`` ids (none for no ids), each matching its ids
    /// as ``SQLDialect/among(_:_:)`` writes it.
    public static func resources(patient: CsiGuid, type: String, ids given: [String], dialect: SQLDialect) -> [SQLStatement] {
        var seen = Set<String>(minimumCapacity: given.count)
        let ids = given.filter { seen.insert($0).inserted }
        var statements: [SQLStatement] = []
        var start = 0
        while start < ids.count {
            let end = start + min(dialect.valuesPerList, ids.count - start)
            let list = dialect.among("id", Array(ids[start..<end]))
            statements.append(SQLStatement("SELECT \(resourceColumns) FROM fhir_resource WHERE patient = ? AND type = ? AND \(list.sql)",
                                           [.text(patient.rawValue), .text(type)] + list.arguments))
            start = end
        }
        return statements
    }

    /// The patients among `patients` whose compartments hold (or held, before a deletion) a
    /// resource `type`/`id`: `patient` of `fhir_resource_history` (every version a commit
    /// wrote, a deletion's included), read through its primary key (`patient`, `type`, `id`, …)
    /// one patient of the list at a time, one row per patient. One statement per
    /// ``SQLDialect/valuesPerList`` patients (none for none), each matching them as
    /// ``SQLDialect/among(_:_:)`` writes it: a backend token granted by many patients finds the
    /// holders of an id in one statement (PostgreSQL) or one per 512 patients (SQLite), not
    /// one per patient.
    public static func resourceHolders(type: String, id: String, among given: [CsiGuid], dialect: SQLDialect) -> [SQLStatement] {
        var seen = Set<String>(minimumCapacity: given.count)
        let patients = given.map(\.rawValue).filter { seen.insert($0).inserted }
        var statements: [SQLStatement] = []
        var start = 0
        while start < patients.count {
            let end = start + min(dialect.valuesPerList, patients.count - start)
            let list = dialect.among("patient", Array(patients[start..<end]))
            statements.append(SQLStatement("SELECT DISTINCT patient FROM fhir_resource_history WHERE type = ? AND id = ? AND \(list.sql)",
                                           [.text(type), .text(id)] + list.arguments))
            start = end
        }
        return statements
    }

    /// Every stored resource (``resourceColumns``), in no particular order: what the search
    /// index's backfill indexes (``SearchIndexSQL/writes(_:dialect:hullSpan:)`` for each), in
    /// the migration that adds the index or changes its rows.
    public static let everyResource = SQLStatement("SELECT \(resourceColumns) FROM fhir_resource")

    /// The recorded writers (`id`, `version_id`, `writer`) of the resources of `type` in
    /// `patient`'s compartment.
    public static func resourceWriters(patient: CsiGuid, type: String) -> SQLStatement {
        SQLStatement("SELECT id, version_id, writer FROM fhir_resource_writer WHERE patient = ? AND type = ?",
                     [.text(patient.rawValue), .text(type)])
    }

    // MARK: Audit log

    /// How many entries the log has (one row, a count).
    public static let auditCount = SQLStatement("SELECT COUNT(*) FROM audit_entry")

    /// Up to `limit` entries (``auditColumns``) from index `from` on, in index order (none for a
    /// `limit` of 0 or less; a negative `from` is 0).
    public static func auditRecords(from: Int, limit: Int) -> SQLStatement {
        SQLStatement("SELECT \(auditColumns) FROM audit_entry WHERE idx >= ? ORDER BY idx LIMIT ?",
                     [.integer(Int64(max(0, from))), .integer(Int64(max(0, limit)))])
    }

    /// The entries (``auditColumns``) whose signed request carried a signature with this
    /// digest, in index order.
    public static func auditRecords(signatureDigest: String) -> SQLStatement {
        SQLStatement("SELECT \(auditColumns) FROM audit_entry WHERE signature_digest = ? ORDER BY idx", [.text(signatureDigest)])
    }

    /// Every checkpoint (`tree_size`, `note`), by tree size ascending.
    public static let checkpoints = SQLStatement("SELECT tree_size, note FROM checkpoint ORDER BY tree_size")
}

extension SQLDialect {
    /// `column` (text) as it sorts in byte order: as it is on SQLite (`BINARY` collation),
    /// `column COLLATE "C"` on PostgreSQL.
    func byteOrdered(_ column: String) -> String {
        switch self {
        case .sqlite: column
        case .postgres: column + #" COLLATE "C""#
        }
    }
}
