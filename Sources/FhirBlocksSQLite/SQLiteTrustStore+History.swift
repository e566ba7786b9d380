import FhirBlocks
import FhirBlocksStore
import GRDB

extension SQLiteTrustStore: ResourceHistoryStore {
    /// One row of `fhir_resource_history` by its primary key.
    public func resourceVersion(patient: CsiGuid, type: String, id: String, version: Int) async throws(TrustStoreError) -> FHIRResourceRecord? {
        let statement = ResourceHistorySQL.version(patient: patient, type: type, id: id, version: version)
        return try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
                .map { row in try SQLiteTrustRows.resourceByPosition(row) }
        }
    }

    /// A page of `fhir_resource_history`, newest first.
    public func resourceHistory(patient: CsiGuid, type: String, id: String?, after: ResourceHistoryCursor?, limit: Int) async throws(TrustStoreError)
        -> [FHIRResourceRecord] {
        let statement = ResourceHistorySQL.history(patient: patient, type: type, id: id, after: after, limit: limit, dialect: .sqlite)
        return try await read { db in
            var records: [FHIRResourceRecord] = []
            let rows = try Row.fetchCursor(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
            while let row = try rows.next() { records.append(try SQLiteTrustRows.resourceByPosition(row)) }
            return records
        }
    }
}
