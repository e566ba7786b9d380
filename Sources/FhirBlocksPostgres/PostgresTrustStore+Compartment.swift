import FhirBlocks
import FhirBlocksStore
import PostgresNIO

extension PostgresTrustStore {
    /// One page of a compartment in (type, id) byte order (`COLLATE "C"`,
    /// ``TrustSQL/compartmentPage(patient:after:limit:dialect:)``), read through the index
    /// `fhir_resource_compartment_order` (migration 7) and stopped after `limit` rows.
    public func resources(patient: CsiGuid, after: (type: String, id: String)?, limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        let query = Self.query(TrustSQL.compartmentPage(patient: patient.rawValue, after: after, limit: limit, dialect: .postgres))
        return try await withConnection { connection, logger in
            let rows = try await connection.query(query, logger: logger).collect()
            return try rows.map(PostgresRows.resource)
        }
    }

    /// One page of one type of a compartment in id byte order (`COLLATE "C"`,
    /// ``TrustSQL/typePage(patient:type:since:until:afterID:limit:dialect:linesOnly:)``), read through the index
    /// `fhir_resource_compartment_order` and stopped after `limit` rows.
    public func resources(patient: CsiGuid, type: String, since: Timestamp?, until: Timestamp?, afterID: String?,
                          limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        let query = Self.query(TrustSQL.typePage(patient: patient.rawValue, type: type, since: since, until: until, afterID: afterID, limit: limit,
                                                 dialect: .postgres))
        return try await withConnection { connection, logger in
            let rows = try await connection.query(query, logger: logger).collect()
            return try rows.map(PostgresRows.resource)
        }
    }
}
