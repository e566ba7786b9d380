import FhirBlocks
import FhirBlocksStore
import Logging
import NIOCore
import PostgresNIO

extension PostgresTrustStore {
    public func searchCandidates(patient: CsiGuid, query: SearchQuery) async throws(TrustStoreError) -> [SearchCandidate] {
        let candidates = try Self.query(SearchSQL.candidates(patient: patient.rawValue, query: query, dialect: .postgres))
        let labels = try Self.query(SearchSQL.securityLabels(patient: patient.rawValue, type: query.type))
        let read: @Sendable (PostgresConnection, Logger) async throws -> [SearchCandidate] = { connection, logger in
            var rows: [(id: String, sortKey: Int64?)] = []
            for try await (id, key) in try await connection.query(candidates, logger: logger).decode((String, Int64?).self) {
                rows.append((id, key))
            }
            var labelRows: [(id: String, system: String, code: String)] = []
            for try await (id, system, code) in try await connection.query(labels, logger: logger).decode((String, String, String).self) {
                labelRows.append((id, system, code))
            }
            return SearchCandidate.merge(rows, labels: labelRows)
        }
        guard let budget = query.timeBudget else { return try await withConnection(read) }
        // `statement_timeout` for this transaction's statements only (`SET LOCAL`), in whole
        // milliseconds, at least 1 (0 would mean none).
        let milliseconds = Self.statementTimeoutMilliseconds(budget)
        return try await withTransaction { connection, logger in
            do {
                try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: logger)
                return try await read(connection, logger)
            } catch where PostgresErrorMapping.sqlState(of: error) == PostgresErrorMapping.queryCanceled {
                throw TrustStoreError.timedOut("search")
            }
        }
    }

    /// A time budget as `statement_timeout`'s whole milliseconds, rounded up, at least 1.
    static func statementTimeoutMilliseconds(_ budget: Duration) -> Int64 {
        let (seconds, attoseconds) = budget.components
        guard seconds >= 0 else { return 1 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return Int64(Int32.max) }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return min(Int64(Int32.max), max(1, whole + fraction))
    }

    public func resources(patient: CsiGuid, type: String, ids: [String]) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        // `TrustSQL`'s statement: the ids bound as one `text[]` (`id = ANY(…)`).
        var records: [FHIRResourceRecord] = []
        for statement in TrustSQL.resources(patient: patient, type: type, ids: ids, dialect: .postgres) {
            records += try await rows(statement).map(PostgresRows.resource)
        }
        return records
    }

    /// ``SearchSQL``'s statement with `?` numbered `$1`, `$2`… (``SQLDialect/placeholders(_:)``;
    /// its text has no other `?`).
    static func query(_ statement: SearchSQL.Statement) throws(TrustStoreError) -> PostgresQuery {
        let sql = SQLDialect.postgres.placeholders(statement.sql)
        let number = statement.sql.utf8.count { $0 == UInt8(ascii: "?") }
        var bindings = PostgresBindings(capacity: statement.arguments.count)
        for argument in statement.arguments {
            switch argument {
            case .text(let text): bindings.append(text, context: .default)
            case .integer(let value): bindings.append(value, context: .default)
            }
        }
        guard number == statement.arguments.count else { throw .corrupt("search statement") }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// Keeps `fhir_search_token` and `fhir_search_date` in step with `fhir_resource`.
enum PostgresSearchIndex {
    /// Replaces the index rows of `record`'s resource with its current values
    /// (``SearchIndexSQL/writes(_:dialect:hullSpan:)``, up to 64 rows a statement).
    static func write(_ record: FHIRResourceRecord, on connection: PostgresConnection, logger: Logger) async throws {
        for statement in SearchIndexSQL.writes(record, dialect: .postgres) {
            try await connection.query(PostgresTrustStore.query(statement), logger: logger)
        }
    }

    /// Indexes every stored resource (`TrustSQL.everyResource`; the migration
    /// that adds the index).
    static func backfill(on connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(PostgresTrustStore.query(TrustSQL.everyResource), logger: logger).collect()
        for row in rows {
            try await write(try PostgresRows.resource(row), on: connection, logger: logger)
        }
    }
}
