import FhirBlocksPostgres
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import Logging

/// Where a trust server keeps its records: a SQLite database file (by default
/// ``sqliteFileName`` in the server's data folder) or a PostgreSQL database. `health serve
/// --database` and `health audit verify --database` read their argument with
/// ``init(parsing:)``, so both name a store the same way.
public enum TrustStoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database (`postgres://user:password@host:port/database`).
    case postgres(url: String)

    /// The SQLite database's name in a data folder.
    public static let sqliteFileName = "fhirblocks.sqlite"

    /// Why a text does not name a store.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text is empty.
        case empty
        /// A URL whose scheme is neither `postgres` nor `postgresql`.
        case unsupportedScheme(String)

        public var description: String {
            switch self {
            case .empty: "the database is empty: give a SQLite file, a data folder or a postgres:// URL"
            case .unsupportedScheme(let scheme):
                "\(scheme):// is not a database this server can use: give a SQLite file, a data folder or a postgres:// URL"
            }
        }
    }

    /// The SQLite database of the data folder `folder` (``sqliteFileName`` in it).
    /// - Parameter folder: The server's data folder.
    public static func dataFolder(_ folder: String) -> TrustStoreLocation {
        .sqlite(path: (folder.hasSuffix("/") ? folder : folder + "/") + sqliteFileName)
    }

    /// Reads a store's name: a `postgres://` or `postgresql://` URL is a PostgreSQL database;
    /// any other `scheme://` is refused; anything else is a path: an existing folder (or a path
    /// ending in `/`) is a data folder, whose ``sqliteFileName`` is the database, and any other
    /// path is the SQLite file itself.
    /// - Parameter text: What the person gave.
    public init(parsing text: String) throws(Failure) {
        guard !text.isEmpty else { throw .empty }
        if let range = text.range(of: "://") {
            let scheme = String(text[..<range.lowerBound])
            if scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) {
                guard ["postgres", "postgresql"].contains(scheme.lowercased()) else { throw .unsupportedScheme(scheme) }
                // A scheme is case-insensitive (RFC 3986 §3.1); the PostgreSQL client takes it in lowercase.
                self = .postgres(url: scheme.lowercased() + text[range.lowerBound...])
                return
            }
        }
        var isFolder: ObjCBool = false
        if text.hasSuffix("/") || (FileManager.default.fileExists(atPath: text, isDirectory: &isFolder) && isFolder.boolValue) {
            var folder = text
            while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
            self = .dataFolder(folder)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The folder of a SQLite database (where its server's key files are by default); nil for
    /// PostgreSQL, which has none.
    public var folder: String? {
        switch self {
        case .sqlite(let path): URL(fileURLWithPath: path).deletingLastPathComponent().path
        case .postgres: nil
        }
    }

    /// The SQLite file's path, or the PostgreSQL URL with its password masked.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): (try? PostgresURL(url))?.description ?? "a PostgreSQL database"
        }
    }

    /// Opens the store. A server opens it for writing (a missing SQLite file is created, with its
    /// folder); a reader such as `health audit verify` opens it read-only (a SQLite file must
    /// exist and is never written; PostgreSQL is opened as usual and only read). Call
    /// `migrate()` on a store opened for writing before use.
    /// - Parameters:
    ///   - readOnly: Whether the store is only read.
    ///   - logger: Where the PostgreSQL client logs.
    public func open(readOnly: Bool = false, logger: Logger = Logger(label: "fhirblocks")) throws(TrustStoreError) -> any TrustStore {
        switch self {
        case .sqlite(let path):
            if readOnly {
                guard FileManager.default.fileExists(atPath: path) else { throw .unavailable("\(path): no such file") }
                return try SQLiteTrustStore(readOnlyPath: path)
            }
            return try SQLiteTrustStore(path: path)
        case .postgres(let url):
            return try PostgresTrustStore(url: url, logger: logger)
        }
    }
}
