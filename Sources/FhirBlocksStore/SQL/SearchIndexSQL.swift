/// The statements that keep `fhir_search_token` and `fhir_search_date` in step with a resource's
/// current version, written once for both stores (no I/O): the resource's index rows deleted,
/// then its values (``SearchIndexEntries``) inserted, ``SQLDialect/rowsPerInsert`` rows a
/// statement. Each store runs them in the transaction that writes the resource
/// (``TrustSQL/Write/indexes``), and in the migration that indexes every stored resource.
public enum SearchIndexSQL {
    /// The columns of a `fhir_search_token` row, in the order the statements bind them;
    /// `hull_span` last (left out, with its value, in SQLite's migration to v6, which runs
    /// before the column exists).
    static let tokenColumns = ["patient", "type", "id", "param", "system", "code", "hull_low", "hull_high", "hull_single", "hull_span"]

    /// The columns of a `fhir_search_date` row, in the order the statements bind them.
    static let dateColumns = ["patient", "type", "id", "param", "low", "high"]

    /// The statements that replace the index rows of `record`'s resource with its current
    /// values, in order: the two deletes, then the token rows, then the date rows.
    /// - Parameters:
    ///   - record: The resource's current version.
    ///   - dialect: The database the statements run on (how many rows a statement inserts).
    ///   - hullSpan: Whether `fhir_search_token` has its `hull_span` column (false only in
    ///     SQLite's migration to v6).
    public static func writes(_ record: FHIRResourceRecord, dialect: SQLDialect, hullSpan: Bool = true) -> [SQLStatement] {
        let key: [SQLValue] = [.text(record.patient.rawValue), .text(record.type), .text(record.id)]
        var statements = [
            SQLStatement("DELETE FROM fhir_search_token WHERE patient = ? AND type = ? AND id = ?", key),
            SQLStatement("DELETE FROM fhir_search_date WHERE patient = ? AND type = ? AND id = ?", key),
        ]
        let entries = SearchIndexEntries(record: record)
        let hull: [SQLValue] = [.integer(entries.dateHull?.low), .integer(entries.dateHull?.high), .integer(entries.dateHullIsSingle ? 1 : 0)]
            + (hullSpan ? [.integer(entries.dateHull.map(SearchSQL.hullSpan).map(Int64.init))] : [])
        let tokenRows = entries.tokens.map { entry in
            key + [.text(entry.parameter), .text(entry.token.system), .text(entry.token.code)] + hull
        }
        let dateRows = entries.dates.map { entry in
            key + [.text(entry.parameter), .integer(entry.range.low), .integer(entry.range.high)]
        }
        statements += inserts(into: "fhir_search_token", columns: Array(tokenColumns.prefix(hullSpan ? 10 : 9)), rows: tokenRows,
                              rowsPerStatement: dialect.rowsPerInsert)
        statements += inserts(into: "fhir_search_date", columns: dateColumns, rows: dateRows, rowsPerStatement: dialect.rowsPerInsert)
        return statements
    }

    /// `INSERT INTO table (columns) VALUES (?, …), …` for `rows`, up to `rowsPerStatement`
    /// rows a statement.
    static func inserts(into table: String, columns: [String], rows: [[SQLValue]], rowsPerStatement: Int) -> [SQLStatement] {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        return stride(from: 0, to: rows.count, by: max(1, rowsPerStatement)).map { start in
            let chunk = rows[start..<min(rows.count, start + max(1, rowsPerStatement))]
            return SQLStatement(head + Array(repeating: row, count: chunk.count).joined(separator: ", "), chunk.flatMap { $0 })
        }
    }
}
