import FhirBlocks
import FhirBlocksStore
import GRDB

extension SQLiteTrustStore {
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, with the
    /// version it wrote (table `fhir_resource_writer`, ``TrustSchema/fhirResourceWriter``).
    public func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter] {
        let statement = TrustSQL.resourceWriters(patient: patient, type: type)
        return try await read { db in
            let rows = try Self.fetchAll(db, statement)
            var writers: [String: FHIRResourceWriter] = [:]
            for row in rows {
                let text: String = row[2]
                guard let writer = CsiGuid(text) else { throw TrustStoreError.corrupt("fhir_resource_writer") }
                writers[row[0]] = FHIRResourceWriter(versionID: row[1], writer: writer)
            }
            return writers
        }
    }
}
