import ExactJSON
import FhirBlocks

/// A resource the indexed part of a search selected: its id, sort key and security labels
/// (from the index: the JSON is read only for the page shown).
public struct SearchCandidate: Sendable, Hashable {
    /// The resource's id.
    public var id: String
    /// Its sort key (see ``SearchEngine/sortKey(_:sort:type:)``).
    public var sortKey: Int64?
    /// Its `meta.security` codings.
    public var security: [SearchToken]

    /// A candidate.
    public init(id: String, sortKey: Int64?, security: [SearchToken]) {
        self.id = id
        self.sortKey = sortKey
        self.security = security
    }

    /// Its security labels, read exactly as `SecurityLabels.init(resource:)` reads
    /// the resource's own `meta.security`.
    public var labels: SecurityLabels {
        let codings: [JSONValue] = security.map { token in
            var coding = JSONObject()
            if !token.system.isEmpty { coding.append("system", .string(token.system)) }
            if !token.code.isEmpty { coding.append("code", .string(token.code)) }
            return .object(coding)
        }
        return SecurityLabels(resource: .object(JSONObject(members: [
            JSONMember(key: "meta", value: .object(JSONObject(members: [JSONMember(key: "security", value: .array(codings))]))),
        ])))
    }

    /// Candidates from the rows of ``SearchSQL/candidates(patient:query:distinct:dialect:)`` and
    /// ``SearchSQL/securityLabels(patient:type:)``.
    public static func merge(_ rows: [(id: String, sortKey: Int64?)], labels: [(id: String, system: String, code: String)]) -> [SearchCandidate] {
        let byID = Dictionary(grouping: labels, by: \.id)
        return rows.map { row in
            SearchCandidate(id: row.id, sortKey: row.sortKey,
                            security: (byID[row.id] ?? []).map { SearchToken(system: $0.system, code: $0.code) })
        }
    }
}

/// One page of a search: the total, the page's records in order, and where the next starts.
public struct SearchResult: Sendable {
    /// How many resources match and may be seen (over every page).
    public var total: Int
    /// This page's resources, in order.
    public var records: [FHIRResourceRecord]
    /// The cursor of the next page, nil on the last.
    public var next: SearchCursor?

    /// A result.
    public init(total: Int, records: [FHIRResourceRecord], next: SearchCursor?) {
        self.total = total
        self.records = records
        self.next = next
    }
}

extension SearchCandidate {
    /// The candidates whose labels `isVisible` allows, in their order. Most resources carry no
    /// security label: their verdict is the same, decided once.
    public static func visible(_ candidates: [SearchCandidate], isVisible: (SecurityLabels) -> Bool) -> [SearchCandidate] {
        let unlabeledVisible = isVisible(SearchCandidate(id: "", sortKey: nil, security: []).labels)
        return candidates.filter { $0.security.isEmpty ? unlabeledVisible : isVisible($0.labels) }
    }
}

extension SearchCandidate {
    /// Whether the labels in a page's own JSON still allow it: the last check before a page is
    /// answered. The candidates' labels and the page's JSON are two reads, and a store whose
    /// reads see different snapshots (PostgreSQL's read committed) could otherwise answer a
    /// version labelled in between. A resource whose bytes mention neither `security` nor a
    /// `\u` escape (which could spell it) has no labels, and needs no parse; one that cannot be
    /// read is not shown.
    public static func labelsAllow(_ json: [UInt8], isVisible: (SecurityLabels) -> Bool, unlabeledVisible: Bool) -> Bool {
        guard json.firstRange(of: securityName) != nil || json.firstRange(of: unicodeEscape) != nil else { return unlabeledVisible }
        guard let value = try? JSONParser.parse(json) else { return false }
        return isVisible(SecurityLabels(resource: value))
    }

    /// The member name whose absence (with no escape) proves a resource has no `meta.security`.
    private static let securityName = Array("security".utf8)
    /// A JSON `\u` escape.
    private static let unicodeEscape = Array(#"\u"#.utf8)
}

extension ResourceStore {
    /// ``searchThroughCandidates(_:patient:isVisible:)``.
    public func search(_ query: SearchQuery, patient: CsiGuid,
                       isVisible: (SecurityLabels) -> Bool) async throws(TrustStoreError) -> SearchResult {
        try await searchThroughCandidates(query, patient: patient, isVisible: isVisible)
    }

    /// Runs `query` in `patient`'s compartment, keeping only resources whose labels
    /// `isVisible` allows: the indexed clauses in SQL, the others (reference and string
    /// parameters, string modifiers) by ``SearchEngine`` over the candidates' JSON. Only the
    /// page's JSON is read when every clause is indexed.
    public func searchThroughCandidates(_ query: SearchQuery, patient: CsiGuid,
                                        isVisible: (SecurityLabels) -> Bool) async throws(TrustStoreError) -> SearchResult {
        let candidates = SearchCandidate.visible(try await searchCandidates(patient: patient, query: query), isVisible: isVisible)
        let unlabeledVisible = isVisible(SecurityLabels(confidentiality: nil, sensitivities: []))
        if query.clauses.allSatisfy(\.isIndexed) {
            let (page, next) = SearchEngine.page(candidates.map { SearchSortPosition(key: $0.sortKey, id: $0.id) }, query: query)
            let records = try await resources(patient: patient, type: query.type, ids: page.map(\.id))
            let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let shown = page.compactMap { byID[$0.id] }.filter {
                SearchCandidate.labelsAllow($0.json, isVisible: isVisible, unlabeledVisible: unlabeledVisible)
            }
            return SearchResult(total: candidates.count, records: shown, next: next)
        }
        var matching: [String: FHIRResourceRecord] = [:]
        var positions: [SearchSortPosition] = []
        let keys = Dictionary(candidates.map { ($0.id, $0.sortKey) }, uniquingKeysWith: { first, _ in first })
        var start = 0
        while start < candidates.count {
            let batch = candidates[start..<min(start + 500, candidates.count)].map(\.id)
            start += batch.count
            for record in try await resources(patient: patient, type: query.type, ids: batch) {
                guard let value = try? JSONParser.parse(record.json), SearchEngine.matches(value, query),
                      isVisible(SecurityLabels(resource: value)) else { continue }
                matching[record.id] = record
                positions.append(SearchSortPosition(key: keys[record.id] ?? nil, id: record.id))
            }
        }
        let (page, next) = SearchEngine.page(positions, query: query)
        return SearchResult(total: positions.count, records: page.compactMap { matching[$0.id] }, next: next)
    }
}
