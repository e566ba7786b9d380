import FhirBlocks
import FhirBlocksStore
import NIOCore
import PostgresNIO

/// The reads of the ledger, tokens, resources and audit log: ``TrustSQL``'s statements, decoded
/// by position (``PostgresRows``).
extension PostgresTrustStore {
    // MARK: Identities

    public func issuedGuid(_ guid: CsiGuid) async throws(TrustStoreError) -> IssuedGuid? {
        guard let row = try await rows(TrustSQL.issuedGuid(guid)).first else { return nil }
        let (issuedAt) = try PostgresRows.decode(row, as: (Int64).self, table: "issued_guid")
        return IssuedGuid(guid: guid, issuedAt: Timestamp(millisecondsSince1970: issuedAt))
    }

    public func registration(_ csi: CsiGuid) async throws(TrustStoreError) -> CsiRegistration? {
        try await rows(TrustSQL.registration(csi)).first.map(PostgresRows.registration)
    }

    public func registrations() async throws(TrustStoreError) -> [CsiRegistration] {
        try await rows(TrustSQL.registrations(dialect: .postgres)).map(PostgresRows.registration)
    }

    // MARK: Permissions

    public func permissions() async throws(TrustStoreError) -> [Permission] {
        try await rows(TrustSQL.permissions(dialect: .postgres)).map(PostgresRows.permission)
    }

    public func ledgerVersion() async throws(TrustStoreError) -> Int64 {
        guard let row = try await rows(TrustSQL.ledgerVersion).first else { throw .corrupt("ledger_version") }
        let (version) = try PostgresRows.decode(row, as: (Int64).self, table: "ledger_version")
        return version
    }

    // MARK: Tokens

    public func token(hash: String) async throws(TrustStoreError) -> StoredAccessToken? {
        try await rows(TrustSQL.accessToken(hash: hash)).first.map(PostgresRows.token)
    }

    // MARK: FHIR resources

    public func resource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> FHIRResourceRecord? {
        try await rows(TrustSQL.resource(patient: patient, type: type, id: id)).first.map(PostgresRows.resource)
    }

    /// One statement (one snapshot): the version row, joined with the resource when it exists.
    public func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource {
        guard let row = try await rows(TrustSQL.ledgerVersionAndResource(patient: patient, type: type, id: id)).first else {
            throw .corrupt("ledger_version")
        }
        let table = "fhir_resource"
        let (version, versionID, lastUpdated, json) = try PostgresRows.decode(row, as: (Int64, Int64?, Int64?, ByteBuffer?).self, table: table)
        guard let versionID else { return LedgerVersionAndResource(ledgerVersion: version, resource: nil) }
        guard let lastUpdated, let json, let number = Int(exactly: versionID) else { throw .corrupt(table) }
        let record = FHIRResourceRecord(type: type, id: id, patient: patient, versionID: number,
                                        lastUpdated: Timestamp(millisecondsSince1970: lastUpdated), json: PostgresRows.bytes(json))
        return LedgerVersionAndResource(ledgerVersion: version, resource: record)
    }

    public func resources(patient: CsiGuid, type: String?) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        try await rows(TrustSQL.resources(patient: patient, type: type, dialect: .postgres)).map(PostgresRows.resource)
    }

    // MARK: Audit log

    public func auditCount() async throws(TrustStoreError) -> Int {
        guard let row = try await rows(TrustSQL.auditCount).first else { return 0 }
        let (count) = try PostgresRows.decode(row, as: (Int64).self, table: "audit_entry")
        return Int(count)
    }

    public func auditRecords(from: Int, limit: Int) async throws(TrustStoreError) -> [AuditRecord] {
        try await rows(TrustSQL.auditRecords(from: from, limit: limit)).map(PostgresRows.auditRecord)
    }

    public func auditRecords(signatureDigest: String) async throws(TrustStoreError) -> [AuditRecord] {
        try await rows(TrustSQL.auditRecords(signatureDigest: signatureDigest)).map(PostgresRows.auditRecord)
    }

    public func checkpoints() async throws(TrustStoreError) -> [StoredCheckpoint] {
        try await rows(TrustSQL.checkpoints).map(Self.checkpoint)
    }

    public func latestCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint? {
        try await rows(SQLStatement(TrustSQL.latestCheckpoint)).first.map(Self.checkpoint)
    }

    public func latestCosignedCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint? {
        try await rows(SQLStatement(TrustSQL.latestCosignedCheckpoint)).first.map(Self.checkpoint)
    }

    static func checkpoint(_ row: PostgresRow) throws(TrustStoreError) -> StoredCheckpoint {
        let (size, note) = try PostgresRows.decode(row, as: (Int64, String).self, table: "checkpoint")
        return StoredCheckpoint(treeSize: Int(size), note: note)
    }

    // MARK: Plumbing

    /// The rows of one ``TrustSQL`` statement, on a pooled connection.
    func rows(_ statement: SQLStatement) async throws(TrustStoreError) -> [PostgresRow] {
        try await withConnection { connection, logger in
            try await connection.query(Self.query(statement), logger: logger).collect()
        }
    }
}
