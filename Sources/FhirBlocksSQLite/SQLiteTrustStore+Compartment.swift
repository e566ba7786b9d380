import FhirBlocks
import FhirBlocksStore
import GRDB
import GRDBSQLite

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

    /// One page of one type of a compartment in id byte order (``TrustSQL/typePage(patient:type:since:until:afterID:limit:dialect:linesOnly:)``):
    /// a range scan of the primary key `(patient, type, id)`, stopped after `limit` rows. The
    /// rows are the patient's (the statement asks for no other), so its column is not parsed
    /// again, and each JSON is copied once, from SQLite's memory.
    public func resources(patient: CsiGuid, type: String, since: Timestamp?, until: Timestamp?, afterID: String?,
                          limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        guard limit > 0 else { return [] }
        let page = TrustSQL.typePage(patient: patient.rawValue, type: type, since: since, until: until, afterID: afterID, limit: limit, dialect: .sqlite)
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

    /// The same page as ``resources(patient:type:since:until:afterID:limit:)`` as lines: each JSON
    /// copied from SQLite's memory straight into the one buffer (the columns read with the
    /// SQLite C API on the statement GRDB steps: no record, `Row` value or `Data` per resource),
    /// and the id of the last row kept for the next page's cursor.
    public func resourceLines(patient: CsiGuid, type: String, since: Timestamp?, until: Timestamp?, afterID: String?,
                              limit: Int, maximumBytes: Int) async throws(TrustStoreError) -> ResourceLines {
        guard limit > 0 else { return ResourceLines() }
        // Only the columns a line needs: the id (the next page's cursor) and the JSON.
        let page = TrustSQL.typePage(patient: patient.rawValue, type: type, since: since, until: until, afterID: afterID, limit: limit,
                                     dialect: .sqlite, linesOnly: true)
        return try await read { db in
            var lines = ResourceLines()
            lines.bytes.reserveCapacity(min(limit, 4_096) * 768)
            lines.ends.reserveCapacity(min(limit, 4_096))
            var lastID: [UInt8] = []
            let statement = try db.cachedStatement(sql: page.sql)
            let cursor = try Row.fetchCursor(statement, arguments: Self.arguments(page.arguments))
            let sqlite = statement.sqliteStatement
            while try cursor.next() != nil {
                // The pointer first, then its length (as SQLite documents); NULL is an empty JSON.
                let json = sqlite3_column_blob(sqlite, 1)
                let count = Int(sqlite3_column_bytes(sqlite, 1))
                if let json, count > 0 {
                    lines.append(UnsafeRawBufferPointer(start: json, count: count))
                } else {
                    lines.append(UnsafeRawBufferPointer(start: nil, count: 0))
                }
                let id = sqlite3_column_text(sqlite, 0)
                let idCount = Int(sqlite3_column_bytes(sqlite, 0))
                lastID.removeAll(keepingCapacity: true)
                if let id, idCount > 0 { lastID.append(contentsOf: UnsafeBufferPointer(start: id, count: idCount)) }
                // Bounded whatever the resources' sizes: the page ends at `maximumBytes`.
                if lines.bytes.count >= maximumBytes { break }
            }
            if !lines.ends.isEmpty { lines.lastID = String(decoding: lastID, as: UTF8.self) }
            return lines
        }
    }
}
