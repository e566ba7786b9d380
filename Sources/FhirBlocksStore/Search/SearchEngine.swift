import ExactJSON

/// FHIR search evaluated on resources in memory, with no I/O: whether a resource matches a
/// query, its sort key, and the page of an ordered result. The stores run the indexed part of
/// a query in SQL and then apply these exact rules to what they return.
public enum SearchEngine {
    /// Whether `resource` satisfies every clause of `query`.
    public static func matches(_ resource: JSONValue, _ query: SearchQuery) -> Bool {
        query.clauses.allSatisfy { matches(resource, $0) }
    }

    /// Whether `resource` satisfies `clause` (any of its alternatives; `:not` none of them).
    public static func matches(_ resource: JSONValue, _ clause: SearchClause) -> Bool {
        let parameter = clause.parameter
        if clause.modifier == .missing {
            return SearchValues.isPresent(resource, parameter: parameter) != clause.missing
        }
        switch parameter.type {
        case .token:
            let tokens = SearchValues.tokens(resource, parameter: parameter)
            let any = clause.values.contains { value in tokens.contains { token in matches(token, value) } }
            return clause.modifier == .not ? !any : any
        case .date:
            let ranges = SearchValues.dates(resource, parameter: parameter)
            return clause.values.contains { value in
                guard case .date(let prefix, let range) = value else { return false }
                return ranges.contains { prefix.matches($0, range) }
            }
        case .reference:
            let references = SearchValues.references(resource, parameter: parameter)
            return clause.values.contains { value in
                guard case .reference(let type, let id) = value else { return false }
                return references.contains { reference in
                    let parts = SearchValues.unversionedParts(reference)
                    guard parts.last.map(String.init) == id else { return false }
                    return type.map { parts.count >= 2 && parts[parts.count - 2] == $0 } ?? true
                }
            }
        case .string:
            let strings = SearchValues.strings(resource, parameter: parameter)
            return clause.values.contains { value in
                guard case .string(let text) = value else { return false }
                return strings.contains { candidate in
                    switch clause.modifier {
                    case .exact: candidate == text
                    case .contains: candidate.lowercased().contains(text.lowercased())
                    default: candidate.lowercased().hasPrefix(text.lowercased())
                    }
                }
            }
        }
    }

    static func matches(_ token: SearchToken, _ value: SearchValue) -> Bool {
        guard case .token(let system, let code) = value else { return false }
        if let system, token.system != system { return false }
        if let code, token.code != code { return false }
        return true
    }

    /// The key `resource` sorts by under `sort`: nil for `_id`; for a date parameter (and
    /// `_lastUpdated`) its earliest start ascending, its latest end descending, nil if none.
    public static func sortKey(_ resource: JSONValue, sort: SearchSort, type: String) -> Int64? {
        guard sort.key != "_id", let parameter = SearchParameterTable.parameter(sort.key, type: type) else { return nil }
        let ranges = SearchValues.dates(resource, parameter: parameter)
        return sort.descending ? ranges.map(\.high).max() : ranges.map(\.low).min()
    }

    /// Orders `positions`, skips to just after the query's cursor and takes one page; `next`
    /// is the cursor of the following page, nil on the last.
    public static func page(_ positions: [SearchSortPosition], query: SearchQuery) -> (page: [SearchSortPosition], next: SearchCursor?) {
        let descending = query.sort.descending
        var ordered = positions.sorted { $0.precedes($1, descending: descending) }
        if let cursor = query.cursor {
            ordered = ordered.filter { $0.follows(cursor, descending: descending) }
        }
        let page = Array(ordered.prefix(query.count))
        let next = ordered.count > page.count ? page.last.map { SearchCursor(key: $0.key, id: $0.id) } : nil
        return (page, query.count == 0 ? nil : next)
    }
}
