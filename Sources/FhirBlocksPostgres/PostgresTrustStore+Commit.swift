import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

extension PostgresTrustStore {
    /// Applies `change` in one transaction.
    ///
    /// - Registrations are inserted with `ON CONFLICT DO NOTHING`; a csiGuid already present
    ///   (committed by anyone, or earlier in the same change) throws
    ///   ``TrustStoreError/alreadyRegistered(_:)`` and rolls the whole change back.
    /// - A revocation only sets `revoked_at` where it is still null: the first time is kept.
    /// - A resource write must carry the stored version + 1 (1 for a new resource), checked
    ///   and written in one statement; otherwise ``TrustStoreError/conflict(_:)``.
    /// - Audit entries take `LOCK TABLE audit_entry IN EXCLUSIVE MODE` (readers go on, other
    ///   writers of the log wait for this commit) and number from `MAX(idx) + 1`, so the log
    ///   stays dense and in commit order under concurrent commits.
    @discardableResult
    public func commit(_ change: TrustChange) async throws(TrustStoreError) -> [Int] {
        if change.isEmpty { return [] }
        return try await withTransaction { connection, logger in
            try await Self.apply(change, on: connection, logger: logger)
        }
    }

    private static func apply(_ change: TrustChange, on connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        if let cutoff = change.issuedGuidsExpiringBefore {
            try await connection.query("DELETE FROM issued_guid WHERE issued_at < \(cutoff.millisecondsSince1970)", logger: logger)
        }
        for issued in change.issuedGuids {
            try await connection.query("""
                INSERT INTO issued_guid (guid, issued_at) VALUES (\(issued.guid.rawValue), \(issued.issuedAt.millisecondsSince1970))
                ON CONFLICT (guid) DO NOTHING
                """, logger: logger)
        }
        for registration in change.registrations {
            let inserted = try await connection.query("""
                INSERT INTO registration (csi, spki, device_id, application_class, claims, registered_at)
                VALUES (\(registration.csiGuid.rawValue), \(ByteBuffer(bytes: registration.publicKey.spkiDER)), \(registration.deviceId),
                        \(registration.applicationClass), \(PublicClaimsStorage.encode(registration.claims)),
                        \(registration.registeredAt.millisecondsSince1970))
                ON CONFLICT (csi) DO NOTHING
                RETURNING csi
                """, logger: logger).collect()
            guard !inserted.isEmpty else { throw TrustStoreError.alreadyRegistered(registration.csiGuid.rawValue) }
        }
        for permission in change.permissions {
            do {
                try await connection.query("""
                    INSERT INTO permission (id, patient, grantor, grantee, scope, not_before, not_after, parent, granted_at, revoked_at)
                    VALUES (\(permission.id.rawValue), \(permission.patient.rawValue), \(permission.grantor.rawValue),
                            \(permission.grantee.rawValue), \(permission.scope.storageText),
                            \(permission.window.notBefore.millisecondsSince1970), \(permission.window.notAfter.millisecondsSince1970),
                            \(permission.parent?.rawValue), \(permission.grantedAt.millisecondsSince1970),
                            \(permission.revokedAt?.millisecondsSince1970))
                    """, logger: logger)
            } catch where PostgresErrorMapping.sqlState(of: error) == PostgresErrorMapping.uniqueViolation {
                throw TrustStoreError.conflict("permission \(permission.id.rawValue) exists")
            }
        }
        for revocation in change.revocations {
            try await connection.query("""
                UPDATE permission SET revoked_at = \(revocation.revokedAt.millisecondsSince1970)
                WHERE id = \(revocation.id.rawValue) AND revoked_at IS NULL
                """, logger: logger)
        }
        for token in change.tokens {
            do {
                try await connection.query("""
                    INSERT INTO access_token (token_hash, id, client, patient, scope, permission_ids, issued_at, expires_at, revoked)
                    VALUES (\(token.tokenHash), \(token.id), \(token.client.rawValue), \(token.patient.rawValue), \(token.scope.storageJSON),
                            \(token.permissionIDs.map(\.rawValue)), \(token.issuedAt.millisecondsSince1970),
                            \(token.expiresAt.millisecondsSince1970), \(token.revoked))
                    """, logger: logger)
            } catch where PostgresErrorMapping.sqlState(of: error) == PostgresErrorMapping.uniqueViolation {
                throw TrustStoreError.conflict("access token \(token.id) exists")
            }
        }
        if change.changesLedger {
            try await connection.query("UPDATE ledger_version SET version = version + 1 WHERE id = 1", logger: logger)
        }
        for hash in change.revokedTokenHashes {
            try await connection.query("UPDATE access_token SET revoked = true WHERE token_hash = \(hash)", logger: logger)
        }
        for write in change.resources {
            try await Self.write(write.record, on: connection, logger: logger)
            try await PostgresResourceWriters.record(write, on: connection, logger: logger)
        }
        try await applySmart(change, on: connection, logger: logger)
        var indexes: [Int] = []
        if !change.auditEntries.isEmpty {
            try await connection.query("LOCK TABLE audit_entry IN EXCLUSIVE MODE", logger: logger)
            let rows = try await connection.query("SELECT COALESCE(MAX(idx), -1) + 1 FROM audit_entry", logger: logger).collect()
            guard let first = rows.first else { throw TrustStoreError.corrupt("audit_entry") }
            let next = try first.decode(Int64.self)
            try await appendAudit(change.auditEntries, from: next, on: connection, logger: logger)
            indexes = (0..<change.auditEntries.count).map { Int(next) + $0 }
        }
        for checkpoint in change.checkpoints {
            try await connection.query("""
                INSERT INTO checkpoint (tree_size, note) VALUES (\(Int64(checkpoint.treeSize)), \(checkpoint.note))
                ON CONFLICT (tree_size) DO NOTHING
                """, logger: logger)
        }
        return indexes
    }

    /// The most rows one audit insert carries (4 parameters each).
    static let auditRowsPerInsert = 64

    /// Inserts `entries` with indexes from `first` on, up to ``auditRowsPerInsert`` rows a
    /// statement: one round trip for a usual group instead of one per entry.
    private static func appendAudit(_ entries: [PendingAuditEntry], from first: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        var start = 0
        while start < entries.count {
            let rows = min(auditRowsPerInsert, entries.count - start)
            var bindings = PostgresBindings(capacity: 4 * rows)
            var tuples: [String] = []
            tuples.reserveCapacity(rows)
            for offset in start..<(start + rows) {
                let pending = entries[offset]
                let parameter = 4 * (offset - start)
                tuples.append("($\(parameter + 1), $\(parameter + 2), $\(parameter + 3), $\(parameter + 4))")
                bindings.append(first + Int64(offset))
                bindings.append(ByteBuffer(bytes: pending.leafHash.bytes))
                bindings.append(ByteBuffer(bytes: pending.canonicalBytes))
                bindings.append(pending.signatureDigest)
            }
            let sql = "INSERT INTO audit_entry (idx, leaf_hash, canonical, signature_digest) VALUES " + tuples.joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            start += rows
        }
    }

    /// Writes version `record.versionID` of a resource if the stored version is the one before
    /// it (none for version 1), and keeps the version in `fhir_resource_history`.
    private static func write(_ record: FHIRResourceRecord, on connection: PostgresConnection, logger: Logger) async throws {
        let json = ByteBuffer(bytes: record.json)
        let version = Int64(record.versionID)
        let written: [PostgresRow]
        if record.versionID == 1 {
            written = try await connection.query("""
                INSERT INTO fhir_resource (type, id, patient, version_id, last_updated, json)
                VALUES (\(record.type), \(record.id), \(record.patient.rawValue), 1, \(record.lastUpdated.millisecondsSince1970), \(json))
                ON CONFLICT (patient, type, id) DO NOTHING
                RETURNING version_id
                """, logger: logger).collect()
        } else {
            written = try await connection.query("""
                UPDATE fhir_resource
                SET version_id = \(version), last_updated = \(record.lastUpdated.millisecondsSince1970), json = \(json)
                WHERE patient = \(record.patient.rawValue) AND type = \(record.type) AND id = \(record.id) AND version_id = \(version - 1)
                RETURNING version_id
                """, logger: logger).collect()
        }
        guard !written.isEmpty else { throw TrustStoreError.conflict("\(record.type)/\(record.id)") }
        try await connection.query("""
            INSERT INTO fhir_resource_history (type, id, version_id, patient, last_updated, json)
            VALUES (\(record.type), \(record.id), \(version), \(record.patient.rawValue), \(record.lastUpdated.millisecondsSince1970), \(json))
            ON CONFLICT (patient, type, id, version_id) DO NOTHING
            """, logger: logger)
        try await PostgresSearchIndex.write(record, on: connection, logger: logger)
    }
}
