import GRDB

/// Statements prepared on one connection for SQL texts that vary with a request (a search's
/// candidate query), kept for the next request with the same text. At most ``capacity`` are
/// kept (all are dropped when it is full), so a client cannot grow it without bound by
/// sending queries of ever new shapes; GRDB's own statement cache is for fixed texts.
///
/// Preparing such a statement is not only SQLite parsing it: GRDB's authorizer builds the
/// statement's table and column region for every column read, which cost more than the
/// search's SQL itself. Used only under its connection's lock (hence unchecked `Sendable`: the
/// lock, not the type, keeps it to one thread at a time).
final class SQLiteStatementCache: @unchecked Sendable {
    /// The most statements kept.
    static let capacity = 32

    private var statements: [String: Statement] = [:]

    /// How many statements are kept.
    var count: Int { statements.count }

    /// The statement for `sql` on `db`, prepared now unless kept from before.
    func statement(_ sql: String, in db: Database) throws -> Statement {
        if let statement = statements[sql] { return statement }
        if statements.count >= Self.capacity { statements.removeAll() }
        let statement = try db.makeStatement(sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Drops every statement (before its connection closes).
    func removeAll() {
        statements.removeAll()
    }
}
