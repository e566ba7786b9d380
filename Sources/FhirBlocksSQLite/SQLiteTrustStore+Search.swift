import FhirBlocks
import FhirBlocksStore
import Foundation
import GRDB

extension SQLiteTrustStore {
    /// A search whose clauses are all indexed is answered in two reads on a search reader, off
    /// the calling task's thread, each statement stepped through SQLite's C API within the
    /// query's ``FhirBlocksStore/SearchQuery/timeBudget``: the candidates and their labels,
    /// then (after the label filter, which runs here, on the calling task) the page's rows,
    /// whose own labels are checked again (``FhirBlocksStore/SearchCandidate/labelsAllow(_:isVisible:unlabeledVisible:)``),
    /// so that a resource labelled meanwhile is not shown. Any other search, or a store without search readers, goes through
    /// `TrustStore.searchThroughCandidates(_:patient:isVisible:)`.
    public func search(_ query: SearchQuery, patient: CsiGuid,
                       isVisible: (SecurityLabels) -> Bool) async throws(TrustStoreError) -> SearchResult {
        guard let searchReaders, query.clauses.allSatisfy(\.isIndexed) else {
            return try await searchThroughCandidates(query, patient: patient, isVisible: isVisible)
        }
        let candidates = SearchSQL.candidates(patient: patient.rawValue, query: query, distinct: false)
        let labels = SearchSQL.securityLabels(patient: patient.rawValue, type: query.type)
        do {
            let found = try await searchReaders.readTransaction { db, statement in
                try SQLiteStatementBudget.run(db, budget: query.timeBudget, operation: "search") { _ in
                    try Self.candidates(db, statement: statement, candidates: candidates, labels: labels)
                }
            }
            let visible = SearchCandidate.visible(found, isVisible: isVisible)
            let (page, next) = SearchEngine.page(visible.map { SearchSortPosition(key: $0.sortKey, id: $0.id) }, query: query)
            let ids = page.map(\.id)
            let records = try await searchReaders.readTransaction { db, _ in
                try SQLiteStatementBudget.run(db, budget: query.timeBudget, operation: "search") { _ in
                    try Self.pageRecords(db, patient: patient, type: query.type, ids: ids)
                }
            }
            let unlabeledVisible = isVisible(SecurityLabels(confidentiality: nil, sensitivities: []))
            let shown = page.compactMap { records[$0.id] }.filter {
                SearchCandidate.labelsAllow($0.json, isVisible: isVisible, unlabeledVisible: unlabeledVisible)
            }
            return SearchResult(total: visible.count, records: shown, next: next)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The candidates of an indexed search with their labels, read in one transaction.
    private static func candidates(_ db: Database, statement: (String) throws -> Statement, candidates: SearchSQL.Statement,
                                   labels: SearchSQL.Statement) throws -> [SearchCandidate] {
        // The candidate statement's text depends on the query's shape: kept in the
        // connection's bounded cache (a client could make any number of shapes). Its
        // rows may repeat a resource (no `DISTINCT`): each id is kept once.
        var rows: [(id: String, sortKey: Int64?)] = []
        var seen = Set<String>(minimumCapacity: 256)
        try SQLiteStatementRow.each(statement(candidates.sql), arguments: candidates.arguments) { row in
            let id = row.text(0)
            if seen.insert(id).inserted { rows.append((id, row.optionalInt64(1))) }
        }
        return SearchCandidate.merge(rows, labels: try labelRows(db, labels))
    }

    /// The rows of ``FhirBlocksStore/SearchSQL/securityLabels(patient:type:)``.
    private static func labelRows(_ db: Database, _ labels: SearchSQL.Statement) throws -> [(id: String, system: String, code: String)] {
        var labelRows: [(id: String, system: String, code: String)] = []
        try SQLiteStatementRow.each(db.cachedStatement(sql: labels.sql), arguments: labels.arguments) { row in
            labelRows.append((row.text(0), row.text(1), row.text(2)))
        }
        return labelRows
    }

    /// The resources of `type` in `patient`'s compartment with these ids (at most
    /// ``SearchQuery/maximumCount``), by id: `TrustSQL.resources(patient:type:ids:dialect:)`'s
    /// statements, each prepared once per connection, stepped through SQLite's C API.
    private static func pageRecords(_ db: Database, patient: CsiGuid, type: String, ids: [String]) throws -> [String: FHIRResourceRecord] {
        var records: [String: FHIRResourceRecord] = [:]
        records.reserveCapacity(ids.count)
        for statement in TrustSQL.resources(patient: patient, type: type, ids: ids, dialect: .sqlite) {
            // Columns by position: `TrustSQL.resourceColumns` (type, id, patient, version_id, last_updated, json).
            try SQLiteStatementRow.each(db.cachedStatement(sql: statement.sql), values: statement.arguments) { row in
                guard let versionID = Int(exactly: row.int64(3)) else { throw TrustStoreError.corrupt("fhir_resource") }
                let id = row.text(1)
                records[id] = FHIRResourceRecord(type: type, id: id, patient: patient, versionID: versionID,
                                                 lastUpdated: Timestamp(millisecondsSince1970: row.int64(4)), json: row.bytes(5))
            }
        }
        return records
    }

    public func searchCandidates(patient: CsiGuid, query: SearchQuery) async throws(TrustStoreError) -> [SearchCandidate] {
        let candidates = SearchSQL.candidates(patient: patient.rawValue, query: query)
        let labels = SearchSQL.securityLabels(patient: patient.rawValue, type: query.type)
        return try await read { db in
            try SQLiteStatementBudget.run(db, budget: query.timeBudget, operation: "search") { _ in
                // Columns by position (`id`, `sort_key`; `id`, `system`, `code`), rows decoded as they are stepped.
                var rows: [(id: String, sortKey: Int64?)] = []
                let candidateRows = try Row.fetchCursor(db, sql: candidates.sql, arguments: Self.arguments(candidates.arguments))
                while let row = try candidateRows.next() { rows.append((row[0], row[1])) }
                // The labels' statement has one text whatever the query: prepared once per connection.
                var labelRows: [(id: String, system: String, code: String)] = []
                let labelCursor = try Row.fetchCursor(db.cachedStatement(sql: labels.sql), arguments: Self.arguments(labels.arguments))
                while let row = try labelCursor.next() { labelRows.append((row[0], row[1], row[2])) }
                return SearchCandidate.merge(rows, labels: labelRows)
            }
        }
    }

    public func resources(patient: CsiGuid, type: String, ids: [String]) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        // `TrustSQL`'s statements: at most 512 ids each, padded to a power of two, so that a
        // handful of statement texts, prepared once per connection, serve every batch size.
        let statements = TrustSQL.resources(patient: patient, type: type, ids: ids, dialect: .sqlite)
        guard !statements.isEmpty else { return [] }
        return try await read { db in
            var records: [FHIRResourceRecord] = []
            for statement in statements {
                let rows = try Row.fetchCursor(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
                while let row = try rows.next() { records.append(try SQLiteTrustRows.resourceByPosition(row)) }
            }
            return records
        }
    }

    /// ``TrustSQL``'s values as GRDB binds them: bytes as blobs, booleans as 0 or 1, a list of
    /// strings as one text (``SQLValue/textList(_:separator:)``).
    static func arguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): text
            case .integer(let number): number
            case .bytes(let bytes): bytes.map { Data($0) }
            case .boolean(let flag): flag
            case .textList(let list, let separator): list.joined(separator: separator)
            }
        })
    }

    static func arguments(_ values: [SearchSQLArgument]) -> StatementArguments {
        StatementArguments(values.map { value -> any DatabaseValueConvertible in
            switch value {
            case .text(let text): text
            case .integer(let number): number
            }
        })
    }
}

/// Keeps `fhir_search_token` and `fhir_search_date` in step with `fhir_resource`.
enum SQLiteSearchIndex {
    /// Replaces the index rows of `record`'s resource with its current values
    /// (``SearchIndexSQL/writes(_:dialect:hullSpan:)``, each statement prepared once per
    /// connection; without `hull_span` only in the migration to v6, before the column exists).
    static func write(_ record: FHIRResourceRecord, in db: Database, hullSpan: Bool = true) throws {
        for statement in SearchIndexSQL.writes(record, dialect: .sqlite, hullSpan: hullSpan) {
            try db.cachedStatement(sql: statement.sql).execute(arguments: SQLiteTrustStore.arguments(statement.arguments))
        }
    }

    /// Indexes every stored resource (`TrustSQL.everyResource`; the migration
    /// that adds the index; `hullSpan` as in ``write(_:in:hullSpan:)``).
    static func backfill(in db: Database, hullSpan: Bool = true) throws {
        let cursor = try Row.fetchCursor(db, sql: TrustSQL.everyResource.sql)
        var records: [FHIRResourceRecord] = []
        while let row = try cursor.next() { records.append(try SQLiteTrustRows.resourceByPosition(row)) }
        for record in records { try write(record, in: db, hullSpan: hullSpan) }
    }
}
