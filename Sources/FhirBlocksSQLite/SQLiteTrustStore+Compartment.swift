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

    /// One page of one type of a compartment in id byte order (``TrustSQL/typePage(patient:type:since:afterID:limit:dialect:)``):
    /// a range scan of the primary key `(patient, type, id)`, stopped after `limit` rows. The
    /// rows are the patient's (the statement asks for no other), so its column is not parsed
    /// again, and each JSON is copied once, from SQLite's memory.
    public func resources(patient: CsiGuid, type: String, since: Timestamp?, afterID: String?,
                          limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        let page = TrustSQL.typePage(patient: patient.rawValue, type: type, since: since, afterID: afterID, limit: limit, dialect: .sqlite)
        return try await read { db in
            var records: [FHIRResourceRecord] = []
            records.reserveCapacity(min(limit, 4_096))
            let rows = try Row.fetchCursor(db.cachedStatement(sql: page.sql), arguments: Self.arguments(page.arguments))
            while let row = try rows.next() {
                let json = try row.withUnsafeData(atIndex: 5) { data in data.map { $0.withUnsafeBytes { [UInt8]($0) } } ?? [] }
                records.append(FHIRResourceRecord(type: row[0], id: row[1], patient: patient, versionID: row[3],
                                                  lastUpdated: Timestamp(millisecondsSince1970: row[4]), json: json))
            }
            return records
        }
    }
}
