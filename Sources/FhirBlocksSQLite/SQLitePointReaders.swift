import Dispatch
import FhirBlocksStore
import GRDB
import Synchronization

/// Read-only connections of their own for the read path's point lookups (the ledger's version,
/// a token, a resource by id) and indexed searches, each served on its own dispatch queue.
///
/// SQLite blocks the thread it runs on while it steps a statement (and while it waits for a
/// lock), so no connection is used on Swift's cooperative threads: a call is queued on the
/// queue of the connection with the fewest calls waiting, and the calling task is suspended
/// (not blocked) until it is done. A serial dispatch queue gets a thread of its own when it
/// has work, a thread that may block: a slow search holds its connection, never one of the few
/// cooperative threads that every other request (`/health` included) needs. These connections
/// belong to no GRDB pool and are used by nothing else.
final class SQLitePointReaders: Sendable {
    /// One connection, its queue, the lock that says it is in use, the statements it keeps for
    /// texts that vary (``readTransaction(_:)``), used only under that lock, and how many calls
    /// wait for it.
    private final class Reader: Sendable {
        let lock = Mutex(())
        let connection: DatabaseQueue
        let statements = StatementCache()
        let queue: DispatchQueue
        let waiting = Atomic<Int>(0)

        init(connection: DatabaseQueue, number: Int) {
            self.connection = connection
            queue = DispatchQueue(label: "FhirBlocks point reader \(number)")
        }
    }

    private let readers: [Reader]

    /// Opens `count` read-only connections to the database at `path` (in WAL mode already).
    init(path: String, count: Int) throws {
        var configuration = Configuration()
        configuration.label = "FhirBlocks point reader"
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        readers = try (0..<max(1, count)).map { number in
            Reader(connection: try DatabaseQueue(path: path, configuration: configuration), number: number)
        }
    }

    /// Runs `body` with the connection that has the fewest calls waiting, and its statement
    /// cache, on that connection's queue; the calling task waits suspended.
    private func withReader<T: Sendable>(_ body: @escaping @Sendable (DatabaseQueue, StatementCache) throws -> T) async throws -> T {
        var chosen = readers[readers.startIndex]
        for reader in readers.dropFirst() where reader.waiting.load(ordering: .relaxed) < chosen.waiting.load(ordering: .relaxed) {
            chosen = reader
        }
        let reader = chosen
        reader.waiting.add(1, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            reader.queue.async {
                let outcome = Result { () throws -> T in try reader.lock.withLock { _ in try body(reader.connection, reader.statements) } }
                reader.waiting.subtract(1, ordering: .relaxed)
                continuation.resume(with: outcome)
            }
        }
    }

    /// Runs `body`, ONE statement, on a connection (``withReader(_:)``). The statement is its
    /// own read transaction: it sees one snapshot of the database, with none of the cost of
    /// `BEGIN`/`COMMIT` (which GRDB parses each time).
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withReader { connection, _ in try connection.unsafeRead(body) }
    }

    /// Runs `body`, several statements, on a connection (``withReader(_:)``), inside one read
    /// transaction (`BEGIN DEFERRED`/`COMMIT`, prepared once per connection): every statement
    /// sees the same snapshot. `body`'s second argument gives the connection's statement for
    /// a text that varies from request to request (``StatementCache``). The transaction
    /// is always ended, rolled back when `COMMIT` fails, so the connection never keeps an old
    /// snapshot.
    func readTransaction<T: Sendable>(_ body: @escaping @Sendable (Database, (String) throws -> Statement) throws -> T) async throws -> T {
        try await withReader { connection, cache in
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

    /// Closes every connection (its kept statements first), on its queue after the calls
    /// queued before.
    func close() async {
        for reader in readers {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                reader.queue.async {
                    reader.lock.withLock { _ in
                        reader.statements.removeAll()
                        try? reader.connection.close()
                    }
                    continuation.resume()
                }
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
