import ExactJSON

/// A token a resource carries for a parameter: a code with its system ("" when none).
public struct SearchToken: Sendable, Hashable {
    /// The system, "" when the element has none.
    public var system: String
    /// The code (an identifier's value, a primitive's text).
    public var code: String

    /// A token.
    public init(system: String, code: String) {
        self.system = system
        self.code = code
    }
}

/// Reads the values a search parameter selects from a resource's JSON (the simple FHIRPath
/// forms of ``SearchPath``), with no I/O.
public enum SearchValues {
    /// The elements at `path` below `resource` (arrays flattened; a choice element matched by
    /// its `name` + type suffix), each with the type suffix it was found under.
    static func elements(_ resource: JSONValue, path: SearchPath) -> [(value: JSONValue, choice: String?)] {
        var current: [(value: JSONValue, choice: String?)] = [(resource, nil)]
        for (index, step) in path.steps.enumerated() {
            let isLast = index == path.steps.count - 1
            var next: [(value: JSONValue, choice: String?)] = []
            for (value, _) in current {
                guard let object = value.objectValue else { continue }
                if let found = object[step] {
                    next.append(contentsOf: flatten(found).map { ($0, nil) })
                } else if isLast {
                    // A choice element: `effective` is stored as `effectiveDateTime`, `effectivePeriod`…
                    for member in object.members where member.key.hasPrefix(step) && member.key.count > step.count {
                        let suffix = String(member.key.dropFirst(step.count))
                        guard let first = suffix.first, first.isUppercase else { continue }
                        if let wanted = path.choiceType, suffix.lowercased() != wanted.lowercased() { continue }
                        next.append(contentsOf: flatten(member.value).map { ($0, suffix) })
                    }
                }
            }
            current = next
        }
        return current
    }

    private static func flatten(_ value: JSONValue) -> [JSONValue] {
        value.arrayValue ?? [value]
    }

    /// The tokens `parameter` selects from `resource`.
    public static func tokens(_ resource: JSONValue, parameter: SearchParameterDefinition) -> [SearchToken] {
        var tokens: [SearchToken] = []
        for path in parameter.paths {
            for (value, _) in elements(resource, path: path) {
                tokens.append(contentsOf: Self.tokens(of: value))
            }
        }
        return tokens
    }

    private static func tokens(of value: JSONValue) -> [SearchToken] {
        switch value {
        case .string(let text): return [SearchToken(system: "", code: text)]
        case .bool(let flag): return [SearchToken(system: "", code: flag ? "true" : "false")]
        case .object(let object):
            if let codings = object["coding"]?.arrayValue {
                return codings.flatMap(tokens(of:))
            }
            // A Coding (`code`), Identifier or ContactPoint (`value`). Every object yields one
            // token, "" for what it lacks, so that a label with no system or code is indexed
            // too and the label filter over the index fails closed like the one over the JSON.
            let system = object["system"]?.stringValue ?? ""
            let code = object["code"]?.stringValue ?? object["value"]?.stringValue ?? ""
            return [SearchToken(system: system, code: code)]
        default: return []
        }
    }

    /// The date ranges `parameter` selects from `resource` (dates, instants and Periods).
    public static func dates(_ resource: JSONValue, parameter: SearchParameterDefinition) -> [SearchDateRange] {
        var ranges: [SearchDateRange] = []
        for path in parameter.paths {
            for (value, _) in elements(resource, path: path) {
                if let text = value.stringValue, let range = SearchDateRange(fhir: text) {
                    ranges.append(range)
                } else if let object = value.objectValue, object["start"] != nil || object["end"] != nil {
                    let start = object["start"]?.stringValue.flatMap { SearchDateRange(fhir: $0) }
                    let end = object["end"]?.stringValue.flatMap { SearchDateRange(fhir: $0) }
                    if object["start"] != nil, start == nil { continue }
                    if object["end"] != nil, end == nil { continue }
                    ranges.append(SearchDateRange(low: start?.low ?? .min, high: end?.high ?? .max))
                }
            }
        }
        return ranges
    }

    /// The references (`reference` texts) `parameter` selects from `resource`.
    public static func references(_ resource: JSONValue, parameter: SearchParameterDefinition) -> [String] {
        var references: [String] = []
        for path in parameter.paths {
            for (value, _) in elements(resource, path: path) {
                guard let reference = value.objectValue?["reference"]?.stringValue else { continue }
                if let target = path.targetType, !Self.reference(reference, hasType: target) { continue }
                references.append(reference)
            }
        }
        return references
    }

    static func reference(_ reference: String, hasType type: String) -> Bool {
        let parts = unversionedParts(reference)
        return parts.count >= 2 && parts[parts.count - 2] == type
    }

    /// The `/`-separated parts of a reference without a trailing `/_history/{version}`: a
    /// versioned reference (`Observation/o1/_history/2`) names the resource as the
    /// unversioned one does.
    static func unversionedParts(_ reference: String) -> [Substring] {
        var parts = reference.split(separator: "/")
        if parts.count >= 4, parts[parts.count - 2] == "_history" { parts.removeLast(2) }
        return parts
    }

    /// The strings `parameter` selects from `resource` (every string inside a HumanName,
    /// Address or other complex value).
    public static func strings(_ resource: JSONValue, parameter: SearchParameterDefinition) -> [String] {
        var strings: [String] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .string(let text): strings.append(text)
            case .array(let values): values.forEach(collect)
            case .object(let object): object.members.forEach { collect($0.value) }
            default: break
            }
        }
        for path in parameter.paths {
            for (value, _) in elements(resource, path: path) { collect(value) }
        }
        return strings
    }

    /// Whether `resource` has any value for `parameter`.
    public static func isPresent(_ resource: JSONValue, parameter: SearchParameterDefinition) -> Bool {
        switch parameter.type {
        case .token: !tokens(resource, parameter: parameter).isEmpty
        case .date: !dates(resource, parameter: parameter).isEmpty
        case .reference: !references(resource, parameter: parameter).isEmpty
        case .string: !strings(resource, parameter: parameter).isEmpty
        }
    }
}
