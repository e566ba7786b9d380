import FhirBlocks
import FhirBlocksStore
import Logging
import PostgresNIO

extension PostgresTrustStore {
    /// The last recorded writer of each resource of `type` in `patient`'s compartment, with the
    /// version it wrote (table `fhir_resource_writer`, ``TrustSchema/fhirResourceWriter``).
    public func resourceWriters(patient: CsiGuid, type: String) async throws(TrustStoreError) -> [String: FHIRResourceWriter] {
        var writers: [String: FHIRResourceWriter] = [:]
        for row in try await rows(TrustSQL.resourceWriters(patient: patient, type: type)) {
            let (id, version, text) = try PostgresRows.decode(row, as: (String, Int64, String).self, table: "fhir_resource_writer")
            guard let writer = CsiGuid(text), let versionID = Int(exactly: version) else { throw .corrupt("fhir_resource_writer") }
            writers[id] = FHIRResourceWriter(versionID: versionID, writer: writer)
        }
        return writers
    }
}
