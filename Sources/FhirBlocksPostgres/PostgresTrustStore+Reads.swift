import FhirBlocks
import FhirBlocksStore
import NIOCore
import PostgresNIO

extension PostgresTrustStore {
    // MARK: Identities

    public func issuedGuid(_ guid: CsiGuid) async throws(TrustStoreError) -> IssuedGuid? {
        try await withConnection { connection, logger in
            for try await issuedAt in try await connection.query("SELECT issued_at FROM issued_guid WHERE guid = \(guid.rawValue)", logger: logger)
                .decode(Int64.self) {
                return IssuedGuid(guid: guid, issuedAt: Timestamp(millisecondsSince1970: issuedAt))
            }
            return nil
        }
    }

    public func registration(_ csi: CsiGuid) async throws(TrustStoreError) -> CsiRegistration? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT csi, spki, device_id, application_class, claims, registered_at FROM registration WHERE csi = \(csi.rawValue)
                """, logger: logger).collect()
            return try rows.first.map(PostgresRows.registration)
        }
    }

    public func registrations() async throws(TrustStoreError) -> [CsiRegistration] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT csi, spki, device_id, application_class, claims, registered_at FROM registration ORDER BY csi COLLATE "C"
                """, logger: logger).collect()
            return try rows.map(PostgresRows.registration)
        }
    }

    // MARK: Permissions

    public func permissions() async throws(TrustStoreError) -> [Permission] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT id, patient, grantor, grantee, scope, not_before, not_after, parent, granted_at, revoked_at
                FROM permission ORDER BY granted_at, id COLLATE "C"
                """, logger: logger).collect()
            return try rows.map(PostgresRows.permission)
        }
    }

    public func ledgerVersion() async throws(TrustStoreError) -> Int64 {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT version FROM ledger_version WHERE id = 1", logger: logger).collect()
            guard let row = rows.first else { throw TrustStoreError.corrupt("ledger_version") }
            return try row.decode(Int64.self)
        }
    }

    // MARK: Tokens

    public func token(hash: String) async throws(TrustStoreError) -> StoredAccessToken? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT token_hash, id, client, patient, scope, permission_ids, issued_at, expires_at, revoked
                FROM access_token WHERE token_hash = \(hash)
                """, logger: logger).collect()
            return try rows.first.map(PostgresRows.token)
        }
    }

    // MARK: FHIR resources

    public func resource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> FHIRResourceRecord? {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT type, id, patient, version_id, last_updated, json FROM fhir_resource
                WHERE patient = \(patient.rawValue) AND type = \(type) AND id = \(id)
                """, logger: logger).collect()
            return try rows.first.map(PostgresRows.resource)
        }
    }

    /// One statement (one snapshot): the version row, joined with the resource when it exists.
    public func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT v.version, r.type, r.id, r.patient, r.version_id, r.last_updated, r.json FROM ledger_version v
                LEFT JOIN fhir_resource r ON r.patient = \(patient.rawValue) AND r.type = \(type) AND r.id = \(id)
                WHERE v.id = 1
                """, logger: logger).collect()
            guard let row = rows.first else { throw TrustStoreError.corrupt("ledger_version") }
            let table = "fhir_resource"
            let (version, resourceType, resourceID, resourcePatient, versionID, lastUpdated, json) =
                try PostgresRows.decode(row, as: (Int64, String?, String?, String?, Int64?, Int64?, ByteBuffer?).self, table: table)
            guard let resourceType else { return LedgerVersionAndResource(ledgerVersion: version, resource: nil) }
            guard let resourceID, let resourcePatient, let versionID, let lastUpdated, let json else { throw TrustStoreError.corrupt(table) }
            let record = FHIRResourceRecord(type: resourceType, id: resourceID, patient: try PostgresRows.csi(resourcePatient, table: table),
                                            versionID: Int(versionID), lastUpdated: Timestamp(millisecondsSince1970: lastUpdated),
                                            json: PostgresRows.bytes(json))
            return LedgerVersionAndResource(ledgerVersion: version, resource: record)
        }
    }

    public func resources(patient: CsiGuid, type: String?) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT type, id, patient, version_id, last_updated, json FROM fhir_resource
                WHERE patient = \(patient.rawValue) AND (\(type)::text IS NULL OR type = \(type))
                ORDER BY type COLLATE "C", id COLLATE "C"
                """, logger: logger).collect()
            return try rows.map(PostgresRows.resource)
        }
    }

    // MARK: Audit log

    public func auditCount() async throws(TrustStoreError) -> Int {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT COUNT(*) FROM audit_entry", logger: logger).collect()
            return try Int(rows.first?.decode(Int64.self) ?? 0)
        }
    }

    public func auditRecords(from: Int, limit: Int) async throws(TrustStoreError) -> [AuditRecord] {
        guard limit > 0 else { return [] }
        return try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT idx, leaf_hash, canonical FROM audit_entry WHERE idx >= \(Int64(max(0, from)))
                ORDER BY idx LIMIT \(Int64(limit))
                """, logger: logger).collect()
            return try rows.map(PostgresRows.auditRecord)
        }
    }

    public func auditRecords(signatureDigest: String) async throws(TrustStoreError) -> [AuditRecord] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT idx, leaf_hash, canonical FROM audit_entry WHERE signature_digest = \(signatureDigest) ORDER BY idx
                """, logger: logger).collect()
            return try rows.map(PostgresRows.auditRecord)
        }
    }

    public func checkpoints() async throws(TrustStoreError) -> [StoredCheckpoint] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("SELECT tree_size, note FROM checkpoint ORDER BY tree_size", logger: logger).collect()
            return try rows.map { row in
                let (size, note) = try PostgresRows.decode(row, as: (Int64, String).self, table: "checkpoint")
                return StoredCheckpoint(treeSize: Int(size), note: note)
            }
        }
    }

    public func latestCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint? {
        try await withConnection { connection, logger in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: TrustSQL.latestCheckpoint), logger: logger).collect()
            return try rows.first.map { row in
                let (size, note) = try PostgresRows.decode(row, as: (Int64, String).self, table: "checkpoint")
                return StoredCheckpoint(treeSize: Int(size), note: note)
            }
        }
    }
}
