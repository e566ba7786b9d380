/// A date comparison prefix (`eq ne lt gt le ge sa eb`; `eq` when absent).
public enum SearchDatePrefix: String, Sendable, Hashable, CaseIterable {
    case eq, ne, lt, gt, le, ge, sa, eb

    /// Whether a resource's value `target` satisfies this prefix against the query's `value`,
    /// by FHIR's range rules.
    public func matches(_ target: SearchDateRange, _ value: SearchDateRange) -> Bool {
        let contained = value.low <= target.low && target.high <= value.high
        switch self {
        case .eq: return contained
        case .ne: return !contained
        case .gt: return target.high > value.high
        case .lt: return target.low < value.low
        case .ge: return target.high > value.high || contained
        case .le: return target.low < value.low || contained
        case .sa: return target.low > value.high
        case .eb: return target.high < value.low
        }
    }
}

/// One value of a search parameter (values separated by commas are alternatives).
public enum SearchValue: Sendable, Hashable {
    /// `code`, `system|code`, `|code` (no system: `system` is the empty string) or `system|`
    /// (`code` nil). `system` nil means any system.
    case token(system: String?, code: String?)
    /// A date with its prefix.
    case date(SearchDatePrefix, SearchDateRange)
    /// `Type/id` or `id` (`type` nil), or an absolute URL ending so.
    case reference(type: String?, id: String)
    /// A string (matched from its start, ignoring case, unless `exact`).
    case string(String)
}

/// What a modifier asks of a parameter.
public enum SearchModifier: String, Sendable, Hashable {
    /// Token: none of the resource's values may match.
    case not
    /// String: the whole value must equal, case and all.
    case exact
    /// String: the value may appear anywhere.
    case contains
    /// Any: `true` for resources without the element, `false` for those with it.
    case missing
}

/// One parameter of a query: its values are alternatives (comma = OR); the clauses of a query
/// must all hold (a repeated parameter = AND).
public struct SearchClause: Sendable, Hashable {
    /// The parameter.
    public var parameter: SearchParameterDefinition
    /// Its modifier, if any.
    public var modifier: SearchModifier?
    /// The alternatives (empty for `:missing`).
    public var values: [SearchValue]
    /// For `:missing`, whether the element must be missing.
    public var missing: Bool

    /// A clause.
    public init(parameter: SearchParameterDefinition, modifier: SearchModifier? = nil, values: [SearchValue], missing: Bool = false) {
        self.parameter = parameter
        self.modifier = modifier
        self.values = values
        self.missing = missing
    }

    /// Whether the store's index decides this clause exactly (token and date parameters).
    public var isIndexed: Bool {
        switch parameter.type {
        case .token: modifier == nil || modifier == .not || modifier == .missing
        case .date: modifier == nil || modifier == .missing
        case .reference, .string: false
        }
    }
}

/// The order of a search's results: by `_id`, by `_lastUpdated` or by a date parameter, then by id.
public struct SearchSort: Sendable, Hashable {
    /// `_id`, `_lastUpdated` or the code of a date parameter.
    public var key: String
    /// Whether it is descending (`_sort=-date`).
    public var descending: Bool

    /// A sort.
    public init(key: String = "_id", descending: Bool = false) {
        self.key = key
        self.descending = descending
    }
}

/// A parsed FHIR search over one resource type in one compartment.
public struct SearchQuery: Sendable, Hashable {
    /// The resource type searched.
    public var type: String
    /// The clauses, all of which must hold.
    public var clauses: [SearchClause]
    /// The `patient`/`subject` values (the compartment they name is checked by the caller).
    public var compartment: [String]
    /// The page size (`_count`, default 50, at most 1000).
    public var count: Int
    /// The order.
    public var sort: SearchSort
    /// Where the page starts (`_cursor` from a `next` link).
    public var cursor: SearchCursor?
    /// The names of parameters that were not understood and were ignored.
    public var ignored: [String]
    /// How long each database statement of the search may run before the store stops it and
    /// throws ``TrustStoreError/timedOut(_:)`` (nil: no limit; on SQLite, the statements of
    /// one read together). Set by the server, not parsed.
    public var timeBudget: Duration?

    /// The default page size.
    public static let defaultCount = 50
    /// The largest page size.
    public static let maximumCount = 1000

    /// The most values a query may have in all: every alternative of every clause (a
    /// `:missing` clause counts one) and every `patient`/`subject` value. Beyond it the
    /// statement would approach the databases' limits (SQLite's expression depth of 1,000 and
    /// its 32,766 variables) and its cost: it is refused before any is run.
    public static let maximumValues = 100

    /// The most clauses (parameters, repeats counted) a query may have: each `date` clause on
    /// a code-driven search adds a test to every branch of the statement, whose planning then
    /// grows faster than its length.
    public static let maximumClauses = 32

    /// Parameters that control the result rather than select resources; accepted, not
    /// listed as ignored (`_format` is the HTTP layer's; `_total` is always accurate here).
    static let resultParameters: Set<String> = ["_format", "_total", "_pretty"]

    /// A query (tests build them directly).
    public init(type: String, clauses: [SearchClause] = [], compartment: [String] = [], count: Int = SearchQuery.defaultCount,
                sort: SearchSort = SearchSort(), cursor: SearchCursor? = nil, ignored: [String] = []) {
        self.type = type
        self.clauses = clauses
        self.compartment = compartment
        self.count = count
        self.sort = sort
        self.cursor = cursor
        self.ignored = ignored
    }

    /// Parses decoded `name=value` pairs (in order, repeats kept). Unknown parameters are
    /// listed in ``ignored``, or refused when `strict`. Malformed values of known parameters
    /// are always refused.
    public init(type: String, parameters: [(name: String, value: String)], strict: Bool) throws(SearchError) {
        self.init(type: type)
        for (rawName, value) in parameters {
            let nameParts = rawName.split(separator: ":", maxSplits: 1).map(String.init)
            let name = nameParts.first ?? rawName
            let modifierText = nameParts.count == 2 ? nameParts[1] : nil
            switch name {
            case "_count":
                guard modifierText == nil, let number = Int(value), number >= 0 else { throw .invalid("_count must be a whole number") }
                count = min(number, Self.maximumCount)
                continue
            case "_sort":
                sort = try Self.parseSort(value, type: type)
                continue
            case "_cursor":
                guard let parsed = SearchCursor(text: value) else { throw .invalid("the paging cursor is not valid") }
                cursor = parsed
                continue
            case "patient", "subject":
                if modifierText == nil {
                    compartment.append(contentsOf: value.split(separator: ",").map(String.init))
                    continue
                }
            default:
                if Self.resultParameters.contains(name) { continue }
            }
            guard let parameter = SearchParameterTable.parameter(name, type: type) else {
                if strict { throw .unknownParameter(rawName) }
                ignored.append(rawName)
                continue
            }
            var modifier: SearchModifier?
            if let modifierText {
                guard let known = SearchModifier(rawValue: modifierText), Self.allows(known, on: parameter.type) else {
                    throw .invalid("the modifier :\(modifierText) is not supported on \(name)")
                }
                modifier = known
            }
            if modifier == .missing {
                guard value == "true" || value == "false" else { throw .invalid(":missing takes true or false") }
                clauses.append(SearchClause(parameter: parameter, modifier: .missing, values: [], missing: value == "true"))
                continue
            }
            var values: [SearchValue] = []
            for alternative in Self.splitAlternatives(value) {
                values.append(try Self.parseValue(alternative, type: parameter.type, name: name))
            }
            guard !values.isEmpty else { throw .invalid("\(name) has no value") }
            clauses.append(SearchClause(parameter: parameter, modifier: modifier, values: values))
        }
        guard clauses.count <= Self.maximumClauses else {
            throw .invalid("a search may have at most \(Self.maximumClauses) clauses (search parameters, repeats counted); "
                + "this one has \(clauses.count)")
        }
        guard valueCount <= Self.maximumValues else {
            throw .invalid("a search may have at most \(Self.maximumValues) values in all (alternatives of every parameter, "
                + "each :missing counting one, and patient or subject values); this one has \(valueCount)")
        }
    }

    /// How many values the query has, as ``maximumValues`` counts them.
    public var valueCount: Int {
        clauses.reduce(compartment.count) { $0 + max(1, $1.values.count) }
    }

    static func allows(_ modifier: SearchModifier, on type: SearchParameterType) -> Bool {
        switch modifier {
        case .missing: true
        case .not: type == .token
        case .exact, .contains: type == .string
        }
    }

    /// Splits on commas not escaped with `\`, and unescapes `\,` `\|` `\$` `\\`.
    static func splitAlternatives(_ text: String) -> [String] {
        // Most values have neither a comma nor a backslash: the value itself is the one part.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\\") }) { return text.isEmpty ? [] : [text] }
        return splitAlternativesByCharacter(text)
    }

    /// ``splitAlternatives(_:)`` character by character (any text).
    static func splitAlternativesByCharacter(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                if character != "," && character != "$" && character != "\\" { current.append("\\") }
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        parts.append(current)
        return parts.filter { !$0.isEmpty }
    }

    static func parseValue(_ text: String, type: SearchParameterType, name: String) throws(SearchError) -> SearchValue {
        switch type {
        case .token:
            guard let bar = Self.unescapedBar(in: text) else { return .token(system: nil, code: Self.unescape(text)) }
            let system = Self.unescape(String(text[..<bar]))
            let code = Self.unescape(String(text[text.index(after: bar)...]))
            guard !(system.isEmpty && code.isEmpty) else { throw .invalid("\(name) needs a system or a code") }
            return .token(system: system, code: code.isEmpty ? nil : code)
        case .date:
            var prefix = SearchDatePrefix.eq
            var rest = Substring(text)
            if let candidate = SearchDatePrefix(rawValue: String(text.prefix(2))), text.count > 2 {
                prefix = candidate
                rest = text.dropFirst(2)
            }
            guard let range = SearchDateRange(fhir: String(rest)) else { throw .invalid("\(name) is not a FHIR date") }
            return .date(prefix, range)
        case .reference:
            let parts = text.split(separator: "/").map(String.init)
            guard let id = parts.last, !id.isEmpty else { throw .invalid("\(name) is not a reference") }
            return .reference(type: parts.count >= 2 ? parts[parts.count - 2] : nil, id: id)
        case .string:
            return .string(text)
        }
    }

    static func unescapedBar(in text: String) -> String.Index? {
        // ASCII without a backslash: every byte is its own character (a `|` cannot be part of
        // a `\r\n`), so the first `|` byte is the one.
        if text.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) { return text.utf8.firstIndex(of: UInt8(ascii: "|")) }
        return unescapedBarByCharacter(in: text)
    }

    /// ``unescapedBar(in:)`` character by character (any text).
    static func unescapedBarByCharacter(in text: String) -> String.Index? {
        var escaped = false
        for index in text.indices {
            if escaped { escaped = false; continue }
            if text[index] == "\\" { escaped = true } else if text[index] == "|" { return index }
        }
        return nil
    }

    static func unescape(_ text: String) -> String {
        text.utf8.contains(UInt8(ascii: "\\")) ? text.replacingOccurrences(of: "\\|", with: "|") : text
    }

    static func parseSort(_ text: String, type: String) throws(SearchError) -> SearchSort {
        let keys = text.split(separator: ",").map(String.init)
        guard keys.count == 1, let key = keys.first else { throw .invalid("_sort takes one key") }
        let descending = key.hasPrefix("-")
        let name = descending ? String(key.dropFirst()) : key
        if name == "_id" || name == "_lastUpdated" { return SearchSort(key: name, descending: descending) }
        guard let parameter = SearchParameterTable.parameter(name, type: type), parameter.type == .date else {
            throw .invalid("_sort supports _id, _lastUpdated and date parameters")
        }
        return SearchSort(key: name, descending: descending)
    }
}

/// Why a search was refused (HTTP 400). Messages name parameters, never values.
public enum SearchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A known parameter with a value or modifier that cannot be used.
    case invalid(String)
    /// An unknown parameter under `Prefer: handling=strict`.
    case unknownParameter(String)

    public var description: String {
        switch self {
        case .invalid(let reason): reason
        case .unknownParameter(let name): "unknown search parameter \(name)"
        }
    }
}
