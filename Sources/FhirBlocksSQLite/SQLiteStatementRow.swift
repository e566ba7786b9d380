import FhirBlocksStore
import GRDB
import GRDBSQLite

/// The current row of a prepared statement, read through SQLite's C API by column position:
/// no GRDB `Row` (which copies the row and builds a table of its column names), no `Data`.
/// Valid only inside ``step(_:texts:_:)``'s closure.
struct SQLiteStatementRow {
    private let statement: SQLiteStatement

    /// Whether the column is NULL.
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    /// The column as an integer.
    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    /// The column's bytes (a blob's, or a text's UTF-8).
    func bytes(_ column: Int32) -> [UInt8] {
        // The pointer first, then its length (SQLite's documented order).
        guard let base = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column))))
    }

    /// The column as text (its UTF-8 as SQLite holds it; invalid sequences repaired).
    func text(_ column: Int32) -> String {
        // The pointer first, then its length (SQLite's documented order).
        guard let base = sqlite3_column_text(statement, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }

    /// The column as an integer, nil when NULL.
    func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    /// Binds `texts` to the statement's parameters (1, 2, …), steps it once and gives `body`
    /// the row it produced (nil: none); the statement is reset and its bindings cleared after.
    /// For a statement that yields at most one row, on the connection's own thread.
    static func step<T>(_ statement: Statement, texts: [String], _ body: (SQLiteStatementRow?) throws -> T) throws -> T {
        try bound(statement, texts.map(SearchSQLArgument.text)) { sqlite in
            switch sqlite3_step(sqlite) {
            case SQLITE_ROW: return try body(SQLiteStatementRow(statement: sqlite))
            case SQLITE_DONE: return try body(nil)
            case let code: throw failure(code)
            }
        }
    }

    /// Binds `arguments` to the statement's parameters (1, 2, …), steps it to its end giving
    /// `body` each row; the statement is reset and its bindings cleared after. On the
    /// connection's own thread.
    static func each(_ statement: Statement, arguments: [SearchSQLArgument], _ body: (SQLiteStatementRow) throws -> Void) throws {
        try bound(statement, arguments) { sqlite in
            while true {
                switch sqlite3_step(sqlite) {
                case SQLITE_ROW: try body(SQLiteStatementRow(statement: sqlite))
                case SQLITE_DONE: return
                case let code: throw failure(code)
                }
            }
        }
    }

    /// ``each(_:arguments:_:)`` for a `TrustSQL` statement whose values are texts and integers,
    /// none NULL (an id-list read's); any other value is refused before the statement runs.
    static func each(_ statement: Statement, values: [SQLValue], _ body: (SQLiteStatementRow) throws -> Void) throws {
        var arguments: [SearchSQLArgument] = []
        arguments.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .text(let text?): arguments.append(.text(text))
            case .integer(let number?): arguments.append(.integer(number))
            default: throw TrustStoreError.unavailable("SQLite: a statement value this read does not bind")
            }
        }
        try each(statement, arguments: arguments, body)
    }

    /// Resets the statement, binds `arguments` to its parameters (1, 2, …) and runs `body` on
    /// it; the statement is reset and its bindings cleared after.
    private static func bound<T>(_ statement: Statement, _ arguments: [SearchSQLArgument], _ body: (SQLiteStatement) throws -> T) throws -> T {
        let sqlite = statement.sqliteStatement
        // SQLite binds only to a statement that has not run or was reset since.
        try check(sqlite3_reset(sqlite))
        defer {
            sqlite3_reset(sqlite)
            sqlite3_clear_bindings(sqlite)
        }
        for (index, argument) in arguments.enumerated() {
            switch argument {
            case .text(let text): try bind(text, to: Int32(index + 1), of: sqlite)
            case .integer(let number): try check(sqlite3_bind_int64(sqlite, Int32(index + 1), number))
            }
        }
        return try body(sqlite)
    }

    private static func bind(_ text: String, to parameter: Int32, of sqlite: SQLiteStatement) throws {
        var text = text
        try text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else {
                // An empty text is bound as one (a NULL pointer would bind NULL).
                return try check(sqlite3_bind_text(sqlite, parameter, "", 0, sqliteTransient))
            }
            try base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                try check(sqlite3_bind_text(sqlite, parameter, chars, Int32(utf8.count), sqliteTransient))
            }
        }
    }

    private static func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw failure(code) }
    }

    private static func failure(_ code: Int32) -> TrustStoreError {
        .unavailable("SQLite: \(String(cString: sqlite3_errstr(code)))")
    }
}
