import Foundation

/// The parsed form of the generated `ElementDefinitions.table`: what every type and backbone element
/// may contain, the codes of required value sets and the regexes of primitive types.
struct ElementTable: Sendable {
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
    private(set) var regexes: [String: String] = [:]

    /// The table, parsed once on first use.
    static let r4 = ElementTable(text: ElementDefinitions.table)

    static let primitiveTypes: Set<String> = [
        "boolean", "integer", "string", "decimal", "uri", "url", "canonical", "base64Binary", "instant", "date",
        "dateTime", "time", "code", "oid", "id", "markdown", "unsignedInt", "positiveInt", "uuid", "xhtml",
    ]

    init(text: String) {
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
    }

    /// The element of `type` that JSON member `key` names, and for choices the chosen type.
    func element(_ key: String, in type: String) -> (ElementInfo, String?)? {
        guard let info = types[type] else { return nil }
        if let index = info.byName[key] { return (info.elements[index], nil) }
        if let choice = info.choiceNames[key] { return (info.elements[choice.element], choice.type) }
        return nil
    }
}
