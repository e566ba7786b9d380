/// The two databases the stores run on, and every way the SQL they are given differs between
/// them: column types, placeholders, booleans, how a list of strings is stored, SQLite's
/// `WITHOUT ROWID`, how many rows an insert carries, how a list of values is matched, and the
/// planner fences of a search.
/// ``TrustSchema``, ``TrustSQL``, ``SearchIndexSQL`` and ``SearchSQL`` write their SQL once and
/// ask the dialect for these.
public enum SQLDialect: Sendable, Hashable, CaseIterable {
    /// SQLite through GRDB (`FhirBlocksSQLite`).
    case sqlite
    /// PostgreSQL through postgres-nio (`FhirBlocksPostgres`).
    case postgres

    // MARK: Column types

    /// The type `type` is declared with: SQLite's type affinities in capitals, PostgreSQL's
    /// types in lower case (as the schema was first written for each).
    public func name(of type: SQLColumnType) -> String {
        switch (self, type) {
        case (.sqlite, .text), (.sqlite, .textList): "TEXT"
        case (.sqlite, .int64), (.sqlite, .int32), (.sqlite, .boolean): "INTEGER"
        case (.sqlite, .bytes): "BLOB"
        case (.postgres, .text): "text"
        case (.postgres, .textList): "text[]"
        case (.postgres, .int64): "bigint"
        case (.postgres, .int32): "integer"
        case (.postgres, .boolean): "boolean"
        case (.postgres, .bytes): "bytea"
        }
    }

    /// The literal of a boolean in a `DEFAULT`: `0`/`1` on SQLite (which stores booleans as
    /// integers), `false`/`true` on PostgreSQL.
    public func literal(_ value: Bool) -> String {
        switch self {
        case .sqlite: value ? "1" : "0"
        case .postgres: value ? "true" : "false"
        }
    }

    /// What follows a table's closing parenthesis: ` WITHOUT ROWID` on SQLite for a table
    /// whose primary key is its storage order (``SQLTable/withoutRowID``), nothing otherwise.
    func tableSuffix(withoutRowID: Bool) -> String {
        self == .sqlite && withoutRowID ? " WITHOUT ROWID" : ""
    }

    // MARK: Placeholders

    /// `sql` with its placeholders as this database writes them: `?` unchanged on SQLite,
    /// numbered `$1`, `$2`… on PostgreSQL. The statements given have no other `?` (no string
    /// literal or operator with one).
    public func placeholders(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        var numbered = ""
        numbered.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        for character in sql {
            if character == "?" {
                number += 1
                numbered += "$\(number)"
            } else {
                numbered.append(character)
            }
        }
        return numbered
    }

    // MARK: Rows a statement inserts

    /// How many rows one `INSERT … VALUES` of ``SearchIndexSQL`` carries: 1 on SQLite, whose
    /// store prepares the one-row statement once per connection and runs it per row (no round
    /// trip, and one cached statement per table); 64 on PostgreSQL, where every statement is a
    /// round trip (at most 640 values a statement, far below its 65,535).
    public var rowsPerInsert: Int {
        switch self {
        case .sqlite: 1
        case .postgres: 64
        }
    }

    // MARK: Lists of values

    /// The most values one list of ``among(_:_:)`` holds: 512 on SQLite, which binds each as a
    /// variable of its own (at most 32,766 a statement: far below); no bound on PostgreSQL,
    /// which binds the whole list as one array.
    public var valuesPerList: Int {
        switch self {
        case .sqlite: 512
        case .postgres: Int.max
        }
    }

    /// That `column` is one of `values` (1 to ``valuesPerList`` texts), as this database writes
    /// it, with the values to bind in order. On SQLite `column IN (?, ?, …)`, the list padded to
    /// a power of two by repeating its last value (which changes no membership), so that a
    /// handful of statement texts, each prepared once per connection, serve every length; on
    /// PostgreSQL `column = ANY(?)`, the values bound as one `text[]`.
    public func among(_ column: String, _ values: [String]) -> (sql: String, arguments: [SQLValue]) {
        switch self {
        case .sqlite:
            var width = 1
            while width < values.count { width <<= 1 }
            var arguments = values.map { SQLValue.text($0) }
            if let last = values.last { arguments += repeatElement(SQLValue.text(last), count: width - values.count) }
            return ("\(column) IN (" + Array(repeating: "?", count: width).joined(separator: ", ") + ")", arguments)
        case .postgres:
            // The separator is SQLite's way of storing a list; PostgreSQL binds the array itself.
            return ("\(column) = ANY(?)", [.textList(values, separator: " ")])
        }
    }

    // MARK: Search planner fences

    /// What ends a search probe's subquery: on PostgreSQL `OFFSET 0`, which keeps it a subplan
    /// run per driving row on the resource's own rows; nothing on SQLite (whose grammar has no
    /// `OFFSET` without `LIMIT`, and which needs no fence: it never turns a correlated `EXISTS`
    /// into a join, while PostgreSQL may plan one as a semi-join, without statistics as a
    /// nested loop over a value index).
    var probeEnd: String {
        switch self {
        case .sqlite: ""
        case .postgres: " OFFSET 0"
        }
    }

    /// A search probe's `param` column: on PostgreSQL an expression (`opaque(_:text:)`), so
    /// that only `(patient, type, id)` are index columns there and its planner, without
    /// statistics, cannot prefer the value index (`patient, type, param`, …) with `id` as a
    /// filter inside it; the column on SQLite, whose planner takes the index with the most
    /// constrained columns, `fhir_search_*_resource`.
    var probeParameter: String {
        switch self {
        case .sqlite: "x.param"
        case .postgres: opaque("x.param", text: true)
        }
    }

    /// `column` as an expression of the same value that no index serves: `+column` (a number
    /// on PostgreSQL; anything on SQLite), `(column || '')` for text on PostgreSQL.
    func opaque(_ column: String, text: Bool) -> String {
        switch self {
        case .sqlite: "+" + column
        case .postgres: text ? "(\(column) || '')" : "+" + column
        }
    }
}

/// The kinds of column the trust store's tables have, as ``SQLDialect/name(of:)`` declares
/// them on each database.
public enum SQLColumnType: Sendable, Hashable {
    /// Text (`TEXT`, `text`).
    case text
    /// A 64-bit integer: times in milliseconds, versions, indexes (`INTEGER`, `bigint`).
    case int64
    /// A 32-bit integer (`INTEGER`, `integer`).
    case int32
    /// Bytes (`BLOB`, `bytea`).
    case bytes
    /// A boolean (`INTEGER` 0 or 1, `boolean`).
    case boolean
    /// A list of strings: on SQLite one text, the strings joined by a separator the value
    /// names (``SQLValue/textList(_:separator:)``); a `text[]` on PostgreSQL.
    case textList
}

/// A value bound to a `?` of a ``TrustSQL`` statement; each store binds it its way.
public enum SQLValue: Sendable, Hashable {
    /// Text, or NULL.
    case text(String?)
    /// A 64-bit integer, or NULL.
    case integer(Int64?)
    /// Bytes (a blob, a `bytea`), or NULL.
    case bytes([UInt8]?)
    /// A boolean (0 or 1 on SQLite).
    case boolean(Bool)
    /// A list of strings (``SQLColumnType/textList``): a `text[]` on PostgreSQL, on SQLite the
    /// strings joined by `separator` (which none of them contains).
    case textList([String], separator: String)
}

/// One statement and its values in order.
public struct SQLStatement: Sendable, Hashable {
    /// The SQL text, with `?` placeholders (``SQLDialect/placeholders(_:)`` numbers them for
    /// PostgreSQL).
    public var sql: String
    /// The values, one per `?`.
    public var arguments: [SQLValue]

    /// Creates the statement.
    public init(_ sql: String, _ arguments: [SQLValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}
