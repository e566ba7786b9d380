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
        let statements = SQLiteStatementCache()

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
    private func withReader<T: Sendable>(_ body: (DatabaseQueue, SQLiteStatementCache) throws -> T) throws -> T {
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
    /// a text that varies from request to request (``SQLiteStatementCache``). The transaction
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
}
