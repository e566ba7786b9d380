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
    /// One connection and the lock that says it is in use.
    private final class Reader: Sendable {
        let lock = Mutex(())
        let connection: DatabaseQueue

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

    /// Runs `body`, ONE statement, on the first connection not in use (waiting for the first
    /// one when all are). The statement is its own read transaction: it sees one snapshot of
    /// the database, with none of the cost of `BEGIN`/`COMMIT` (which GRDB parses each time).
    func read<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        for reader in readers {
            if let outcome = reader.lock.withLockIfAvailable({ _ in Result { () throws -> T in try reader.connection.unsafeRead(body) } }) {
                return try outcome.get()
            }
        }
        let reader = readers[0]
        return try reader.lock.withLock { _ in try reader.connection.unsafeRead(body) }
    }

    /// Runs `body`, several statements, on the first connection not in use, inside one read
    /// transaction (`BEGIN DEFERRED`/`COMMIT`, prepared once per connection): every statement
    /// sees the same snapshot. The transaction is always ended, rolled back when `COMMIT` fails,
    /// so the connection never keeps an old snapshot.
    func readTransaction<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try read { db in
            try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
            defer {
                if (try? db.cachedStatement(sql: "COMMIT TRANSACTION").execute()) == nil, db.isInsideTransaction {
                    try? db.execute(sql: "ROLLBACK TRANSACTION")
                }
            }
            return try body(db)
        }
    }

    /// Closes every connection.
    func close() {
        for reader in readers { reader.lock.withLock { _ in try? reader.connection.close() } }
    }
}
