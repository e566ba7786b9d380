import Foundation
import GRDB

/// One app's stored decision about one type: HealthKit's share status plus the read answer
/// (which HealthKit never reveals to the app).
struct TypeDecision: Sendable, Equatable {
    enum Answer: Int64, Sendable {
        case notDetermined = 0
        case denied = 1
        case authorized = 2
    }

    var share: Answer = .notDetermined
    var read: Answer = .notDetermined
}

extension HealthDatabase {
    /// The decisions recorded for an app, by type identifier.
    func decisions(for bundleIdentifier: String) throws -> [String: TypeDecision] {
        try read { db in try Self.decisions(db, for: bundleIdentifier) }
    }

    /// The decisions recorded for an app, without holding a cooperative thread.
    func decisionsAsync(for bundleIdentifier: String) async throws -> [String: TypeDecision] {
        try await readAsync { db in try Self.decisions(db, for: bundleIdentifier) }
    }

    private static func decisions(_ db: Database, for bundleIdentifier: String) throws -> [String: TypeDecision] {
        var result: [String: TypeDecision] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT type, share, read FROM authorization WHERE bundle_identifier = ?",
                                    arguments: [bundleIdentifier]) {
            result[row["type"]] = TypeDecision(share: TypeDecision.Answer(rawValue: row["share"]) ?? .notDetermined,
                                               read: TypeDecision.Answer(rawValue: row["read"]) ?? .notDetermined)
        }
        return result
    }

    /// Records decisions; they persist with the store.
    func record(_ decisions: [String: TypeDecision], for bundleIdentifier: String) throws {
        let now = now().timeIntervalSinceReferenceDate
        try write { db in try Self.record(db, decisions, for: bundleIdentifier, at: now) }
    }

    /// Records decisions without holding a cooperative thread.
    func recordAsync(_ decisions: [String: TypeDecision], for bundleIdentifier: String) async throws {
        let now = now().timeIntervalSinceReferenceDate
        try await writeAsync { db in try Self.record(db, decisions, for: bundleIdentifier, at: now) }
    }

    private static func record(_ db: Database, _ decisions: [String: TypeDecision], for bundleIdentifier: String, at now: Double) throws {
        for (type, decision) in decisions {
            try db.execute(sql: """
                INSERT INTO authorization (bundle_identifier, type, share, read, decided_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (bundle_identifier, type) DO UPDATE SET share = excluded.share, read = excluded.read, decided_at = excluded.decided_at
                """, arguments: [bundleIdentifier, type, decision.share.rawValue, decision.read.rawValue, now])
        }
        try bumpAuthorizationVersion(db)
    }

    /// Every app's decisions, for the owner (ordered by app, then type).
    func allDecisions() throws -> [(bundleIdentifier: String, type: String, decision: TypeDecision, decidedAt: Date)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT bundle_identifier, type, share, read, decided_at FROM authorization ORDER BY bundle_identifier, type")
                .map { row in
                    (row["bundle_identifier"], row["type"],
                     TypeDecision(share: TypeDecision.Answer(rawValue: row["share"]) ?? .notDetermined,
                                  read: TypeDecision.Answer(rawValue: row["read"]) ?? .notDetermined),
                     Date(timeIntervalSinceReferenceDate: row["decided_at"]))
                }
        }
    }

    /// Forgets every decision of an app (it may ask again).
    func forgetDecisions(for bundleIdentifier: String) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM authorization WHERE bundle_identifier = ?", arguments: [bundleIdentifier])
            try Self.bumpAuthorizationVersion(db)
        }
    }

    /// A number that changes with every recorded decision, so a store object that keeps an app's
    /// decisions in memory sees the owner's changes (from any process) at its next call.
    func authorizationVersion() throws -> Int64 {
        try read { db in try Self.authorizationVersion(db) }
    }

    /// The authorization version, without holding a cooperative thread.
    func authorizationVersionAsync() async throws -> Int64 {
        try await readAsync { db in try Self.authorizationVersion(db) }
    }

    private static func authorizationVersion(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT CAST(value AS INTEGER) FROM store_info WHERE key = 'authorization_version'") ?? 0
    }

    static func bumpAuthorizationVersion(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO store_info (key, value) VALUES ('authorization_version', 1)
            ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """)
    }

    /// Reads a sealed characteristic value (nil when never set).
    func characteristic(_ type: String) throws -> Data? {
        try read { db in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT sealed FROM characteristic WHERE type = ?", arguments: [type]) else {
                return nil
            }
            return try cipher.open(sealed, context: Data(type.utf8))
        }
    }

    /// Reads every sealed characteristic value whose key starts with `prefix`, in one statement
    /// (a range on the key's index) and without holding a cooperative thread: keys to values.
    func characteristics(withPrefix prefix: String) async throws -> [String: Data] {
        let cipher = cipher
        return try await readAsync { db in
            // `prefix` ≤ key < `prefix` with its last byte raised: the keys starting with `prefix`.
            var upper = Array(prefix.utf8)
            guard let last = upper.popLast(), last < 0xFF else {
                throw HealthStoreError(.io, "a characteristic prefix must end in a byte below 0xFF")
            }
            upper.append(last + 1)
            let rows = try Row.fetchAll(db, sql: "SELECT type, sealed FROM characteristic WHERE type >= ? AND type < ?",
                                        arguments: [prefix, String(decoding: upper, as: UTF8.self)])
            var values: [String: Data] = [:]
            for row in rows {
                let type: String = row["type"]
                let sealed: Data = row["sealed"]
                values[type] = try cipher.open(sealed, context: Data(type.utf8))
            }
            return values
        }
    }

    /// Seals and stores a characteristic value; nil removes it.
    func setCharacteristic(_ type: String, _ value: Data?) throws {
        let sealed = try value.map { try cipher.seal($0, context: Data(type.utf8)) }
        try write { db in
            if let sealed {
                try db.execute(sql: "INSERT INTO characteristic (type, sealed) VALUES (?, ?) ON CONFLICT (type) DO UPDATE SET sealed = excluded.sealed",
                               arguments: [type, sealed])
            } else {
                try db.execute(sql: "DELETE FROM characteristic WHERE type = ?", arguments: [type])
            }
        }
    }
}
