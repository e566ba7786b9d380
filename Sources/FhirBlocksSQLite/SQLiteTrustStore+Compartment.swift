import FhirBlocks
import FhirBlocksStore
import GRDB

extension SQLiteTrustStore {
    /// One page of a compartment in (type, id) byte order (``TrustSQL/compartmentPage(patient:after:limit:dialect:)``):
    /// a range scan of the primary key `(patient, type, id)` (BINARY collation: byte order),
    /// stopped after `limit` rows.
    public func resources(patient: CsiGuid, after: (type: String, id: String)?, limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        let page = TrustSQL.compartmentPage(patient: patient.rawValue, after: after, limit: limit, dialect: .sqlite)
        return try await read { db in
            var records: [FHIRResourceRecord] = []
            let rows = try Row.fetchCursor(db.cachedStatement(sql: page.sql), arguments: Self.arguments(page.arguments))
            while let row = try rows.next() { records.append(try SQLiteTrustRows.resourceByPosition(row)) }
            return records
        }
    }
}
