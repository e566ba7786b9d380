import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The kick-off parameters of a Bulk Data export (Bulk Data Access IG v2): `_type` (resource
/// types, comma-separated, the parameter repeatable), `_since` (a FHIR instant: only resources
/// updated at or after it), `_outputFormat` (`application/fhir+ndjson`,
/// `application/ndjson` or `ndjson`, the only format written) and `_typeFilter` (FHIR search
/// queries `Type?name=value&…`, comma-separated, the parameter repeatable: a resource of a type
/// with filters is exported when it matches any of them, by the server's search rules,
/// `SearchQuery` and `SearchEngine`). Every other parameter (`_elements`, `patient`,
/// `includeAssociatedData`…), and a `_typeFilter` the search cannot answer exactly (an unknown
/// type or search parameter, a bad value, a `patient`/`subject` clause, a paging or sorting
/// parameter), is not supported: refused, or under `Prefer: handling=lenient` ignored and
/// named in ``ignored``.
struct BulkExportParameters: Sendable, Equatable {
    /// The resource types asked for, without repeats, in the order given; empty for all.
    var types: [String] = []
    /// `_since`.
    var since: Timestamp?
    /// `_typeFilter`: each type's queries (a resource of the type is kept when it matches any).
    var typeFilters: [String: [SearchQuery]] = [:]
    /// The unsupported parameters ignored (lenient handling), by name, in the order given.
    var ignored: [String] = []

    /// The largest number of `_typeFilter` queries read.
    static let maximumTypeFilters = 50
    /// The search parameters a `_typeFilter` query may not use: paging, sorting and result shaping.
    static let unfilteringParameters: Set<String> = ["_count", "_sort", "_cursor", "_include", "_revinclude", "_summary", "_elements", "_total",
                                                     "_contained", "_containedType"]

    /// The output formats `_outputFormat` may name.
    static let outputFormats: Set<String> = ["application/fhir+ndjson", "application/ndjson", "ndjson"]

    /// The parameters of `query` (a raw query string); `lenient` ignores unsupported ones
    /// instead of refusing them. Throws a reason for a 400.
    init(query: String, lenient: Bool) throws(BulkExportRefusal) {
        let fields: [(name: String, value: String)]
        do {
            fields = try FormBody.parse(Array(query.utf8), mode: .strict, repeatsAllowed: true).value.fields
        } catch {
            throw BulkExportRefusal("the query string cannot be read")
        }
        for (name, value) in fields {
            switch name {
            case "_type":
                for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let type = String(part).trimmingASCIISpaces
                    guard ResourceScope(type) != nil, type != "*" else {
                        if lenient { ignored.append("_type=\(type)"); continue }
                        throw BulkExportRefusal("_type names an unknown resource type")
                    }
                    if !types.contains(type) { types.append(type) }
                }
            case "_since":
                guard since == nil, let range = SearchDateRange(fhir: value) else { throw BulkExportRefusal("_since must be one FHIR instant") }
                since = Timestamp(millisecondsSince1970: range.low)
            case "_outputFormat":
                guard Self.outputFormats.contains(value) else { throw BulkExportRefusal("_outputFormat must be application/fhir+ndjson") }
            case "_typeFilter":
                for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                    do throws(BulkExportRefusal) {
                        let query = try Self.typeFilter(String(part))
                        guard typeFilters.values.reduce(0, { $0 + $1.count }) < Self.maximumTypeFilters else {
                            throw BulkExportRefusal("at most \(Self.maximumTypeFilters) _typeFilter queries")
                        }
                        typeFilters[query.type, default: []].append(query)
                    } catch {
                        if lenient { ignored.append("_typeFilter=\(part)"); continue }
                        throw error
                    }
                }
            default:
                if lenient { ignored.append(name); continue }
                throw BulkExportRefusal("the parameter \(name) is not supported")
            }
        }
    }
}

extension BulkExportParameters {
    /// Reads one `_typeFilter` query, `Type?name=value&…` (its values percent-encoded), as a
    /// search of `Type` the server answers exactly; throws the reason it cannot.
    static func typeFilter(_ text: String) throws(BulkExportRefusal) -> SearchQuery {
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let type = String(parts[0])
        guard ResourceScope(type) != nil, type != "*", parts.count == 2, !parts[1].isEmpty else {
            throw BulkExportRefusal("a _typeFilter must be a resource type, ?, then a search query")
        }
        let fields: [(name: String, value: String)]
        do {
            fields = try FormBody.parse(Array(parts[1].utf8), mode: .strict, repeatsAllowed: true).value.fields
        } catch {
            throw BulkExportRefusal("a _typeFilter's query cannot be read")
        }
        for field in fields where unfilteringParameters.contains(String(field.name.prefix { $0 != ":" })) {
            throw BulkExportRefusal("a _typeFilter may not use \(field.name)")
        }
        let query: SearchQuery
        do {
            query = try SearchQuery(type: type, parameters: fields, strict: true)
        } catch {
            throw BulkExportRefusal("the _typeFilter on \(type) is not supported: \(error.description)")
        }
        guard query.compartment.isEmpty else { throw BulkExportRefusal("a _typeFilter may not name a patient or subject") }
        guard !query.clauses.isEmpty else { throw BulkExportRefusal("a _typeFilter must have a search parameter") }
        return query
    }

    /// Whether a resource of `type`, read as `resource`, passes the `_typeFilter` queries of its type (true when it has none).
    func passesTypeFilter(_ resource: JSONValue, type: String) -> Bool {
        guard let queries = typeFilters[type] else { return true }
        return queries.contains { SearchEngine.matches(resource, $0) }
    }
}

/// Why a kick-off is refused with 400.
struct BulkExportRefusal: Error, Sendable, Equatable {
    /// The reason, as the OperationOutcome's diagnostics.
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

extension String {
    /// Without leading and trailing ASCII spaces.
    fileprivate var trimmingASCIISpaces: String {
        let utf8 = Array(self.utf8)
        guard let first = utf8.firstIndex(where: { $0 != UInt8(ascii: " ") }), let last = utf8.lastIndex(where: { $0 != UInt8(ascii: " ") }) else {
            return ""
        }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
