import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// SMART v2 granular scopes (`patient/Observation.rs?category=laboratory`) on the server: a
/// token's filtered grant covers a resource of its type only when the resource matches the
/// grant's query (``ScopeFilter``), each clause read with the R4 search parameter table as a
/// search reads it. Only token parameters can be matched; a clause naming any other parameter
/// matches nothing (the resource stays hidden). Reads, writes and Bulk Data exports resolve the
/// grants per resource (``resolve(_:resource:type:)``, through `FHIRController.visible`); a
/// search adds the query to the store's query where one clause says it all
/// (``searchClause(_:type:)``) and checks every match as a read does.
enum GranularScopes {
    /// Whether any of `grants` is filtered.
    static func anyFiltered(_ grants: [PermissionScope]) -> Bool {
        grants.contains { $0.filter != nil }
    }

    /// `grants` for one resource of `type`: the unfiltered ones, and each filtered one whose
    /// query `resource` matches, without its filter (nil `resource`: none of the filtered).
    static func resolve(_ grants: [PermissionScope], resource: JSONValue?, type: String) -> [PermissionScope] {
        guard anyFiltered(grants) else { return grants }
        return grants.compactMap { grant in
            guard let filter = grant.filter else { return grant }
            guard let resource, matches(filter, resource: resource, type: type) else { return nil }
            return grant.unfiltered
        }
    }

    /// Whether `resource` (of `type`) matches every clause of `filter`.
    static func matches(_ filter: ScopeFilter, resource: JSONValue, type: String) -> Bool {
        let parameters = SearchParameterTable.parameters(type: type)
        for clause in filter.clauses {
            guard let parameter = parameters.first(where: { $0.code == clause.name }), parameter.type == .token else { return false }
            let tokens = SearchValues.tokens(resource, parameter: parameter)
            guard clause.values.contains(where: { value in tokens.contains { matches(value, token: $0) } }) else { return false }
        }
        return true
    }

    /// Whether a token value (`system|code`, `|code` for no system, or `code` in any system)
    /// names `token`.
    static func matches(_ value: String, token: SearchToken) -> Bool {
        guard let bar = value.firstIndex(of: "|") else { return token.code == value }
        return token.system == value[..<bar] && token.code == value[value.index(after: bar)...]
    }

    /// The search parameter that narrows a search of `type` to what `grants` cover, when one
    /// says it all: no unfiltered grant covers searching `type`, and every filtered one that
    /// does is one clause on the same parameter (their values or-ed). Nil otherwise (the
    /// matches are still checked one by one).
    static func searchClause(_ grants: [PermissionScope], type: String) -> (name: String, value: String)? {
        let covering = grants.filter { $0.permissionType == .patient && $0.resource.covers(resourceType: type) && $0.access.contains(.search) }
        guard !covering.isEmpty, covering.allSatisfy({ $0.filter?.clauses.count == 1 }) else { return nil }
        let clauses = covering.compactMap { $0.filter?.clauses.first }
        guard let name = clauses.first?.name, clauses.allSatisfy({ $0.name == name }) else { return nil }
        var values: [String] = []
        for value in clauses.flatMap(\.values) where !values.contains(value) { values.append(value) }
        return (name, values.joined(separator: ","))
    }
}
