/// The kinds of FHIR search parameter the search engine evaluates.
public enum SearchParameterType: String, Sendable, Hashable {
    /// A code, identifier or coding: `[system|]code`.
    case token
    /// A date, dateTime, instant or Period, compared as ranges.
    case date
    /// A reference to another resource: `[Type/]id`.
    case reference
    /// A string, HumanName or Address, matched case-insensitively from its start.
    case string
}

/// One step-by-step path below a resource that a parameter reads, from the simple FHIRPath
/// forms the table keeps: `code.coding`, `effective as dateTime` (a type choice) or
/// `subject is Patient` (a reference to one resource type).
public struct SearchPath: Sendable, Hashable {
    /// The element names, from the resource down (a choice element without its type suffix).
    public var steps: [String]
    /// The type of a choice element (`dateTime`, `Period`), if the path names one.
    public var choiceType: String?
    /// The resource type a reference must point to, if the path names one.
    public var targetType: String?

    /// Reads the table's notation: steps joined by `.`, then ` as Type` or ` is Type`.
    public init(_ text: String) {
        let words = text.split(separator: " ").map(String.init)
        steps = (words.first ?? "").split(separator: ".").map(String.init)
        choiceType = words.count == 3 && words[1] == "as" ? words[2] : nil
        targetType = words.count == 3 && words[1] == "is" ? words[2] : nil
    }
}

/// A search parameter of one resource type, from FHIR R4's SearchParameter definitions.
public struct SearchParameterDefinition: Sendable, Hashable {
    /// The resource type it is defined on (`Observation`, or `Resource` for `_id`…).
    public var base: String
    /// The parameter's name in a query (`code`, `date`, `_lastUpdated`).
    public var code: String
    /// Its type.
    public var type: SearchParameterType
    /// The paths it reads below the resource.
    public var paths: [SearchPath]

    /// A definition (the generated table's form).
    public init(_ base: String, _ code: String, _ type: SearchParameterType, _ paths: [String]) {
        self.base = base
        self.code = code
        self.type = type
        self.paths = paths.map(SearchPath.init)
    }
}

/// The generated table of R4 search parameters, by resource type and name.
public enum SearchParameterTable {
    /// The rows of ``r4Text``.
    static let r4: [SearchParameterDefinition] = r4Text.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 4, let type = SearchParameterType(rawValue: fields[2]) else { return nil }
        return SearchParameterDefinition(fields[0], fields[1], type, fields[3].split(separator: ";").map(String.init))
    }

    private static let byKey: [String: SearchParameterDefinition] = Dictionary(
        r4.map { ("\($0.base)/\($0.code)", $0) }, uniquingKeysWith: { first, _ in first })

    private static let byType: [String: [SearchParameterDefinition]] = Dictionary(grouping: r4, by: \.base)

    /// The parameter `code` of resource type `type` (or of every resource: `_id`,
    /// `_lastUpdated`, `_tag`, `_security`…), if the table has it.
    public static func parameter(_ code: String, type: String) -> SearchParameterDefinition? {
        byKey["\(type)/\(code)"] ?? byKey["DomainResource/\(code)"] ?? byKey["Resource/\(code)"]
    }

    /// The R4 resource types the table has parameters of, in byte order (not the abstract
    /// `Resource` and `DomainResource`, whose parameters apply to every type).
    public static let resourceTypes: [String] = Set(r4.map(\.base)).subtracting(["Resource", "DomainResource"])
        .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

    /// Every parameter that applies to `type`, its own and the common ones.
    public static func parameters(type: String) -> [SearchParameterDefinition] {
        (byType[type] ?? []) + (byType["DomainResource"] ?? []) + (byType["Resource"] ?? [])
    }
}
