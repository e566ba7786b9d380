import FhirBlocks

/// The statements both stores write with, written once (no I/O): standard SQL with `?`
/// placeholders (``SQLDialect/placeholders(_:)`` numbers them for PostgreSQL) and neutral
/// values (``SQLValue``) each store binds its way. SQLite (3.35 or later) and PostgreSQL both
/// run them as written: conflicts with `ON CONFLICT … DO NOTHING` or `DO UPDATE`, conditional
/// writes with `RETURNING`, so that a write that must change a row says whether it did by
/// returning one (``Write/expectsRow``).
///
/// ``writes(_:)`` turns a ``TrustChange`` into its statements in order; the store runs them in
/// one transaction, adds what is its own (the search index rows, ``FHIRResourceRecord`` by
/// ``FHIRResourceRecord`` after each resource; the audit entries, ``auditInsert(rows:)``) and
/// maps its database's unique violation to ``Write/onUniqueViolation``.
public enum TrustSQL {
    /// One statement of a change, with what its outcome means.
    public struct Write: Sendable, Hashable {
        /// The statement.
        public var statement: SQLStatement
        /// The error when the statement returns no row (it ends in `RETURNING`), nil when no
        /// row is expected.
        public var expectsRow: TrustStoreError?
        /// The error when the statement breaks a unique constraint, nil to let the database's
        /// error through.
        public var onUniqueViolation: TrustStoreError?
        /// The resource written, after whose statements the store writes its search index
        /// rows and recorded writer.
        public var indexes: FHIRResourceWrite?

        init(_ statement: SQLStatement, expectsRow: TrustStoreError? = nil, onUniqueViolation: TrustStoreError? = nil,
             indexes: FHIRResourceWrite? = nil) {
            self.statement = statement
            self.expectsRow = expectsRow
            self.onUniqueViolation = onUniqueViolation
            self.indexes = indexes
        }
    }

    /// The statements of `change` but its audit entries, in the order they run:
    ///
    /// - Registrations are inserted with `ON CONFLICT DO NOTHING RETURNING`: a csiGuid already
    ///   present (committed by anyone, or earlier in the same change) is
    ///   ``TrustStoreError/alreadyRegistered(_:)``.
    /// - A revocation only sets `revoked_at` where it is still null: the first time is kept.
    /// - A resource write must carry the stored version + 1 (1 for a new resource), checked
    ///   and written in one statement; otherwise ``TrustStoreError/conflict(_:)``.
    /// - A SMART authorization is inserted when new (``SmartAuthorizationWrite/expectedStatus``
    ///   nil) and updated only from the status expected; otherwise
    ///   ``TrustStoreError/conflict(_:)``.
    public static func writes(_ change: TrustChange) -> [Write] {
        var writes: [Write] = []
        if let cutoff = change.issuedGuidsExpiringBefore {
            writes.append(Write(SQLStatement("DELETE FROM issued_guid WHERE issued_at < ?", [.integer(cutoff.millisecondsSince1970)])))
        }
        for issued in change.issuedGuids {
            writes.append(Write(SQLStatement("INSERT INTO issued_guid (guid, issued_at) VALUES (?, ?) ON CONFLICT (guid) DO NOTHING",
                                             [.text(issued.guid.rawValue), .integer(issued.issuedAt.millisecondsSince1970)])))
        }
        for registration in change.registrations {
            writes.append(Write(SQLStatement("""
                INSERT INTO registration (csi, spki, device_id, application_class, claims, registered_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (csi) DO NOTHING RETURNING csi
                """, [.text(registration.csiGuid.rawValue), .bytes(registration.publicKey.spkiDER), .text(registration.deviceId),
                      .text(registration.applicationClass), .text(PublicClaimsStorage.encode(registration.claims)),
                      .integer(registration.registeredAt.millisecondsSince1970)]),
                expectsRow: .alreadyRegistered(registration.csiGuid.rawValue)))
        }
        for permission in change.permissions {
            writes.append(Write(SQLStatement("""
                INSERT INTO permission (id, patient, grantor, grantee, scope, not_before, not_after, parent, granted_at, revoked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(permission.id.rawValue), .text(permission.patient.rawValue), .text(permission.grantor.rawValue),
                      .text(permission.grantee.rawValue), .text(permission.scope.storageText),
                      .integer(permission.window.notBefore.millisecondsSince1970), .integer(permission.window.notAfter.millisecondsSince1970),
                      .text(permission.parent?.rawValue), .integer(permission.grantedAt.millisecondsSince1970),
                      .integer(permission.revokedAt?.millisecondsSince1970)]),
                onUniqueViolation: .conflict("permission \(permission.id.rawValue) exists")))
        }
        for revocation in change.revocations {
            writes.append(Write(SQLStatement("UPDATE permission SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                                             [.integer(revocation.revokedAt.millisecondsSince1970), .text(revocation.id.rawValue)])))
        }
        if change.changesLedger {
            writes.append(Write(SQLStatement("UPDATE ledger_version SET version = version + 1 WHERE id = 1")))
        }
        for token in change.tokens {
            writes.append(Write(SQLStatement("""
                INSERT INTO access_token (token_hash, id, client, patient, scope, permission_ids, issued_at, expires_at, revoked)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(token.tokenHash), .text(token.id), .text(token.client.rawValue), .text(token.patient.rawValue),
                      .text(token.scope.storageJSON), permissionIDs(token.permissionIDs), .integer(token.issuedAt.millisecondsSince1970),
                      .integer(token.expiresAt.millisecondsSince1970), .boolean(token.revoked)]),
                onUniqueViolation: .conflict("access token \(token.id) exists")))
        }
        for hash in change.revokedTokenHashes {
            writes.append(Write(SQLStatement("UPDATE access_token SET revoked = ? WHERE token_hash = ?", [.boolean(true), .text(hash)])))
        }
        for write in change.resources {
            writes += resourceWrites(write)
        }
        writes += smartWrites(change)
        for checkpoint in change.checkpoints {
            writes.append(Write(SQLStatement("INSERT INTO checkpoint (tree_size, note) VALUES (?, ?) ON CONFLICT (tree_size) DO NOTHING",
                                             [.integer(Int64(checkpoint.treeSize)), .text(checkpoint.note)])))
        }
        for checkpoint in change.cosignedCheckpoints {
            writes.append(Write(SQLStatement("UPDATE checkpoint SET note = ? WHERE tree_size = ?",
                                             [.text(checkpoint.note), .integer(Int64(checkpoint.treeSize))])))
            writes.append(Write(SQLStatement("INSERT INTO cosigned_checkpoint (tree_size) SELECT tree_size FROM checkpoint WHERE tree_size = ? "
                                                 + "ON CONFLICT (tree_size) DO NOTHING", [.integer(Int64(checkpoint.treeSize))])))
        }
        for access in change.sharedLinkAccesses { writes += LinkSQL.recordAccess(access).map { Write($0) } }
        return writes
    }

    /// Version `record.versionID` of a resource, written if the stored version is the one
    /// before it (none for version 1, or after a deletion), then kept in
    /// `fhir_resource_history`, then its writer (when the write names one: a row names the
    /// version it is about). A deletion removes the current version if it is the one before
    /// (its search index rows go with the empty JSON's none) and its writer row, and keeps
    /// the deletion in the history; it and a write after a deletion conflict when the history
    /// holds their version already.
    static func resourceWrites(_ write: FHIRResourceWrite) -> [Write] {
        let record = write.record
        let version = Int64(record.versionID)
        let (patient, type, id) = (SQLValue.text(record.patient.rawValue), SQLValue.text(record.type), SQLValue.text(record.id))
        let (lastUpdated, json) = (SQLValue.integer(record.lastUpdated.millisecondsSince1970), SQLValue.bytes(record.json))
        let conflict = TrustStoreError.conflict("\(record.type)/\(record.id)")
        let historyInsert = """
            INSERT INTO fhir_resource_history (type, id, version_id, patient, last_updated, json) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (patient, type, id, version_id) DO NOTHING
            """
        let historyArguments: [SQLValue] = [type, id, .integer(version), patient, lastUpdated, json]
        var writes: [Write] = []
        if record.isDeletion {
            writes.append(Write(SQLStatement("""
                DELETE FROM fhir_resource WHERE patient = ? AND type = ? AND id = ? AND version_id = ? RETURNING version_id
                """, [patient, type, id, .integer(version - 1)]), expectsRow: conflict))
            writes.append(Write(SQLStatement(historyInsert + " RETURNING version_id", historyArguments), expectsRow: conflict, indexes: write))
            writes.append(Write(SQLStatement("DELETE FROM fhir_resource_writer WHERE patient = ? AND type = ? AND id = ?", [patient, type, id])))
            return writes
        }
        if record.versionID == 1 || write.followsDeletion {
            writes.append(Write(SQLStatement("""
                INSERT INTO fhir_resource (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (patient, type, id) DO NOTHING RETURNING version_id
                """, [type, id, patient, .integer(version), lastUpdated, json]), expectsRow: conflict))
        } else {
            writes.append(Write(SQLStatement("""
                UPDATE fhir_resource SET version_id = ?, last_updated = ?, json = ?
                WHERE patient = ? AND type = ? AND id = ? AND version_id = ? RETURNING version_id
                """, [.integer(version), lastUpdated, json, patient, type, id, .integer(version - 1)]), expectsRow: conflict))
        }
        if write.followsDeletion {
            writes.append(Write(SQLStatement(historyInsert + " RETURNING version_id", historyArguments), expectsRow: conflict, indexes: write))
        } else {
            writes.append(Write(SQLStatement(historyInsert, historyArguments), indexes: write))
        }
        if let writer = write.writer {
            writes.append(Write(SQLStatement("""
                INSERT INTO fhir_resource_writer (patient, type, id, version_id, writer) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (patient, type, id) DO UPDATE SET version_id = excluded.version_id, writer = excluded.writer
                """, [patient, type, id, .integer(version), .text(writer.rawValue)])))
        }
        return writes
    }

    /// The SMART App Launch part of a change: the purge of old authorizations, of expired
    /// pending ones and of clients never approved, clients, conditional authorization writes,
    /// refresh tokens.
    static func smartWrites(_ change: TrustChange) -> [Write] {
        var writes: [Write] = []
        if let cutoff = change.smartAuthorizationsExpiringBefore?.millisecondsSince1970 {
            writes.append(Write(SQLStatement("""
                DELETE FROM smart_authorization WHERE expires_at < ? AND (code_expires_at IS NULL OR code_expires_at < ?)
                """, [.integer(cutoff), .integer(cutoff)])))
        }
        if let cutoff = change.pendingSmartAuthorizationsExpiredBefore?.millisecondsSince1970 {
            writes.append(Write(SQLStatement("DELETE FROM smart_authorization WHERE status = ? AND expires_at < ?",
                                             [.text(SmartAuthorization.Status.pending.rawValue), .integer(cutoff)])))
        }
        if let cutoff = change.unapprovedSmartClientsRegisteredBefore?.millisecondsSince1970 {
            writes.append(Write(SQLStatement("""
                DELETE FROM smart_client WHERE registered_at < ?
                    AND NOT EXISTS (SELECT 1 FROM permission WHERE permission.grantee = smart_client.client_id)
                """, [.integer(cutoff)])))
        }
        for client in change.smartClients {
            writes.append(Write(SQLStatement("""
                INSERT INTO smart_client (client_id, redirect_uris, client_name, registered_at, public_key) VALUES (?, ?, ?, ?, ?)
                """, [.text(client.clientID.rawValue), .textList(client.redirectURIs, separator: "\n"), .text(client.clientName),
                      .integer(client.registeredAt.millisecondsSince1970), .bytes(client.publicKey?.spkiDER)])))
        }
        for write in change.smartAuthorizations {
            let a = write.authorization
            if let expected = write.expectedStatus {
                writes.append(Write(SQLStatement("""
                    UPDATE smart_authorization SET status = ?, patient = ?, granted_scope = ?, permission_ids = ?, offline = ?, code_hash = ?,
                        code_expires_at = ?
                    WHERE id = ? AND status = ? RETURNING id
                    """, [.text(a.status.rawValue), .text(a.patient?.rawValue), .text(a.grantedScope?.storageJSON),
                          permissionIDs(a.permissionIDs), .boolean(a.offline), .text(a.codeHash), .integer(a.codeExpiresAt?.millisecondsSince1970),
                          .text(a.id), .text(expected.rawValue)]),
                    expectsRow: .conflict("smart_authorization")))
            } else {
                writes.append(Write(SQLStatement("""
                    INSERT INTO smart_authorization (id, user_code, client, redirect_uri, requested_scope, state, code_challenge, created_at,
                        expires_at, status, patient, granted_scope, permission_ids, offline, code_hash, code_expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, [.text(a.id), .text(a.userCode), .text(a.client.rawValue), .text(a.redirectURI), .text(a.requestedScope), .text(a.state),
                          .text(a.codeChallenge), .integer(a.createdAt.millisecondsSince1970), .integer(a.expiresAt.millisecondsSince1970),
                          .text(a.status.rawValue), .text(a.patient?.rawValue), .text(a.grantedScope?.storageJSON), permissionIDs(a.permissionIDs),
                          .boolean(a.offline), .text(a.codeHash), .integer(a.codeExpiresAt?.millisecondsSince1970)]),
                    expectsRow: .conflict("smart_authorization")))
            }
        }
        for token in change.refreshTokens {
            writes.append(Write(SQLStatement("""
                INSERT INTO refresh_token (token_hash, authorization_id, client, patient, scope, permission_ids, issued_at, expires_at, used)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(token.tokenHash), .text(token.authorizationID), .text(token.client.rawValue), .text(token.patient.rawValue),
                      .text(token.scope.storageJSON), permissionIDs(token.permissionIDs), .integer(token.issuedAt.millisecondsSince1970),
                      .integer(token.expiresAt.millisecondsSince1970), .boolean(token.used)])))
        }
        return writes
    }

    /// Permission ids as stored: a list, space-separated on SQLite.
    static func permissionIDs(_ ids: [PermissionID]) -> SQLValue {
        .textList(ids.map(\.rawValue), separator: " ")
    }

    // MARK: Compartment pages

    /// The columns a resource row is read as, in order.
    public static let resourceColumns = "type, id, patient, version_id, last_updated, json"

    /// Up to `limit` current resources of `patient`'s compartment after `after` in (type, id)
    /// byte order, in that order: one page of `Patient/$everything`. A range of an index in
    /// that order, stopped after `limit` rows: SQLite's primary key `(patient, type, id)`
    /// (BINARY collation, byte order); on PostgreSQL, whose primary key follows the database's
    /// collation, `fhir_resource_compartment_order` (`COLLATE "C"`).
    public static func compartmentPage(patient: String, after: (type: String, id: String)?, limit: Int, dialect: SQLDialect) -> SQLStatement {
        let (type, id) = dialect == .postgres ? (#"type COLLATE "C""#, #"id COLLATE "C""#) : ("type", "id")
        var sql = "SELECT \(resourceColumns) FROM fhir_resource WHERE patient = ?"
        var arguments: [SQLValue] = [.text(patient)]
        if let after {
            sql += " AND (\(type), \(id)) > (?, ?)"
            arguments += [.text(after.type), .text(after.id)]
        }
        return SQLStatement(sql + " ORDER BY \(type), \(id) LIMIT ?", arguments + [.integer(Int64(limit))])
    }

    /// Up to `limit` current resources of `type` in `patient`'s compartment whose ids come after
    /// `afterID` in byte order (from the first when nil), updated after `since` (strictly: the
    /// Bulk Data IG's `_since` is "changed after") when given and at or before `until` (the
    /// export's `transactionTime`) when given, in id byte order: one page of a Bulk Data export
    /// of one type. The range of the same index as ``compartmentPage(patient:after:limit:dialect:)``
    /// within one type (the times are checked on each row of it, not used to find them). It selects
    /// ``resourceColumns``, or only `id, json` when `linesOnly` (a page of NDJSON lines needs no more).
    public static func typePage(patient: String, type: String, since: Timestamp?, until: Timestamp? = nil, afterID: String?, limit: Int,
                                dialect: SQLDialect, linesOnly: Bool = false) -> SQLStatement {
        let (typeColumn, id) = dialect == .postgres ? (#"type COLLATE "C""#, #"id COLLATE "C""#) : ("type", "id")
        var sql = "SELECT \(linesOnly ? "id, json" : resourceColumns) FROM fhir_resource WHERE patient = ? AND \(typeColumn) = ?"
        var arguments: [SQLValue] = [.text(patient), .text(type)]
        if let afterID {
            sql += " AND \(id) > ?"
            arguments.append(.text(afterID))
        }
        if let since {
            sql += " AND last_updated > ?"
            arguments.append(.integer(since.millisecondsSince1970))
        }
        if let until {
            sql += " AND last_updated <= ?"
            arguments.append(.integer(until.millisecondsSince1970))
        }
        return SQLStatement(sql + " ORDER BY \(id) LIMIT ?", arguments + [.integer(Int64(limit))])
    }

    // MARK: Audit log

    /// The next index of the audit log (0 when empty).
    public static let nextAuditIndex = "SELECT COALESCE(MAX(idx), -1) + 1 FROM audit_entry"

    /// The checkpoint of the largest tree size (`tree_size`, `note`), or no row: the primary key's
    /// last entry.
    public static let latestCheckpoint = "SELECT tree_size, note FROM checkpoint ORDER BY tree_size DESC LIMIT 1"
    /// The newest checkpoint a witness cosigned: one row, by `cosigned_checkpoint`'s key.
    public static let latestCosignedCheckpoint = "SELECT checkpoint.tree_size, checkpoint.note FROM cosigned_checkpoint "
        + "JOIN checkpoint ON checkpoint.tree_size = cosigned_checkpoint.tree_size ORDER BY cosigned_checkpoint.tree_size DESC LIMIT 1"

    /// `INSERT INTO audit_entry (idx, leaf_hash, canonical, signature_digest) VALUES (?, ?, ?, ?), …`
    /// with `rows` rows: an integer, two byte strings and a text or NULL each.
    public static func auditInsert(rows: Int) -> String {
        "INSERT INTO audit_entry (idx, leaf_hash, canonical, signature_digest) VALUES "
            + Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    // MARK: Refresh tokens

    /// The columns a refresh token row is read as, in order.
    public static let refreshTokenColumns = "token_hash, authorization_id, client, patient, scope, permission_ids, issued_at, expires_at, used"

    /// Marks the refresh token `hash` used if it is not yet, in one statement, and returns its
    /// row as it was (``refreshTokenColumns``, `used` false): of concurrent callers exactly one
    /// gets the row, since each update waits for the one before it and then finds `used` set.
    /// No row for a token already used or never stored: ``refreshToken(hash:)`` then says which.
    public static func useRefreshToken(hash: String) -> SQLStatement {
        SQLStatement("""
            UPDATE refresh_token SET used = ? WHERE token_hash = ? AND used = ?
            RETURNING token_hash, authorization_id, client, patient, scope, permission_ids, issued_at, expires_at, NOT used AS used
            """, [.boolean(true), .text(hash), .boolean(false)])
    }

    /// The refresh token `hash` (``refreshTokenColumns``), if stored.
    public static func refreshToken(hash: String) -> SQLStatement {
        SQLStatement("SELECT \(refreshTokenColumns) FROM refresh_token WHERE token_hash = ?", [.text(hash)])
    }

    // MARK: Nonces and authorization codes

    /// Claims a nonce: a row comes back for a new key or an expired one (which is taken over),
    /// none for a live one, so of concurrent callers exactly one wins.
    public static func claimNonce(_ key: String, expiresAt: Timestamp, now: Timestamp) -> SQLStatement {
        SQLStatement("""
            INSERT INTO nonce (key, expires_at) VALUES (?, ?)
            ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE nonce.expires_at <= ?
            RETURNING 1
            """, [.text(key), .integer(expiresAt.millisecondsSince1970), .integer(now.millisecondsSince1970)])
    }

    /// Deletes the nonces and authorization codes expired at `now`.
    public static func purgeExpired(now: Timestamp) -> [SQLStatement] {
        [SQLStatement("DELETE FROM nonce WHERE expires_at <= ?", [.integer(now.millisecondsSince1970)]),
         SQLStatement("DELETE FROM auth_code WHERE expires_at <= ?", [.integer(now.millisecondsSince1970)])]
    }

    /// Stores an authorization code.
    public static func insertAuthorizationCode(_ code: AuthorizationCode) -> SQLStatement {
        SQLStatement("""
            INSERT INTO auth_code (code, client, patient, scope, permission_ids, issued_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(code.code), .text(code.client.rawValue), .text(code.patient.rawValue), .text(code.scope.storageJSON),
                  permissionIDs(code.permissionIDs), .integer(code.issuedAt.millisecondsSince1970), .integer(code.expiresAt.millisecondsSince1970)])
    }

    /// Deletes an authorization code and returns it (to exactly one caller).
    public static func takeAuthorizationCode(_ code: String) -> SQLStatement {
        SQLStatement("DELETE FROM auth_code WHERE code = ? RETURNING code, client, patient, scope, permission_ids, issued_at, expires_at",
                     [.text(code)])
    }
}
