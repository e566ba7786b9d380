import Foundation

/// Errors of the storage layer that HealthKit has no code for: opening, decrypting and
/// migrating the database, and anchors that outlived the tombstones they refer to.
///
/// Like GRDB's `DatabaseError`, it carries context (the store path, the operation) but never
/// a sample value or metadata.
public struct HealthStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        public var description: String { name }

        /// The key or passphrase does not open this store.
        public static let wrongKey = Kind(name: "wrongKey")
        /// The file is not an OpenHealthKit database, or SQLite reports corruption.
        public static let corruptDatabase = Kind(name: "corruptDatabase")
        /// A sealed record failed authentication: it was altered outside the store.
        public static let tamperedRecord = Kind(name: "tamperedRecord")
        /// The database was written by a newer, unknown schema version.
        public static let unsupportedSchema = Kind(name: "unsupportedSchema")
        /// The key material is unusable (missing key file, bad length, unreadable).
        public static let keyUnavailable = Kind(name: "keyUnavailable")
        /// An anchor is older than the oldest kept tombstone: deletions may have been
        /// forgotten, so the caller must resynchronise from a nil anchor.
        public static let anchorExpired = Kind(name: "anchorExpired")
        /// An anchor does not belong to this store or query.
        public static let invalidAnchor = Kind(name: "invalidAnchor")
        /// A predicate OpenHealthKit cannot translate (for example a block predicate).
        public static let unsupportedPredicate = Kind(name: "unsupportedPredicate")
        /// An I/O or SQLite failure that is none of the above.
        public static let io = Kind(name: "io")
    }

    /// What went wrong.
    public let kind: Kind
    /// Context without patient data: the path, the operation, the SQLite code.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "HealthStoreError.\(kind): \(message)" }
}
