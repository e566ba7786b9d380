import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The parameters of a search or read that shape the answer rather than select resources:
/// `_summary` (`count`, or `false`: the whole resources), `_elements` (only the listed
/// top-level elements, with `id`, `meta` and `resourceType`, tagged `SUBSETTED`), `_include`
/// and `_revinclude` (`Type:param[:target]`, no `*`, no `:iterate`). They are taken out of
/// the query before the search parameters are parsed; a malformed or unsupported one is 400.
struct FHIRResultControls: Sendable {
    /// `_include` or `_revinclude`: the resources of `sourceType` whose reference search
    /// parameter `parameter` points (optionally only to `targetType`).
    struct Inclusion: Sendable, Hashable {
        var sourceType: String
        var parameter: SearchParameterDefinition
        var targetType: String?
    }

    /// `_summary=count`: the total only.
    var summaryCount = false
    /// `_elements`, nil when absent.
    var elements: Set<String>?
    /// `_include` values, in order.
    var includes: [Inclusion] = []
    /// `_revinclude` values, in order.
    var revincludes: [Inclusion] = []
    /// The other parameters, in order (the search's own).
    var rest: [(name: String, value: String)] = []

    /// The most `_include` plus `_revinclude` values one request may have.
    static let maximumInclusions = 10

    /// The names this type takes out of a query.
    static let names: Set<String> = ["_summary", "_elements", "_include", "_revinclude"]

    /// The system and code of the tag on a resource `_elements` subsetted.
    static let subsettedSystem = "http://terminology.hl7.org/CodeSystem/v3-ObservationValue"

    /// No controls: the whole resources, nothing included.
    init() {}

    /// Reads the controls of a search of `type` (`search` true) or a read (false: `_include`,
    /// `_revinclude` and `_summary=count` are refused).
    init(type: String, parameters: [(name: String, value: String)], search: Bool) throws(FHIRResultControlError) {
        for (name, value) in parameters {
            switch name {
            case "_summary":
                switch value {
                case "count" where search: summaryCount = true
                case "false": break
                default: throw FHIRResultControlError("_summary=\(value) is not supported (only " + (search ? "count and false)" : "false on a read)"))
                }
            case "_elements":
                var names = elements ?? []
                for element in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let text = String(element)
                    // `Observation.code` is accepted for `code` of the searched type.
                    let bare = text.hasPrefix(type + ".") ? String(text.dropFirst(type.count + 1)) : text
                    guard Self.isElementName(bare) else { throw FHIRResultControlError("_elements names top-level elements: '\(text)' is not one") }
                    names.insert(bare)
                }
                elements = names
            case "_include", "_revinclude":
                guard search else { throw FHIRResultControlError("\(name) is only supported on a search") }
                let inclusion = try Self.inclusion(value, name: name)
                if name == "_include" {
                    guard inclusion.sourceType == type else {
                        throw FHIRResultControlError("_include=\(value) does not start with the searched type \(type)")
                    }
                    includes.append(inclusion)
                } else {
                    revincludes.append(inclusion)
                }
                guard includes.count + revincludes.count <= Self.maximumInclusions else {
                    throw FHIRResultControlError("at most \(Self.maximumInclusions) _include and _revinclude values are supported")
                }
            default:
                if let base = name.split(separator: ":", maxSplits: 1).first, Self.names.contains(String(base)) {
                    throw FHIRResultControlError("the modifier of \(name) is not supported")
                }
                rest.append((name: name, value: value))
            }
        }
    }

    /// Reads `Type:param[:target]`.
    private static func inclusion(_ value: String, name: String) throws(FHIRResultControlError) -> Inclusion {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3 else { throw FHIRResultControlError("\(name)=\(value) is not Type:parameter[:targetType]") }
        guard parts[1] != "*" else { throw FHIRResultControlError("\(name)=\(value): the wildcard * is not supported") }
        guard ResourceScope(parts[0]) != nil else { throw FHIRResultControlError("\(name)=\(value): \(parts[0]) is not a supported resource type") }
        guard let parameter = SearchParameterTable.parameter(parts[1], type: parts[0]), parameter.type == .reference else {
            throw FHIRResultControlError("\(name)=\(value): \(parts[1]) is not a reference search parameter of \(parts[0])")
        }
        var target: String?
        if parts.count == 3 {
            guard ResourceScope(parts[2]) != nil else { throw FHIRResultControlError("\(name)=\(value): \(parts[2]) is not a supported resource type") }
            target = parts[2]
        }
        return Inclusion(sourceType: parts[0], parameter: parameter, targetType: target)
    }

    /// An element name: a letter, then letters and digits.
    static func isElementName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    /// `json` with only `elements` (and `resourceType`, `id`, `meta`) at the top, a choice
    /// element's typed forms (`value` keeps `valueQuantity`) and primitive extensions
    /// (`_status`) with their element, and `meta.tag` carrying `SUBSETTED`. Nil when `json`
    /// is not a JSON object.
    static func subset(_ json: [UInt8], elements: Set<String>) -> [UInt8]? {
        guard case .object(let object)? = try? JSONParser.parse(json, maximumDepth: 256) else { return nil }
        var kept = JSONObject()
        for member in object.members where keeps(member.key, elements) {
            kept.members.append(member)
        }
        var meta = kept["meta"]?.objectValue ?? JSONObject()
        var tags = meta["tag"]?.arrayValue ?? []
        let isSubsetted = tags.contains { $0.objectValue?["system"]?.stringValue == subsettedSystem && $0.objectValue?["code"]?.stringValue == "SUBSETTED" }
        if !isSubsetted {
            tags.append(.object(JSONObject(members: [JSONMember(key: "system", value: .string(subsettedSystem)),
                                                     JSONMember(key: "code", value: .string("SUBSETTED"))])))
        }
        meta["tag"] = .array(tags)
        kept["meta"] = .object(meta)
        return JSONWriter.serialize(.object(kept))
    }

    private static func keeps(_ key: String, _ elements: Set<String>) -> Bool {
        let name = key.hasPrefix("_") ? String(key.dropFirst()) : key
        if name == "resourceType" || name == "id" || name == "meta" || elements.contains(name) { return true }
        // A choice element: `valueQuantity` for `value`.
        var prefix = ""
        for character in name {
            if character.isUppercase, !prefix.isEmpty, elements.contains(prefix) { return true }
            prefix.append(character)
        }
        return false
    }
}

/// A `_summary`, `_elements`, `_include` or `_revinclude` the server does not take.
struct FHIRResultControlError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
