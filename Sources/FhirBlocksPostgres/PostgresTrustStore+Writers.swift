import FhirBlocks
import FhirBlocksStore
import Logging
import PostgresNIO

extension PostgresTrustStore {
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, with the
    /// version it wrote (table `fhir_resource_writer`, ``TrustSchema/fhirResourceWriter``).
    public func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter] {
        try await withConnection { connection, logger in
            let rows = try await connection.query("""
                SELECT id, version_id, writer FROM fhir_resource_writer WHERE patient = \(patient.rawValue) AND type = \(type)
                """, logger: logger).collect()
            var writers: [String: FHIRResourceWriter] = [:]
            for row in rows {
                let (id, version, text) = try PostgresRows.decode(row, as: (String, Int64, String).self, table: "fhir_resource_writer")
                guard let writer = CsiGuid(text), let versionID = Int(exactly: version) else { throw TrustStoreError.corrupt("fhir_resource_writer") }
                writers[id] = FHIRResourceWriter(versionID: versionID, writer: writer)
            }
            return writers
        }
    }
}
