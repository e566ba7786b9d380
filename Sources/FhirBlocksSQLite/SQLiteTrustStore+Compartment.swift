import FhirBlocks
import FhirBlocksStore
import GRDB

extension SQLiteTrustStore {
    /// One page of a compartment in (type, id) byte order: a range scan of the primary key
    /// `(patient, type, id)` (BINARY collation: byte order), stopped after `limit` rows.
    public func resources(patient: CsiGuid, after: (type: String, id: String)?, limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        return try await read { db in
            let statement: Statement
            var arguments: StatementArguments = [patient.rawValue]
            if let after {
                statement = try db.cachedStatement(sql: """
                    SELECT \(SQLiteTrustRows.resourceColumns) FROM fhir_resource WHERE patient = ? AND (type, id) > (?, ?) ORDER BY type, id LIMIT ?
                    """)
                arguments += [after.type, after.id]
            } else {
                statement = try db.cachedStatement(sql: """
                    SELECT \(SQLiteTrustRows.resourceColumns) FROM fhir_resource WHERE patient = ? ORDER BY type, id LIMIT ?
                    """)
            }
            arguments += [limit]
            var records: [FHIRResourceRecord] = []
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() { records.append(try SQLiteTrustRows.resourceByPosition(row)) }
            return records
        }
    }
}
