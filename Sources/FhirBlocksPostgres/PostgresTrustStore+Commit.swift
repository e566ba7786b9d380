import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

extension PostgresTrustStore {
    /// Applies `change` in one transaction: ``TrustSQL``'s statements (see
    /// ``TrustSQL/writes(_:)`` for what each checks), the search index rows of each resource
    /// written (``PostgresSearchIndex``), then the audit entries.
    ///
    /// Audit entries take `LOCK TABLE audit_entry IN EXCLUSIVE MODE` (readers go on, other
    /// writers of the log wait for this commit) and number from `MAX(idx) + 1`, so the log stays
    /// dense and in commit order under concurrent commits.
    @discardableResult
    public func commit(_ change: TrustChange) async throws(TrustStoreError) -> [Int] {
        if change.isEmpty { return [] }
        return try await withTransaction { connection, logger in
            try await Self.apply(change, on: connection, logger: logger)
        }
    }

    private static func apply(_ change: TrustChange, on connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        for write in TrustSQL.writes(change) {
            let query = Self.query(write.statement)
            do {
                let rows = try await connection.query(query, logger: logger).collect()
                if let missing = write.expectsRow, rows.isEmpty { throw missing }
            } catch where write.onUniqueViolation != nil && PostgresErrorMapping.sqlState(of: error) == PostgresErrorMapping.uniqueViolation {
                throw write.onUniqueViolation ?? TrustStoreError.corrupt("unique violation")
            }
            if let resource = write.indexes { try await PostgresSearchIndex.write(resource.record, on: connection, logger: logger) }
        }
        guard !change.auditEntries.isEmpty else { return [] }
        try await connection.query("LOCK TABLE audit_entry IN EXCLUSIVE MODE", logger: logger)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: TrustSQL.nextAuditIndex), logger: logger).collect()
        guard let first = rows.first else { throw TrustStoreError.corrupt("audit_entry") }
        let next = try first.decode(Int64.self)
        try await appendAudit(change.auditEntries, from: next, on: connection, logger: logger)
        return (0..<change.auditEntries.count).map { Int(next) + $0 }
    }

    /// ``TrustSQL``'s statement with its `?` numbered (``SQLDialect/placeholders(_:)``) and its
    /// values bound: bytes as `bytea`, a list of strings as `text[]`.
    static func query(_ statement: SQLStatement) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: statement.arguments.count)
        for argument in statement.arguments {
            switch argument {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            case .bytes(let bytes): bindings.append(bytes.map { ByteBuffer(bytes: $0) })
            case .boolean(let flag): bindings.append(flag)
            case .textList(let list, _): bindings.append(list)
            }
        }
        return PostgresQuery(unsafeSQL: SQLDialect.postgres.placeholders(statement.sql), binds: bindings)
    }

    /// The most rows one audit insert carries (4 parameters each).
    static let auditRowsPerInsert = 64

    /// Inserts `entries` with indexes from `first` on, up to ``auditRowsPerInsert`` rows a
    /// statement (``TrustSQL/auditInsert(rows:)``): one round trip for a usual group instead of
    /// one per entry.
    private static func appendAudit(_ entries: [PendingAuditEntry], from first: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        var start = 0
        while start < entries.count {
            let rows = min(auditRowsPerInsert, entries.count - start)
            var bindings = PostgresBindings(capacity: 4 * rows)
            for offset in start..<(start + rows) {
                let pending = entries[offset]
                bindings.append(first + Int64(offset))
                bindings.append(ByteBuffer(bytes: pending.leafHash.bytes))
                bindings.append(ByteBuffer(bytes: pending.canonicalBytes))
                bindings.append(pending.signatureDigest)
            }
            let sql = SQLDialect.postgres.placeholders(TrustSQL.auditInsert(rows: rows))
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            start += rows
        }
    }
}
