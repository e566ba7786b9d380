import FhirBlocks

/// The versions of FHIR resources a store keeps in `fhir_resource_history` (every version a
/// commit wrote, ``TrustSQL``'s resource writes): FHIR `vread` and the instance and type
/// `_history`. Both stores conform; the server asks for it by a cast, so a store that keeps
/// no history answers as if it had none.
public protocol ResourceHistoryStore: Sendable {
    /// Version `version` of `type/id` in `patient`'s compartment, if stored.
    func resourceVersion(patient: CsiGuid, type: String, id: String, version: Int) async throws(TrustStoreError) -> FHIRResourceRecord?
    /// Up to `limit` versions of `type` in `patient`'s compartment (of one resource when `id` is
    /// given), newest first (by `lastUpdated`, then id and version, all descending), after
    /// `after` in that order (from the newest when nil).
    func resourceHistory(patient: CsiGuid, type: String, id: String?, after: ResourceHistoryCursor?, limit: Int) async throws(TrustStoreError)
        -> [FHIRResourceRecord]
}

/// Where a page of history starts: the last version of the page before, in the history's
/// order (newest first).
public struct ResourceHistoryCursor: Sendable, Hashable {
    /// The version's `lastUpdated`, in milliseconds since 1970.
    public var lastUpdated: Int64
    /// The resource's id.
    public var id: String
    /// The version.
    public var version: Int

    /// A cursor after the version `record`.
    public init(after record: FHIRResourceRecord) {
        self.init(lastUpdated: record.lastUpdated.millisecondsSince1970, id: record.id, version: record.versionID)
    }

    /// A cursor from its parts.
    public init(lastUpdated: Int64, id: String, version: Int) {
        self.lastUpdated = lastUpdated
        self.id = id
        self.version = version
    }

    /// The cursor as `lastUpdated.version.id` (an id may hold dots; it comes last).
    public var text: String { "\(lastUpdated).\(version).\(id)" }

    /// Reads ``text``; nil when malformed.
    public init?(text: String) {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let lastUpdated = Int64(parts[0]), let version = Int(parts[1]), version >= 1, !parts[2].isEmpty else { return nil }
        self.init(lastUpdated: lastUpdated, id: String(parts[2]), version: version)
    }
}

/// The statements of ``ResourceHistoryStore``, for both dialects.
public enum ResourceHistorySQL {
    /// One version of a resource.
    public static func version(patient: CsiGuid, type: String, id: String, version: Int) -> SQLStatement {
        SQLStatement("SELECT \(TrustSQL.resourceColumns) FROM fhir_resource_history WHERE patient = ? AND type = ? AND id = ? AND version_id = ?",
                     [.text(patient.rawValue), .text(type), .text(id), .integer(Int64(version))])
    }

    /// A page of history, newest first (see ``ResourceHistoryStore/resourceHistory(patient:type:id:after:limit:)``).
    public static func history(patient: CsiGuid, type: String, id: String?, after: ResourceHistoryCursor?, limit: Int,
                               dialect: SQLDialect) -> SQLStatement {
        let idColumn = dialect == .postgres ? #"id COLLATE "C""# : "id"
        var sql = "SELECT \(TrustSQL.resourceColumns) FROM fhir_resource_history WHERE patient = ? AND type = ?"
        var arguments: [SQLValue] = [.text(patient.rawValue), .text(type)]
        if let id {
            sql += " AND id = ?"
            arguments.append(.text(id))
        }
        if let after {
            sql += " AND (last_updated, \(idColumn), version_id) < (?, ?, ?)"
            arguments += [.integer(after.lastUpdated), .text(after.id), .integer(Int64(after.version))]
        }
        sql += " ORDER BY last_updated DESC, \(idColumn) DESC, version_id DESC LIMIT ?"
        return SQLStatement(sql, arguments + [.integer(Int64(max(limit, 0)))])
    }
}
