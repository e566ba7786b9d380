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

    /// The holders of `type/id` among `patients` (``TrustSQL/resourceHolders(type:id:among:dialect:)``: one statement,
    /// the patients bound as one `text[]`).
    public func resourceHolders(type: String, id: String, among patients: [CsiGuid]) async throws(TrustStoreError) -> [CsiGuid] {
        var holders: Set<CsiGuid> = []
        for statement in TrustSQL.resourceHolders(type: type, id: id, among: patients, dialect: .postgres) {
            for row in try await rows(statement) {
                let text = try PostgresRows.decode(row, as: String.self, table: "fhir_resource_history")
                guard let patient = CsiGuid(text) else { throw .corrupt("fhir_resource_history") }
                holders.insert(patient)
            }
        }
        return holders.sorted { $0.rawValue < $1.rawValue }
    }
}
