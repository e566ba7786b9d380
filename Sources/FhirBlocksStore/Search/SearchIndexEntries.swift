import ExactJSON

/// The token and date values of one resource, by parameter: what a store indexes at write time
/// so that the token and date part of a search runs in SQL.
public struct SearchIndexEntries: Sendable, Hashable {
    /// A token value of a parameter.
    public struct TokenValue: Sendable, Hashable {
        /// The parameter's code.
        public var parameter: String
        /// The value.
        public var token: SearchToken

        /// An entry.
        public init(parameter: String, token: SearchToken) {
            self.parameter = parameter
            self.token = token
        }
    }

    /// A date value of a parameter.
    public struct DateValue: Sendable, Hashable {
        /// The parameter's code.
        public var parameter: String
        /// The value.
        public var range: SearchDateRange

        /// An entry.
        public init(parameter: String, range: SearchDateRange) {
            self.parameter = parameter
            self.range = range
        }
    }

    /// Every token value, without repeats.
    public var tokens: [TokenValue]
    /// Every date value, without repeats.
    public var dates: [DateValue]
    /// From the earliest to the latest end (start or end) of the resource's `date` parameter values
    /// (nil without any): kept on every token row, so that a search for a code and a date
    /// range narrows the code's rows in the index before probing their dates.
    public var dateHull: SearchDateRange?
    /// Whether the resource has exactly one `date` parameter value and it is ``dateHull``
    /// itself (its start not after its end): a date clause holds for the resource exactly when
    /// it holds for the hull.
    public var dateHullIsSingle = false

    /// The entries of `resource` (of type `type`) for every token and date parameter of the table.
    public init(resource: JSONValue, type: String) {
        var tokens: [TokenValue] = []
        var dates: [DateValue] = []
        var seenTokens: Set<TokenValue> = []
        var seenDates: Set<DateValue> = []
        for parameter in SearchParameterTable.parameters(type: type) {
            switch parameter.type {
            case .token:
                for token in SearchValues.tokens(resource, parameter: parameter) {
                    let entry = TokenValue(parameter: parameter.code, token: token)
                    if seenTokens.insert(entry).inserted { tokens.append(entry) }
                }
            case .date:
                for range in SearchValues.dates(resource, parameter: parameter) {
                    let entry = DateValue(parameter: parameter.code, range: range)
                    if seenDates.insert(entry).inserted { dates.append(entry) }
                }
            case .reference, .string:
                continue
            }
        }
        self.tokens = tokens
        self.dates = dates
        // Over both ends of every value: a Period may end before it starts, and the hull must
        // still hold each end.
        let hullValues = dates.filter { $0.parameter == SearchSQL.hullParameter }
        let ends = hullValues.flatMap { [$0.range.low, $0.range.high] }
        if let low = ends.min(), let high = ends.max() {
            dateHull = SearchDateRange(low: low, high: high)
        }
        if hullValues.count == 1, let only = hullValues.first, only.range.low <= only.range.high {
            dateHullIsSingle = true
        }
    }

    /// The entries of a stored resource (none when its JSON does not parse).
    public init(record: FHIRResourceRecord) {
        self.init(resource: (try? JSONParser.parse(record.json)) ?? .null, type: record.type)
    }
}
