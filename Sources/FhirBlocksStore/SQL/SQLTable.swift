/// A table as both databases create it: its columns, primary key and SQLite storage, written
/// once and declared per database by ``SQLDialect``.
public struct SQLTable: Sendable, Hashable {
    /// The table's name.
    public var name: String
    /// The columns, in order.
    public var columns: [SQLColumn]
    /// A primary key of several columns (a table constraint after the columns); a one-column
    /// key is ``SQLColumn/primaryKey`` instead.
    public var primaryKey: [String]
    /// Whether SQLite stores it `WITHOUT ROWID` (clustered on its primary key).
    public var withoutRowID: Bool

    /// Creates a table.
    public init(_ name: String, _ columns: [SQLColumn], primaryKey: [String] = [], withoutRowID: Bool = true) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.withoutRowID = withoutRowID
    }

    /// `CREATE TABLE` for `dialect`, one line per column (`IF NOT EXISTS` when `ifNotExists`).
    public func create(_ dialect: SQLDialect, ifNotExists: Bool = false) -> String {
        var lines = columns.map { "    " + $0.definition(dialect) }
        if !primaryKey.isEmpty { lines.append("    PRIMARY KEY (" + primaryKey.joined(separator: ", ") + ")") }
        return "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(name) (\n" + lines.joined(separator: ",\n") + "\n)"
            + dialect.tableSuffix(withoutRowID: withoutRowID)
    }
}

/// A column of an ``SQLTable``.
public struct SQLColumn: Sendable, Hashable {
    /// The column's name.
    public var name: String
    /// Its kind (``SQLDialect/name(of:)`` declares it).
    public var type: SQLColumnType
    /// Whether it is the table's one-column primary key.
    public var primaryKey: Bool
    /// Whether it is `NOT NULL`.
    public var notNull: Bool
    /// Whether it is `UNIQUE`.
    public var unique: Bool
    /// Its default, for a boolean column (``SQLDialect/literal(_:)``).
    public var defaultValue: Bool?
    /// A `CHECK` constraint's condition, on the databases named in ``checkOn``.
    public var check: String?
    /// The databases the check is declared on (as the schema was first written for each).
    public var checkOn: Set<SQLDialect>

    /// Creates a column: `NOT NULL` unless `nullable`.
    public init(_ name: String, _ type: SQLColumnType, primaryKey: Bool = false, nullable: Bool = false, unique: Bool = false,
                defaultValue: Bool? = nil, check: String? = nil, checkOn: Set<SQLDialect> = Set(SQLDialect.allCases)) {
        self.name = name
        self.type = type
        self.primaryKey = primaryKey
        self.notNull = !primaryKey && !nullable
        self.unique = unique
        self.defaultValue = defaultValue
        self.check = check
        self.checkOn = checkOn
    }

    /// `name TYPE [PRIMARY KEY] [NOT NULL] [UNIQUE] [DEFAULT …] [CHECK (…)]`.
    func definition(_ dialect: SQLDialect) -> String {
        var text = name + " " + dialect.name(of: type)
        if primaryKey { text += " PRIMARY KEY" }
        if notNull { text += " NOT NULL" }
        if unique { text += " UNIQUE" }
        if let defaultValue { text += " DEFAULT " + dialect.literal(defaultValue) }
        if let check, checkOn.contains(dialect) { text += " CHECK (\(check))" }
        return text
    }
}

/// An index of an ``SQLTable``.
public struct SQLIndex: Sendable, Hashable {
    /// The index's name.
    public var name: String
    /// Its table.
    public var table: String
    /// Its columns (or expressions, such as `type COLLATE "C"`), in order.
    public var columns: [String]
    /// A partial index's condition.
    public var condition: String?

    /// Creates an index.
    public init(_ name: String, on table: String, _ columns: [String], where condition: String? = nil) {
        self.name = name
        self.table = table
        self.columns = columns
        self.condition = condition
    }

    /// `CREATE INDEX` (the same on both databases; `IF NOT EXISTS` when `ifNotExists`).
    public func create(ifNotExists: Bool = false) -> String {
        "CREATE INDEX \(ifNotExists ? "IF NOT EXISTS " : "")\(name) ON \(table) (" + columns.joined(separator: ", ") + ")"
            + (condition.map { " WHERE " + $0 } ?? "")
    }
}
