import FhirBlocks
import FhirBlocksStore
import Logging
import PostgresNIO
import Synchronization

/// The ``FhirBlocksStore/TrustStore`` on PostgreSQL, through postgres-nio's pooled
/// `PostgresClient`. Several servers may share one database: every ``commit(_:)`` is one
/// transaction, audit indexes are assigned under a table lock, and single-use values are
/// claimed with one atomic statement each.
///
/// ## Lifecycle
///
/// postgres-nio's client only hands out connections while its `run()` method is running. The
/// store starts `client.run()` in a task of its own when it is created, and ``close()`` cancels
/// that task, which closes every pooled connection, and waits for it to end. Call ``close()``
/// before dropping the store; if the store is released without it, the task is cancelled from
/// `deinit`. No call is served after ``close()``: each throws ``TrustStoreError/unavailable(_:)``.
///
/// ## Timeouts
///
/// Each call waits at most `connectionTimeout` for a pooled connection (an unreachable server
/// therefore fails the call with ``TrustStoreError/unavailable(_:)`` after that long instead of
/// waiting for the pool's circuit breaker). Once a call holds its connection it runs to the end:
/// a transaction is never abandoned half-way by the timeout, so a call that timed out wrote
/// nothing.
public final class PostgresTrustStore: TrustStore {
    /// Where the store connects (its description hides the password).
    public let url: PostgresURL
    /// How long a call waits for a connection.
    public let connectionTimeout: Duration

    let client: PostgresClient
    let logger: Logger
    private let runTask: Task<Void, Never>
    /// The `now` of the last purge of expired nonces and codes (milliseconds), if any.
    let lastPurge = Mutex<Int64?>(nil)

    /// How often (in the callers' time) expired nonces and authorization codes are deleted.
    static let purgeInterval: Int64 = 60_000

    /// Creates the store and starts its connection pool (no connection is opened until the first
    /// call). Call ``migrate()`` before use.
    ///
    /// - Parameters:
    ///   - url: The server, credentials and database.
    ///   - connectionTimeout: How long a call waits for a connection before failing.
    ///   - maximumConnections: The pool's size.
    ///   - logger: Where postgres-nio logs (background connection events).
    public init(url: PostgresURL, connectionTimeout: Duration = .seconds(10), maximumConnections: Int = 10,
                logger: Logger = Logger(label: "FhirBlocksPostgres")) {
        self.url = url
        self.connectionTimeout = connectionTimeout
        self.logger = logger
        let tls: PostgresClient.Configuration.TLS = switch url.sslMode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: url.host, port: url.port, username: url.username, password: url.password,
                                                         database: url.database, tls: tls)
        configuration.options.connectTimeout = connectionTimeout
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = max(1, maximumConnections)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        runTask = Task { await client.run() }
    }

    /// Creates the store from a `postgres://user:password@host:port/database` URL; a malformed
    /// URL throws ``TrustStoreError/unavailable(_:)`` naming the malformed part.
    public convenience init(url text: String, connectionTimeout: Duration = .seconds(10), maximumConnections: Int = 10,
                            logger: Logger = Logger(label: "FhirBlocksPostgres")) throws(TrustStoreError) {
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw .unavailable("invalid PostgreSQL URL: \(error)")
        }
        self.init(url: url, connectionTimeout: connectionTimeout, maximumConnections: maximumConnections, logger: logger)
    }

    deinit {
        runTask.cancel()
    }

    /// Stops the connection pool (cancels the task running `client.run()`) and waits for it.
    public func close() async {
        runTask.cancel()
        await runTask.value
    }

    // MARK: Schema

    public func migrate() async throws(TrustStoreError) {
        try await withTransaction { connection, logger in
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLockKey))", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.versionTable), logger: logger)
            let rows = try await connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_version", logger: logger).collect()
            let current = try rows.first?.decode(Int.self) ?? 0
            guard current <= PostgresSchema.latestVersion else {
                throw TrustStoreError.unavailable("schema version \(current) is newer than this build (\(PostgresSchema.latestVersion))")
            }
            for version in (current + 1)..<(PostgresSchema.latestVersion + 1) {
                for statement in PostgresSchema.migrations[version - 1] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO schema_version (version, applied_at)
                    VALUES (\(version), (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
                    """, logger: logger)
            }
            if current < PostgresSchema.searchIndexBackfillVersion {
                try await PostgresSearchIndex.backfill(on: connection, logger: logger)
            }
        }
    }

    /// The schema version recorded in the database (0 before ``migrate()``).
    public func schemaVersion() async throws(TrustStoreError) -> Int {
        try await withConnection { connection, logger in
            let exists = try await connection.query("SELECT to_regclass('schema_version') IS NOT NULL", logger: logger).collect()
            guard try exists.first?.decode(Bool.self) == true else { return 0 }
            let rows = try await connection.query("SELECT COALESCE(MAX(version), 0) FROM schema_version", logger: logger).collect()
            return try rows.first?.decode(Int.self) ?? 0
        }
    }

    // MARK: Connections

    /// Runs `body` on a pooled connection, waiting at most ``connectionTimeout`` for one (see
    /// ``LeaseDeadline``); every failure becomes a ``TrustStoreError``.
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result
    ) async throws(TrustStoreError) -> Result {
        let client = client
        let logger = logger
        let timeout = connectionTimeout
        let deadline = LeaseDeadline()
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await client.withConnection { connection in
                        guard deadline.claimForOperation() else { throw LeaseTimedOut() }
                        return try await body(connection, logger)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    if deadline.claimForTimeout() { throw LeaseTimedOut() }
                    return nil
                }
                while let finished = try await group.next() {
                    if let result = finished {
                        group.cancelAll()
                        return result
                    }
                }
                throw LeaseTimedOut()
            }
        } catch {
            throw PostgresErrorMapping.storeError(error, timeout: timeout)
        }
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`, `ROLLBACK` when it throws).
    func withTransaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> Result
    ) async throws(TrustStoreError) -> Result {
        try await withConnection { connection, logger in
            try await connection.withTransaction(logger: logger) { connection in
                try await body(connection, logger)
            }
        }
    }

}
