import FhirBlocks
import FhirBlocksStore

extension PostgresTrustStore: ResourceHistoryStore {
    /// One row of `fhir_resource_history` by its primary key.
    public func resourceVersion(patient: CsiGuid, type: String, id: String, version: Int) async throws(TrustStoreError) -> FHIRResourceRecord? {
        try await rows(ResourceHistorySQL.version(patient: patient, type: type, id: id, version: version)).first.map(PostgresRows.resource)
    }

    /// A page of `fhir_resource_history`, newest first.
    public func resourceHistory(patient: CsiGuid, type: String, id: String?, after: ResourceHistoryCursor?, limit: Int) async throws(TrustStoreError)
        -> [FHIRResourceRecord] {
        try await rows(ResourceHistorySQL.history(patient: patient, type: type, id: id, after: after, limit: limit, dialect: .postgres))
            .map(PostgresRows.resource)
    }
}
