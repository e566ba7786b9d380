import GRDBSQLite

/// The destructor SQLite reads as "copy the bytes now" (`SQLITE_TRANSIENT`), for blobs and
/// texts bound through its C API from buffers that do not outlive the call.
let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
