import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB
import GRDBSQLite

/// Applies a ``TrustChange`` inside one GRDB write transaction.
enum SQLiteTrustWriter {
    static func apply(_ change: TrustChange, in db: Database) throws -> [Int] {
        if let cutoff = change.issuedGuidsExpiringBefore {
            try db.execute(sql: "DELETE FROM issued_guid WHERE issued_at < ?", arguments: [cutoff.millisecondsSince1970])
        }
        for issued in change.issuedGuids {
            try db.execute(sql: "INSERT OR IGNORE INTO issued_guid (guid, issued_at) VALUES (?, ?)",
                           arguments: [issued.guid.rawValue, issued.issuedAt.millisecondsSince1970])
        }
        for registration in change.registrations {
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM registration WHERE csi = ?", arguments: [registration.csiGuid.rawValue]) == true {
                throw TrustStoreError.alreadyRegistered(registration.csiGuid.rawValue)
            }
            try db.execute(sql: """
                INSERT INTO registration (csi, spki, device_id, application_class, claims, registered_at) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [registration.csiGuid.rawValue, Data(registration.publicKey.spkiDER), registration.deviceId,
                                 registration.applicationClass, PublicClaimsStorage.encode(registration.claims),
                                 registration.registeredAt.millisecondsSince1970])
        }
        for permission in change.permissions {
            try db.execute(sql: """
                INSERT INTO permission (id, patient, grantor, grantee, scope, not_before, not_after, parent, granted_at, revoked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [permission.id.rawValue, permission.patient.rawValue, permission.grantor.rawValue, permission.grantee.rawValue,
                                 permission.scope.storageText, permission.window.notBefore.millisecondsSince1970,
                                 permission.window.notAfter.millisecondsSince1970, permission.parent?.rawValue,
                                 permission.grantedAt.millisecondsSince1970, permission.revokedAt?.millisecondsSince1970])
        }
        for revocation in change.revocations {
            try db.execute(sql: "UPDATE permission SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                           arguments: [revocation.revokedAt.millisecondsSince1970, revocation.id.rawValue])
        }
        if change.changesLedger {
            try db.execute(sql: "UPDATE ledger_version SET version = version + 1 WHERE id = 1")
        }
        for token in change.tokens {
            try db.execute(sql: """
                INSERT INTO access_token (token_hash, id, client, patient, scope, permission_ids, issued_at, expires_at, revoked)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [token.tokenHash, token.id, token.client.rawValue, token.patient.rawValue, token.scope.storageJSON,
                                 token.permissionIDs.map(\.rawValue).joined(separator: " "), token.issuedAt.millisecondsSince1970,
                                 token.expiresAt.millisecondsSince1970, token.revoked])
        }
        for hash in change.revokedTokenHashes {
            try db.execute(sql: "UPDATE access_token SET revoked = 1 WHERE token_hash = ?", arguments: [hash])
        }
        for write in change.resources {
            let record = write.record
            let current = try Int.fetchOne(db.cachedStatement(sql: "SELECT version_id FROM fhir_resource WHERE patient = ? AND type = ? AND id = ?"),
                                           arguments: [record.patient.rawValue, record.type, record.id]) ?? 0
            guard record.versionID == current + 1 else { throw TrustStoreError.conflict("\(record.type)/\(record.id)") }
            let arguments: StatementArguments = [record.type, record.id, record.patient.rawValue, record.versionID,
                                                 record.lastUpdated.millisecondsSince1970, Data(record.json)]
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO fhir_resource (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: arguments)
            try db.cachedStatement(sql: "INSERT INTO fhir_resource_history (type, id, patient, version_id, last_updated, json) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: arguments)
            try SQLiteSearchIndex.write(record, in: db)
            try SQLiteResourceWriters.record(write, in: db)
        }
        try applySmart(change, in: db)
        let indexes = change.auditEntries.isEmpty ? [] : try appendAudit(change.auditEntries, in: db)
        for checkpoint in change.checkpoints {
            try db.execute(sql: "INSERT OR IGNORE INTO checkpoint (tree_size, note) VALUES (?, ?)", arguments: [checkpoint.treeSize, checkpoint.note])
        }
        return indexes
    }

    /// ``apply(_:in:)`` in a transaction of its own (`BEGIN IMMEDIATE`, as GRDB begins its write
    /// transactions, and `COMMIT`, both cached statements), rolled back when anything fails.
    static func applyInTransaction(_ change: TrustChange, in db: Database) throws -> [Int] {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let indexes = try apply(change, in: db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return indexes
        } catch {
            // SQLite may have rolled back already (then there is nothing left to roll back).
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    /// The most rows one audit insert statement carries (4 parameters each).
    static let auditRowsPerInsert = 32

    /// `INSERT INTO audit_entry … VALUES (?, ?, ?, ?), …` with `rows` rows, for 1…``auditRowsPerInsert``.
    private static let auditInsertSQL: [String] = (0...auditRowsPerInsert).map { rows in
        "INSERT INTO audit_entry (idx, leaf_hash, canonical, signature_digest) VALUES "
            + Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Appends `entries` after the log's last index, in order, up to ``auditRowsPerInsert``
    /// rows a statement (each row count's statement prepared once per connection), and returns
    /// their indexes. The rows' values are bound through SQLite's C API (blobs copied straight
    /// from the entry's bytes), not boxed one by one in a `StatementArguments` array: GRDB
    /// runs a statement's own bindings with `execute()` once its arguments were set, so they are
    /// set (to none: every parameter NULL) for each statement first and then bound in place.
    static func appendAudit(_ entries: [PendingAuditEntry], in db: Database) throws -> [Int] {
        let first = (try Int.fetchOne(db.cachedStatement(sql: "SELECT MAX(idx) FROM audit_entry")) ?? -1) + 1
        var start = 0
        while start < entries.count {
            let rows = min(auditRowsPerInsert, entries.count - start)
            let sql = auditInsertSQL[rows]
            let statement = try db.cachedStatement(sql: sql)
            // No values: every parameter NULL and marked bound (an array of NULL arguments cost
            // more to build than the rows' own bindings).
            statement.setUncheckedArguments(StatementArguments())
            let sqlite = statement.sqliteStatement
            func check(_ code: Int32) throws {
                guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: sql) }
            }
            func bind(_ bytes: [UInt8], at parameter: Int32) throws {
                try bytes.withUnsafeBytes { buffer in
                    // An empty blob is bound as one (a NULL pointer would bind NULL).
                    if let base = buffer.baseAddress, !buffer.isEmpty {
                        try check(sqlite3_bind_blob(sqlite, parameter, base, Int32(buffer.count), sqliteTransient))
                    } else {
                        try check(sqlite3_bind_zeroblob(sqlite, parameter, 0))
                    }
                }
            }
            // SQLite binds only to a statement that has not run or was reset since.
            try check(sqlite3_reset(sqlite))
            for row in 0..<rows {
                let pending = entries[start + row]
                let parameter = Int32(4 * row)
                try check(sqlite3_bind_int64(sqlite, parameter + 1, Int64(first + start + row)))
                try bind(pending.leafHash.bytes, at: parameter + 2)
                try bind(pending.canonicalBytes, at: parameter + 3)
                if let digest = pending.signatureDigest {
                    try check(sqlite3_bind_text(sqlite, parameter + 4, digest, -1, sqliteTransient))
                } else {
                    try check(sqlite3_bind_null(sqlite, parameter + 4))
                }
            }
            try statement.execute()
            start += rows
        }
        return Array(first..<(first + entries.count))
    }

    /// The SMART App Launch part of a change: clients, conditional authorization writes,
    /// the purge of old authorizations, of expired pending ones and of clients never approved,
    /// refresh tokens.
    static func applySmart(_ change: TrustChange, in db: Database) throws {
        if let cutoff = change.smartAuthorizationsExpiringBefore?.millisecondsSince1970 {
            try db.execute(sql: """
                DELETE FROM smart_authorization WHERE expires_at < ? AND (code_expires_at IS NULL OR code_expires_at < ?)
                """, arguments: [cutoff, cutoff])
        }
        if let cutoff = change.pendingSmartAuthorizationsExpiredBefore?.millisecondsSince1970 {
            try db.execute(sql: "DELETE FROM smart_authorization WHERE status = ? AND expires_at < ?",
                           arguments: [SmartAuthorization.Status.pending.rawValue, cutoff])
        }
        if let cutoff = change.unapprovedSmartClientsRegisteredBefore?.millisecondsSince1970 {
            try db.execute(sql: """
                DELETE FROM smart_client WHERE registered_at < ?
                    AND NOT EXISTS (SELECT 1 FROM permission WHERE permission.grantee = smart_client.client_id)
                """, arguments: [cutoff])
        }
        for client in change.smartClients {
            try db.execute(sql: "INSERT INTO smart_client (client_id, redirect_uris, client_name, registered_at, public_key) VALUES (?, ?, ?, ?, ?)",
                           arguments: [client.clientID.rawValue, client.redirectURIs.joined(separator: "\n"), client.clientName,
                                       client.registeredAt.millisecondsSince1970, client.publicKey.map { Data($0.spkiDER) }])
        }
        for write in change.smartAuthorizations {
            let authorization = write.authorization
            let current = try String.fetchOne(db, sql: "SELECT status FROM smart_authorization WHERE id = ?", arguments: [authorization.id])
            guard current == write.expectedStatus?.rawValue else { throw TrustStoreError.conflict("smart_authorization") }
            try db.execute(sql: """
                INSERT OR REPLACE INTO smart_authorization (id, user_code, client, redirect_uri, requested_scope, state, code_challenge,
                    created_at, expires_at, status, patient, granted_scope, permission_ids, offline, code_hash, code_expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [authorization.id, authorization.userCode, authorization.client.rawValue, authorization.redirectURI,
                                 authorization.requestedScope, authorization.state, authorization.codeChallenge,
                                 authorization.createdAt.millisecondsSince1970, authorization.expiresAt.millisecondsSince1970,
                                 authorization.status.rawValue, authorization.patient?.rawValue, authorization.grantedScope?.storageJSON,
                                 authorization.permissionIDs.map(\.rawValue).joined(separator: " "), authorization.offline,
                                 authorization.codeHash, authorization.codeExpiresAt?.millisecondsSince1970])
        }
        for token in change.refreshTokens {
            try db.execute(sql: """
                INSERT INTO refresh_token (token_hash, authorization_id, client, patient, scope, permission_ids, issued_at, expires_at, used)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [token.tokenHash, token.authorizationID, token.client.rawValue, token.patient.rawValue, token.scope.storageJSON,
                                 token.permissionIDs.map(\.rawValue).joined(separator: " "), token.issuedAt.millisecondsSince1970,
                                 token.expiresAt.millisecondsSince1970, token.used])
        }
    }
}
