import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB

/// The embedded ``TrustStore``: one SQLite file through GRDB (a `DatabasePool` in WAL mode, one
/// writer and concurrent readers). Each ``commit(_:)`` is one write transaction; with WAL and
/// `synchronous = NORMAL` a committed transaction survives the process being killed.
public final class SQLiteTrustStore: TrustStore {
    private let writer: any DatabaseWriter
    /// Connections for the read path's point lookups and indexed searches, each on a dispatch
    /// queue of its own (nil for in-memory and read-only stores, which use `writer`'s async
    /// access).
    let pointReaders: SQLitePointReaders?
    /// Connections of the same kind for indexed searches, apart from ``pointReaders`` so that
    /// the point lookups every request makes (its token first) never wait behind a search.
    let searchReaders: SQLitePointReaders?
    /// Where the database lives (`:memory:` for an in-memory store).
    public let path: String

    /// Opens (creating when missing) the database at `path`; its folder is created with mode
    /// 0700. Call ``migrate()`` before use.
    public init(path: String) throws(TrustStoreError) {
        try Self.requireSQLiteVersion()
        self.path = path
        var configuration = Configuration()
        configuration.label = "FhirBlocks"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            writer = try DatabasePool(path: path, configuration: configuration)
            pointReaders = try SQLitePointReaders(path: path, count: Self.pointReaderCount)
            searchReaders = try SQLitePointReaders(path: path, count: Self.searchReaderCount)
        } catch {
            throw .unavailable("cannot open the SQLite database: \(Self.reason(error))")
        }
    }

    /// The oldest SQLite whose SQL the store's writes use (`RETURNING`, SQLite 3.35.0).
    static let minimumSQLiteVersion: CInt = 3_035_000

    /// Refuses, in words, a SQLite library older than ``minimumSQLiteVersion`` (Debian 11 and
    /// Ubuntu 20.04 ship older ones), which would fail at the first write instead.
    static func requireSQLiteVersion(_ version: CInt = Database.sqliteLibVersionNumber) throws(TrustStoreError) {
        guard version >= minimumSQLiteVersion else {
            throw .unavailable("this SQLite library is version \(version / 1_000_000).\(version / 1_000 % 1_000).\(version % 1_000); "
                + "the FhirBlocks store needs 3.35.0 or later (Debian 12, Ubuntu 22.04 or later)")
        }
    }

    /// How many connections serve point lookups: one per core of the machine this runs on is
    /// enough (a lookup holds one only while SQLite steps its statement).
    static let pointReaderCount = 2

    /// How many connections serve indexed searches: more than the searches a few clients run
    /// at once, so that another patient's search finds one free while heavy ones run (each
    /// still bounded by its time budget).
    static let searchReaderCount = 6

    /// Opens an existing database read-only (for `health audit verify --database`): nothing is
    /// created, migrated or switched to WAL; writes fail.
    public init(readOnlyPath path: String) throws(TrustStoreError) {
        self.path = path
        var configuration = Configuration()
        configuration.label = "FhirBlocks (read-only)"
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        do {
            writer = try DatabaseQueue(path: path, configuration: configuration)
            pointReaders = nil
            searchReaders = nil
        } catch {
            throw .unavailable("cannot open the SQLite database read-only: \(Self.reason(error))")
        }
    }

    /// An in-memory store (tests and throw-away servers).
    public init(inMemory: Void) throws(TrustStoreError) {
        try Self.requireSQLiteVersion()
        path = ":memory:"
        do {
            writer = try DatabaseQueue()
            pointReaders = nil
            searchReaders = nil
        } catch {
            throw .unavailable("cannot open an in-memory database: \(Self.reason(error))")
        }
    }

    public func migrate() async throws(TrustStoreError) {
        try await run { writer in try SQLiteTrustSchema.migrator.migrate(writer) }
    }

    public func close() async {
        await pointReaders?.close()
        await searchReaders?.close()
        try? writer.close()
    }

    // MARK: Writes

    @discardableResult
    public func commit(_ change: TrustChange) async throws(TrustStoreError) -> [Int] {
        if change.isEmpty { return [] }
        return try await write { db in try SQLiteTrustWriter.apply(change, in: db) }
    }

    /// Applies `change` in one transaction on the writer's queue and calls `completion` there,
    /// right after `COMMIT` (or the rollback). The transaction's `BEGIN IMMEDIATE` and `COMMIT`
    /// are prepared once per connection (GRDB's own transaction parses them on every write).
    public func commit(_ change: TrustChange, completion: @escaping @Sendable (Result<[Int], TrustStoreError>) -> Void) {
        writer.asyncWriteWithoutTransaction { db in
            do {
                completion(.success(try SQLiteTrustWriter.applyInTransaction(change, in: db)))
            } catch {
                completion(.failure(Self.storeError(error)))
            }
        }
    }

    /// Claims `key` with ``TrustSQL/claimNonce(_:expiresAt:now:)`` (a row back for a new or an
    /// expired key); about one call in 256 deletes the expired nonces and authorization codes.
    public func insertIfAbsent(_ key: NonceKey, expiresAt: Timestamp, now: Timestamp) async throws(NonceStoreError) -> Bool {
        do {
            return try await writer.write { db in
                let claim = TrustSQL.claimNonce(key.description, expiresAt: expiresAt, now: now)
                guard try Row.fetchOne(db.cachedStatement(sql: claim.sql), arguments: Self.arguments(claim.arguments)) != nil else {
                    return false
                }
                if Int.random(in: 0..<256) == 0 {
                    for purge in TrustSQL.purgeExpired(now: now) {
                        try db.execute(sql: purge.sql, arguments: Self.arguments(purge.arguments))
                    }
                }
                return true
            }
        } catch {
            throw NonceStoreError(reason: "SQLite: \(Self.reason(error))")
        }
    }

    public func put(_ code: AuthorizationCode) async throws(NonceStoreError) {
        do {
            try await writer.write { db in
                let insert = TrustSQL.insertAuthorizationCode(code)
                try db.execute(sql: insert.sql, arguments: Self.arguments(insert.arguments))
            }
        } catch {
            throw NonceStoreError(reason: "SQLite: \(Self.reason(error))")
        }
    }

    /// `DELETE … RETURNING`: the row comes back to exactly one caller.
    public func take(_ code: String) async throws(NonceStoreError) -> AuthorizationCode? {
        do {
            return try await writer.write { db -> AuthorizationCode? in
                let take = TrustSQL.takeAuthorizationCode(code)
                return try Row.fetchOne(db, sql: take.sql, arguments: Self.arguments(take.arguments)).map(SQLiteTrustRows.authorizationCode)
            }
        } catch let error as TrustStoreError {
            throw NonceStoreError(reason: error.description)
        } catch {
            throw NonceStoreError(reason: "SQLite: \(Self.reason(error))")
        }
    }

    // MARK: Reads

    public func issuedGuid(_ guid: CsiGuid) async throws(TrustStoreError) -> IssuedGuid? {
        let statement = TrustSQL.issuedGuid(guid)
        return try await read { db in
            try Int64.fetchOne(db, sql: statement.sql, arguments: Self.arguments(statement.arguments))
                .map { IssuedGuid(guid: guid, issuedAt: Timestamp(millisecondsSince1970: $0)) }
        }
    }

    public func registration(_ csi: CsiGuid) async throws(TrustStoreError) -> CsiRegistration? {
        let statement = TrustSQL.registration(csi)
        return try await read { db in try Self.fetchOne(db, statement).map(SQLiteTrustRows.registration) }
    }

    public func registrations() async throws(TrustStoreError) -> [CsiRegistration] {
        let statement = TrustSQL.registrations(dialect: .sqlite)
        return try await read { db in try Self.fetchAll(db, statement).map(SQLiteTrustRows.registration) }
    }

    public func permissions() async throws(TrustStoreError) -> [Permission] {
        let statement = TrustSQL.permissions(dialect: .sqlite)
        return try await read { db in try Self.fetchAll(db, statement).map(SQLiteTrustRows.permission) }
    }

    public func ledgerVersion() async throws(TrustStoreError) -> Int64 {
        try await pointRead { db in
            guard let version = try Int64.fetchOne(db.cachedStatement(sql: TrustSQL.ledgerVersion.sql)) else {
                throw TrustStoreError.corrupt("ledger_version")
            }
            return version
        }
    }

    public func ledgerVersionAndResource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> LedgerVersionAndResource {
        let sql = TrustSQL.ledgerVersionAndResource(patient: patient, type: type, id: id).sql
        return try await pointRead { db in
            // One statement, so one snapshot: the version row joined with the resource's, if any
            // (its type, id and patient are the ones asked: `=` on text compares exactly).
            try SQLiteStatementRow.step(db.cachedStatement(sql: sql), texts: [patient.rawValue, type, id]) { row in
                guard let row else { throw TrustStoreError.corrupt("ledger_version") }
                guard !row.isNull(1) else { return LedgerVersionAndResource(ledgerVersion: row.int64(0), resource: nil) }
                guard let versionID = Int(exactly: row.int64(1)) else { throw TrustStoreError.corrupt("fhir_resource") }
                let resource = FHIRResourceRecord(type: type, id: id, patient: patient, versionID: versionID,
                                                  lastUpdated: Timestamp(millisecondsSince1970: row.int64(2)), json: row.bytes(3))
                return LedgerVersionAndResource(ledgerVersion: row.int64(0), resource: resource)
            }
        }
    }

    public func token(hash: String) async throws(TrustStoreError) -> StoredAccessToken? {
        let statement = TrustSQL.accessToken(hash: hash)
        return try await pointRead { db in
            try Row.fetchOne(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments)).map(SQLiteTrustRows.token)
        }
    }

    public func resource(patient: CsiGuid, type: String, id: String) async throws(TrustStoreError) -> FHIRResourceRecord? {
        let statement = TrustSQL.resource(patient: patient, type: type, id: id)
        return try await pointRead { db in
            try Row.fetchOne(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
                .map { row in try SQLiteTrustRows.resourceByPosition(row) }
        }
    }

    public func resources(patient: CsiGuid, type: String?) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        let statement = TrustSQL.resources(patient: patient, type: type, dialect: .sqlite)
        return try await read { db in try Self.fetchAll(db, statement).map { row in try SQLiteTrustRows.resourceByPosition(row) } }
    }

    public func auditCount() async throws(TrustStoreError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: TrustSQL.auditCount.sql) ?? 0 }
    }

    public func auditRecords(from: Int, limit: Int) async throws(TrustStoreError) -> [AuditRecord] {
        let statement = TrustSQL.auditRecords(from: from, limit: limit)
        return try await read { db in try Self.fetchAll(db, statement).map(SQLiteTrustRows.audit) }
    }

    public func auditRecords(signatureDigest: String) async throws(TrustStoreError) -> [AuditRecord] {
        let statement = TrustSQL.auditRecords(signatureDigest: signatureDigest)
        return try await read { db in try Self.fetchAll(db, statement).map(SQLiteTrustRows.audit) }
    }

    public func checkpoints() async throws(TrustStoreError) -> [StoredCheckpoint] {
        try await read { db in
            try Row.fetchAll(db, sql: TrustSQL.checkpoints.sql).map { row in
                StoredCheckpoint(treeSize: row["tree_size"], note: row["note"])
            }
        }
    }

    public func latestCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint? {
        try await pointRead { db in
            try Row.fetchOne(db.cachedStatement(sql: TrustSQL.latestCheckpoint)).map { row in
                StoredCheckpoint(treeSize: row["tree_size"], note: row["note"])
            }
        }
    }

    public func latestCosignedCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint? {
        try await pointRead { db in
            try Row.fetchOne(db.cachedStatement(sql: TrustSQL.latestCosignedCheckpoint)).map { row in
                StoredCheckpoint(treeSize: row["tree_size"], note: row["note"])
            }
        }
    }

    // MARK: Plumbing

    /// A point lookup (one short statement): on a ``SQLitePointReaders`` connection (off the
    /// calling task's thread) when the store has them, else through ``read(_:)``.
    func pointRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(TrustStoreError) -> T {
        guard let pointReaders else { return try await read(body) }
        do {
            return try await pointReaders.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(TrustStoreError) -> T {
        do {
            return try await writer.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(TrustStoreError) -> T {
        do {
            return try await writer.write(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// `error` as the store's: a ``TrustStoreError`` thrown inside a transaction as it is, any
    /// other `unavailable` with the database's reason.
    static func storeError(_ error: any Error) -> TrustStoreError {
        (error as? TrustStoreError) ?? .unavailable("SQLite: \(reason(error))")
    }

    /// Runs `body` (which blocks its thread) on a dispatch queue of its own, the calling task
    /// suspended until it is done.
    private func run(_ body: @escaping @Sendable (any DatabaseWriter) throws -> Void) async throws(TrustStoreError) {
        let writer = self.writer
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue(label: "FhirBlocks migration").async {
                    continuation.resume(with: Result { try body(writer) })
                }
            }
        } catch {
            throw .unavailable("SQLite migration: \(Self.reason(error))")
        }
    }

    /// A short reason for a database error: the SQLite result code and message, which name
    /// tables and constraints but never bound values.
    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return "\(error.resultCode) \(error.message ?? "")"
        }
        return String(describing: type(of: error))
    }
}
