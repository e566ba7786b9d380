/// The query of a SMART v2 granular scope (`patient/Observation.rs?category=laboratory`): the
/// resources of the scope's type it covers are those matching every clause, a clause matching
/// when the resource has one of its values for its search parameter (`a=x,y` is x or y,
/// `a=x&b=y` is both). Parsed here; the server matches it against a resource (with its search
/// parameter table), and a resource it cannot match is not covered.
public struct ScopeFilter: Sendable, Hashable, CustomStringConvertible {
    /// One `name=value[,value…]` of the query.
    public struct Clause: Sendable, Hashable {
        /// The search parameter's name.
        public var name: String
        /// The values, any of which matches (`system|code`, `|code` or `code` for a token).
        public var values: [String]

        /// Creates a clause.
        public init(name: String, values: [String]) {
            self.name = name
            self.values = values
        }
    }

    /// The clauses, all of which must match.
    public var clauses: [Clause]

    /// The longest query accepted.
    public static let maximumLength = 512

    /// Parses `a=x&b=y,z`; nil for an empty, oversized or malformed query (a clause without a
    /// name or a value, or a name other than letters, digits, `-` and `_`: no modifiers).
    public init?(_ query: String) {
        guard !query.isEmpty, query.utf8.count <= Self.maximumLength else { return nil }
        var clauses: [Clause] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = part.firstIndex(of: "=") else { return nil }
            let name = String(part[..<equals])
            let values = part[part.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
                  !values.isEmpty, values.allSatisfy({ !$0.isEmpty }) else { return nil }
            clauses.append(Clause(name: name, values: values))
        }
        self.clauses = clauses
    }

    /// The query text (`a=x&b=y,z`).
    public var description: String {
        clauses.map { "\($0.name)=\($0.values.joined(separator: ","))" }.joined(separator: "&")
    }
}
