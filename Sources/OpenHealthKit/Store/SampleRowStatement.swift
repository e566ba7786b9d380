import Foundation
import GRDB
import GRDBSQLite

/// The save path's `INSERT INTO sample`, with each row's values bound through SQLite's C API
/// instead of a `StatementArguments` array: no boxed value and no array per row, which was a
/// fifth of a quantity sample's save.
///
/// GRDB executes a statement's bound values with `execute()` once its arguments have been set,
/// so ``init(_:)`` sets them once (all NULL) and
/// ``insert(_:typeCode:sourceID:parentID:anchor:blockID:blockIndex:)`` resets the statement and rebinds
/// every parameter in place before each `execute()`. The statement is GRDB's cached one, so it
/// is prepared once per connection; nothing else executes it with other arguments.
struct SampleRowStatement {
    private static let sql = """
        INSERT INTO sample (uuid, type, kind, start, "end", source_id, parent_id, activity_type, anchor, sync_id, sync_version,
                            sealed, block_id, block_index)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    private static let parameterCount = 14
    /// SQLite copies blobs and text bound with this destructor (`SQLITE_TRANSIENT`).
    static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    private let statement: Statement

    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        statement.setUncheckedArguments(StatementArguments(Array(repeating: nil as DatabaseValue?, count: Self.parameterCount)))
    }

    /// Inserts `sample`'s row with the values the transaction assigns it (`typeCode` is its
    /// type's ``SampleTypeCode``); its id is then `db.lastInsertedRowID`.
    func insert(_ sample: PreparedSample, typeCode: Int64, sourceID: Int64, parentID: Int64?, anchor: Int64, blockID: Int64?, blockIndex: Int?) throws {
        let sqlite = statement.sqliteStatement
        // SQLite binds only to a statement that has not run or was reset since.
        try check(sqlite3_reset(sqlite))
        try withUnsafeBytes(of: sample.uuid.uuid) { uuid in
            try check(sqlite3_bind_blob(sqlite, 1, uuid.baseAddress, Int32(uuid.count), Self.transient))
        }
        try check(sqlite3_bind_int64(sqlite, 2, typeCode))
        try check(sqlite3_bind_int64(sqlite, 3, sample.kind.rawValue))
        try check(sqlite3_bind_double(sqlite, 4, sample.start))
        try check(sqlite3_bind_double(sqlite, 5, sample.end))
        try check(sqlite3_bind_int64(sqlite, 6, sourceID))
        try bind(parentID, at: 7, sqlite)
        try bind(sample.activityType, at: 8, sqlite)
        try check(sqlite3_bind_int64(sqlite, 9, anchor))
        try bind(sample.syncHash, at: 10, sqlite)
        try bind(sample.syncVersion, at: 11, sqlite)
        try bind(sample.sealed, at: 12, sqlite)
        try bind(blockID, at: 13, sqlite)
        try bind(blockIndex.map(Int64.init), at: 14, sqlite)
        try statement.execute()
    }

    private func bind(_ value: Int64?, at index: Int32, _ sqlite: SQLiteStatement) throws {
        if let value {
            try check(sqlite3_bind_int64(sqlite, index, value))
        } else {
            try check(sqlite3_bind_null(sqlite, index))
        }
    }

    private func bind(_ value: Data?, at index: Int32, _ sqlite: SQLiteStatement) throws {
        guard let value else {
            try check(sqlite3_bind_null(sqlite, index))
            return
        }
        try value.withUnsafeBytes { bytes in
            // An empty blob is bound as one (a NULL pointer would bind NULL).
            if let base = bytes.baseAddress, !bytes.isEmpty {
                try check(sqlite3_bind_blob(sqlite, index, base, Int32(bytes.count), Self.transient))
            } else {
                try check(sqlite3_bind_zeroblob(sqlite, index, 0))
            }
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: Self.sql)
        }
    }
}

/// The save path's look-up of a sync hash already stored for a type, stepped through SQLite's C API on GRDB's cached
/// statement: GRDB's arguments, cursor and row for each sample cost more than the index search itself.
struct SyncLookupStatement {
    private static let sql = """
        SELECT id, sync_version FROM sample WHERE sync_id = ? AND type = \(SampleTypeCode.parameter) AND parent_id IS NULL
        """
    private let statement: Statement

    init(_ db: Database) throws {
        statement = try db.cachedStatement(sql: Self.sql)
    }

    /// The first top-level row of type `type` stored under `syncHash`: its id and sync version (nil when it has none).
    func first(syncHash: Data, type: String) throws -> (id: Int64, version: Int64?)? {
        let sqlite = statement.sqliteStatement
        try check(sqlite3_reset(sqlite))
        defer { _ = sqlite3_reset(sqlite) }
        try syncHash.withUnsafeBytes { bytes in
            // An empty blob is bound as one (a NULL pointer would bind NULL).
            if let base = bytes.baseAddress, !bytes.isEmpty {
                try check(sqlite3_bind_blob(sqlite, 1, base, Int32(bytes.count), SampleRowStatement.transient))
            } else {
                try check(sqlite3_bind_zeroblob(sqlite, 1, 0))
            }
        }
        try check(sqlite3_bind_text(sqlite, 2, type, -1, SampleRowStatement.transient))
        switch sqlite3_step(sqlite) {
        case SQLITE_DONE:
            return nil
        case SQLITE_ROW:
            let version = sqlite3_column_type(sqlite, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(sqlite, 1)
            return (sqlite3_column_int64(sqlite, 0), version)
        case let code:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: Self.sql)
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: Self.sql)
        }
    }
}
