import FhirBlocks
import FhirBlocksStore
import PostgresNIO

extension PostgresTrustStore {
    /// One page of a compartment in (type, id) byte order (`COLLATE "C"`), read through the
    /// index `fhir_resource_compartment_order` (migration 7) and stopped after `limit` rows.
    public func resources(patient: CsiGuid, after: (type: String, id: String)?, limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        return try await withConnection { connection, logger in
            let query: PostgresQuery
            if let after {
                query = """
                    SELECT type, id, patient, version_id, last_updated, json FROM fhir_resource
                    WHERE patient = \(patient.rawValue) AND (type COLLATE "C", id COLLATE "C") > (\(after.type), \(after.id))
                    ORDER BY type COLLATE "C", id COLLATE "C" LIMIT \(Int64(limit))
                    """
            } else {
                query = """
                    SELECT type, id, patient, version_id, last_updated, json FROM fhir_resource
                    WHERE patient = \(patient.rawValue) ORDER BY type COLLATE "C", id COLLATE "C" LIMIT \(Int64(limit))
                    """
            }
            let rows = try await connection.query(query, logger: logger).collect()
            return try rows.map(PostgresRows.resource)
        }
    }
}
