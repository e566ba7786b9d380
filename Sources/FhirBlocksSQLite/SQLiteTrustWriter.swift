import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB
import GRDBSQLite

/// Applies a ``TrustChange`` inside one GRDB write transaction: ``TrustSQL``'s statements, each
/// prepared once per connection, the search index rows of each resource written
/// (``SQLiteSearchIndex``), then the audit entries.
enum SQLiteTrustWriter {
    static func apply(_ change: TrustChange, in db: Database) throws -> [Int] {
        for write in TrustSQL.writes(change) {
            let statement = try db.cachedStatement(sql: write.statement.sql)
            let arguments = SQLiteTrustStore.arguments(write.statement.arguments)
            do {
                if let missing = write.expectsRow {
                    guard try Row.fetchOne(statement, arguments: arguments) != nil else { throw missing }
                } else {
                    try statement.execute(arguments: arguments)
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT && write.onUniqueViolation != nil
                        && [.SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY].contains(error.extendedResultCode) {
                throw write.onUniqueViolation ?? TrustStoreError.corrupt("unique violation")
            }
            if let resource = write.indexes { try SQLiteSearchIndex.write(resource.record, in: db) }
        }
        return change.auditEntries.isEmpty ? [] : try appendAudit(change.auditEntries, in: db)
    }

    /// ``apply(_:in:)`` in a transaction of its own (`BEGIN IMMEDIATE`, as GRDB begins its write
    /// transactions, and `COMMIT`, both cached statements), rolled back when anything fails.
    static func applyInTransaction(_ change: TrustChange, in db: Database) throws -> [Int] {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let indexes = try apply(change, in: db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return indexes
        } catch {
            // SQLite may have rolled back already (then there is nothing left to roll back).
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    /// The most rows one audit insert statement carries (4 parameters each).
    static let auditRowsPerInsert = 32

    /// `INSERT INTO audit_entry … VALUES (?, ?, ?, ?), …` with `rows` rows, for 1…``auditRowsPerInsert``.
    private static let auditInsertSQL: [String] = (0...auditRowsPerInsert).map(TrustSQL.auditInsert(rows:))

    /// Appends `entries` after the log's last index, in order, up to ``auditRowsPerInsert``
    /// rows a statement (each row count's statement prepared once per connection), and returns
    /// their indexes. The rows' values are bound through SQLite's C API (blobs copied straight
    /// from the entry's bytes), not boxed one by one in a `StatementArguments` array: GRDB
    /// runs a statement's own bindings with `execute()` once its arguments were set, so they are
    /// set (to none: every parameter NULL) for each statement first and then bound in place.
    static func appendAudit(_ entries: [PendingAuditEntry], in db: Database) throws -> [Int] {
        let first = try Int.fetchOne(db.cachedStatement(sql: TrustSQL.nextAuditIndex)) ?? 0
        var start = 0
        while start < entries.count {
            let rows = min(auditRowsPerInsert, entries.count - start)
            let sql = auditInsertSQL[rows]
            let statement = try db.cachedStatement(sql: sql)
            // No values: every parameter NULL and marked bound (an array of NULL arguments cost
            // more to build than the rows' own bindings).
            statement.setUncheckedArguments(StatementArguments())
            let sqlite = statement.sqliteStatement
            func check(_ code: Int32) throws {
                guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: sql) }
            }
            func bind(_ bytes: [UInt8], at parameter: Int32) throws {
                try bytes.withUnsafeBytes { buffer in
                    // An empty blob is bound as one (a NULL pointer would bind NULL).
                    if let base = buffer.baseAddress, !buffer.isEmpty {
                        try check(sqlite3_bind_blob(sqlite, parameter, base, Int32(buffer.count), sqliteTransient))
                    } else {
                        try check(sqlite3_bind_zeroblob(sqlite, parameter, 0))
                    }
                }
            }
            // SQLite binds only to a statement that has not run or was reset since.
            try check(sqlite3_reset(sqlite))
            for row in 0..<rows {
                let pending = entries[start + row]
                let parameter = Int32(4 * row)
                try check(sqlite3_bind_int64(sqlite, parameter + 1, Int64(first + start + row)))
                try bind(pending.leafHash.bytes, at: parameter + 2)
                try bind(pending.canonicalBytes, at: parameter + 3)
                if let digest = pending.signatureDigest {
                    try check(sqlite3_bind_text(sqlite, parameter + 4, digest, -1, sqliteTransient))
                } else {
                    try check(sqlite3_bind_null(sqlite, parameter + 4))
                }
            }
            try statement.execute()
            start += rows
        }
        return Array(first..<(first + entries.count))
    }
}
