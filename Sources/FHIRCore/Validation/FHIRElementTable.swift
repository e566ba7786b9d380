import Foundation

/// What the validator knows of one FHIR version: the parsed form of a models module's generated
/// element table (what every type and backbone element may contain, the codes of required value
/// sets and the regexes of primitive types) and its resource type names. Each models module's
/// `FHIRValidator` holds one and validates with it.
///
/// The validator walks the JSON itself, so a document that would not decode still gets its full
/// list of problems: unknown elements, JSON kinds, cardinality (min/max) and required elements,
/// one type per choice, `_name` companions, primitive lexical forms (the regexes of the
/// definitions), codes of required bindings, empty values, and references inside a resource or
/// Bundle (`#id`, `resource:N`, `urn:uuid:`, relative `Type/id`).
public struct FHIRElementTable: Sendable {
    enum Kind: Sendable {
        case primitive(String)
        case complex(String)
        case resource
        case choice([String])
    }

    struct ElementInfo: Sendable {
        let name: String
        let min: Int
        let max: Int?
        let kind: Kind
        let valueSet: String?
    }

    struct TypeInfo: Sendable {
        var elements: [ElementInfo] = []
        var byName: [String: Int] = [:]
        /// Each choice element's JSON names (`valueQuantity`…) → (element index, the chosen type).
        var choiceNames: [String: (element: Int, type: String)] = [:]
    }

    private(set) var types: [String: TypeInfo] = [:]
    private(set) var valueSets: [String: Set<String>] = [:]
    /// The regex of each primitive type, as the definitions write it.
    public private(set) var regexes: [String: String] = [:]
    /// The resource types the version defines (not the abstract `Resource` and `DomainResource`).
    let resourceTypes: Set<String>
    /// The regexes of ``regexes``, compiled with Java's meaning of `\s` (see PrimitivePattern).
    let compiledRegexes: [String: NSRegularExpression]

    static let primitiveTypes: Set<String> = [
        "boolean", "integer", "string", "decimal", "uri", "url", "canonical", "base64Binary", "instant", "date",
        "dateTime", "time", "code", "oid", "id", "markdown", "unsignedInt", "positiveInt", "uuid", "xhtml",
    ]

    /// Parses a generated element table; `resourceTypes` names the version's concrete resources.
    public init(text: String, resourceTypes: Set<String>) {
        self.resourceTypes = resourceTypes
        var current: String?
        for line in text.split(separator: "\n") {
            guard line.count > 2 else { continue }
            let body = line.dropFirst(2)
            switch line.first {
            case "T":
                current = String(body)
                types[String(body), default: TypeInfo()] = TypeInfo()
            case "E":
                guard let type = current else { continue }
                let fields = body.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 6 else { continue }
                let kind: Kind
                switch fields[3] {
                case "p": kind = .primitive(fields[4])
                case "r": kind = .resource
                case "x": kind = .choice(fields[4].split(separator: ",").map(String.init))
                default: kind = .complex(fields[4])
                }
                let info = ElementInfo(
                    name: fields[0], min: Int(fields[1]) ?? 0, max: fields[2] == "*" ? nil : Int(fields[2]),
                    kind: kind, valueSet: fields[5].isEmpty ? nil : fields[5]
                )
                var typeInfo = types[type] ?? TypeInfo()
                if case .choice(let options) = kind {
                    for option in options {
                        let typeName = option.split(separator: ".").last.map(String.init) ?? option
                        let jsonName = info.name + typeName.prefix(1).uppercased() + typeName.dropFirst()
                        if typeInfo.choiceNames[jsonName] == nil { typeInfo.choiceNames[jsonName] = (typeInfo.elements.count, option) }
                    }
                }
                typeInfo.byName[info.name] = typeInfo.elements.count
                typeInfo.elements.append(info)
                types[type] = typeInfo
            case "V":
                let fields = body.split(separator: "|").map(String.init)
                if let url = fields.first { valueSets[url] = Set(fields.dropFirst()) }
            case "R":
                if let space = body.firstIndex(of: " ") {
                    regexes[String(body[..<space])] = String(body[body.index(after: space)...])
                }
            default:
                continue
            }
        }
        compiledRegexes = PrimitivePattern.compile(regexes)
    }

    /// Validates a resource given as JSON.
    public func validate(_ value: JSONValue) -> [FHIRValidationIssue] {
        var walk = ValidationWalk(table: self)
        guard case .object(let object) = value else {
            return [FHIRValidationIssue(.error, "(document)", "a resource must be a JSON object, found \(value.kindName)")]
        }
        walk.resource(object, path: nil)
        return walk.issues.sorted { ($0.severity, $0.path) < ($1.severity, $1.path) }
    }

    /// Parses and validates FHIR JSON bytes.
    public func validate(_ bytes: [UInt8]) -> [FHIRValidationIssue] {
        do {
            return validate(try JSONParser.parse(bytes))
        } catch {
            return [FHIRValidationIssue(.error, "(document)", error.description)]
        }
    }

    /// Whether `text` is a valid lexical form of the primitive `type`.
    public func primitiveMatches(_ text: String, type: String) -> Bool {
        PrimitivePattern.matches(text, type: type, compiled: compiledRegexes)
    }

    /// Whether `text` matches `type`'s regex from the definitions; nil when the type has none.
    public func regexMatches(_ text: String, type: String) -> Bool? {
        guard let regex = compiledRegexes[type] else { return nil }
        let range = NSRange(text.startIndex..., in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range)?.range == range
    }

    /// The element of `type` that JSON member `key` names, and for choices the chosen type.
    func element(_ key: String, in type: String) -> (ElementInfo, String?)? {
        guard let info = types[type] else { return nil }
        if let index = info.byName[key] { return (info.elements[index], nil) }
        if let choice = info.choiceNames[key] { return (info.elements[choice.element], choice.type) }
        return nil
    }
}
