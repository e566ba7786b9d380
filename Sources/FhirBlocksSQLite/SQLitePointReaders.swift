import FhirBlocksStore
import GRDB
import Synchronization

/// Read-only connections of their own for the read path's point lookups (the ledger's version,
/// a token, a resource by id), used on the calling thread.
///
/// GRDB's async access moves the task to a reader's dispatch queue and back: two thread
/// wake-ups for a lookup that takes SQLite a few microseconds. These connections belong to no
/// GRDB pool and are used by nothing else, so a lookup here waits for nothing but another
/// lookup's lock, held only while SQLite steps one short statement (never across an `await`,
/// never while waiting for the writer: in WAL mode readers do not wait for it). That keeps the
/// cooperative pool free of the deadlock that blocking on the pool's own queues caused.
final class SQLitePointReaders: Sendable {
    /// One connection, the lock that says it is in use, and the statements it keeps for
    /// texts that vary (``readTransaction(_:)``), used only under that lock.
    private final class Reader: Sendable {
        let lock = Mutex(())
        let connection: DatabaseQueue
        let statements = StatementCache()

        init(connection: DatabaseQueue) {
            self.connection = connection
        }
    }

    private let readers: [Reader]

    /// Opens `count` read-only connections to the database at `path` (in WAL mode already).
    init(path: String, count: Int) throws {
        var configuration = Configuration()
        configuration.label = "FhirBlocks point reader"
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        readers = try (0..<max(1, count)).map { _ in Reader(connection: try DatabaseQueue(path: path, configuration: configuration)) }
    }

    /// Runs `body` with the first connection not in use (waiting for the first one when all
    /// are), and its statement cache.
    private func withReader<T: Sendable>(_ body: (DatabaseQueue, StatementCache) throws -> T) throws -> T {
        for reader in readers {
            if let outcome = reader.lock.withLockIfAvailable({ _ in Result { () throws -> T in try body(reader.connection, reader.statements) } }) {
                return try outcome.get()
            }
        }
        let reader = readers[0]
        return try reader.lock.withLock { _ in try body(reader.connection, reader.statements) }
    }

    /// Runs `body`, ONE statement, on the first connection not in use (waiting for the first
    /// one when all are). The statement is its own read transaction: it sees one snapshot of
    /// the database, with none of the cost of `BEGIN`/`COMMIT` (which GRDB parses each time).
    func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try withReader { connection, _ in try connection.unsafeRead(body) }
    }

    /// Runs `body`, several statements, on the first connection not in use, inside one read
    /// transaction (`BEGIN DEFERRED`/`COMMIT`, prepared once per connection): every statement
    /// sees the same snapshot. `body`'s second argument gives the connection's statement for
    /// a text that varies from request to request (``StatementCache``). The transaction
    /// is always ended, rolled back when `COMMIT` fails, so the connection never keeps an old
    /// snapshot.
    func readTransaction<T: Sendable>(_ body: (Database, (String) throws -> Statement) throws -> T) throws -> T {
        try withReader { connection, cache in
            try connection.unsafeRead { db in
                try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
                defer {
                    if (try? db.cachedStatement(sql: "COMMIT TRANSACTION").execute()) == nil, db.isInsideTransaction {
                        try? db.execute(sql: "ROLLBACK TRANSACTION")
                    }
                }
                return try body(db) { sql in try cache.statement(sql, in: db) }
            }
        }
    }

    /// Closes every connection (its kept statements first).
    func close() {
        for reader in readers {
            reader.lock.withLock { _ in
                reader.statements.removeAll()
                try? reader.connection.close()
            }
        }
    }

    /// Statements prepared on one connection for SQL texts that vary with a request (a search's
    /// candidate query), kept for the next request with the same text. At most ``capacity`` are
    /// kept (all are dropped when it is full), so a client cannot grow it without bound by
    /// sending queries of ever new shapes; GRDB's own statement cache is for fixed texts.
    ///
    /// Preparing such a statement is not only SQLite parsing it: GRDB's authorizer builds the
    /// statement's table and column region for every column read, which cost more than the
    /// search's SQL itself. Used only under its connection's lock (hence unchecked `Sendable`: the
    /// lock, not the type, keeps it to one thread at a time).
    final class StatementCache: @unchecked Sendable {
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
}
