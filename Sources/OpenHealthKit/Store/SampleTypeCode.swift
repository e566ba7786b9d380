import GRDB

/// A sample row's type as stored since v20-type-codes: `sample.type` holds a small integer code
/// and `sample_type` maps each code to its type identifier (one row per type ever stored; codes
/// are never reused or renumbered). A code below 128 takes one byte in the row and in each
/// index on `type`, where the identifier took 20 to 60.
///
/// The SQL fragments below map inside the statement, so a caller binds and reads identifiers as
/// before: a type never stored has no code, so a filter on it matches no row (no error), and
/// nothing is cached across transactions (a code another connection or process assigns, or one
/// a rolled-back transaction assigned, is never seen stale). Only the clear column changes:
/// sealed records, value blocks and rollup pages still bind the identifier in their associated
/// data, and the other tables (`deleted_object`, `recently_deleted`, `value_block`,
/// `rollup_page`, `source_priority`, ...) keep their identifier text.
enum SampleTypeCode {
    /// The code of the identifier bound at this `?`: NULL, matching no row, for a type never stored.
    static let parameter = "(SELECT id FROM sample_type WHERE identifier = ?)"

    /// `= code` or `IN codes` of the `count` identifiers bound at these `?`s, to follow `type`. One
    /// type is an equality, so that SQLite reads `sample_type_start` in start order (no sort for
    /// an `ORDER BY start ... LIMIT`), as it did for `IN (?)` on the identifier.
    static func matching(_ count: Int) -> String {
        count == 1 ? "= \(parameter)" : "IN (SELECT id FROM sample_type WHERE identifier IN (\(SQLPredicate.placeholders(count))))"
    }

    /// The identifier of the code in `column` (e.g. `s.type`).
    static func identifier(of column: String) -> String {
        "(SELECT identifier FROM sample_type WHERE id = \(column))"
    }

    /// The code of `identifier`, assigned (inside the caller's write transaction) on its first use.
    static func code(_ db: Database, for identifier: String) throws -> Int64 {
        let select = try db.cachedStatement(sql: "SELECT id FROM sample_type WHERE identifier = ?")
        if let code = try Int64.fetchOne(select, arguments: [identifier]) { return code }
        try db.execute(sql: "INSERT INTO sample_type (identifier) VALUES (?)", arguments: [identifier])
        return db.lastInsertedRowID
    }

    /// Codes by identifier for one write transaction (a batch names a few types: one lookup each).
    struct Cache {
        private var codes: [String: Int64] = [:]
        private var last: (identifier: String, code: Int64)?

        mutating func code(_ db: Database, for identifier: String) throws -> Int64 {
            if let last, last.identifier == identifier { return last.code }
            let code = try codes[identifier] ?? SampleTypeCode.code(db, for: identifier)
            codes[identifier] = code
            last = (identifier, code)
            return code
        }
    }
}
