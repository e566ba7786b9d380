import FhirBlocks
import FhirBlocksStore
import GRDB

extension SQLiteTrustStore: ResourceHistoryStore {
    /// One row of `fhir_resource_history` by its primary key.
    public func resourceVersion(patient: CsiGuid, type: String, id: String, version: Int) async throws(TrustStoreError) -> FHIRResourceRecord? {
        let statement = ResourceHistorySQL.version(patient: patient, type: type, id: id, version: version)
        return try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
                .map { row in try SQLiteTrustRows.resourceByPosition(row) }
        }
    }

    /// A page of `fhir_resource_history`, newest first.
    public func resourceHistory(patient: CsiGuid, type: String, id: String?, after: ResourceHistoryCursor?, limit: Int) async throws(TrustStoreError)
        -> [FHIRResourceRecord] {
        let statement = ResourceHistorySQL.history(patient: patient, type: type, id: id, after: after, limit: limit, dialect: .sqlite)
        return try await read { db in
            var records: [FHIRResourceRecord] = []
            let rows = try Row.fetchCursor(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
            while let row = try rows.next() { records.append(try SQLiteTrustRows.resourceByPosition(row)) }
            return records
        }
    }

    /// The holders of `type/id` among `patients` (``TrustSQL/resourceHolders(type:id:among:dialect:)``).
    public func resourceHolders(type: String, id: String, among patients: [CsiGuid]) async throws(TrustStoreError) -> [CsiGuid] {
        let statements = TrustSQL.resourceHolders(type: type, id: id, among: patients, dialect: .sqlite)
        guard !statements.isEmpty else { return [] }
        let found = try await read { db in
            var holders: Set<String> = []
            for statement in statements {
                let rows = try Row.fetchCursor(db.cachedStatement(sql: statement.sql), arguments: Self.arguments(statement.arguments))
                while let row = try rows.next() {
                    let text: String? = row[0]
                    holders.insert(text ?? "")
                }
            }
            return holders
        }
        var holders: [CsiGuid] = []
        for text in found {
            guard let patient = CsiGuid(text) else { throw .corrupt("fhir_resource_history") }
            holders.append(patient)
        }
        return holders.sorted { $0.rawValue < $1.rawValue }
    }
}
