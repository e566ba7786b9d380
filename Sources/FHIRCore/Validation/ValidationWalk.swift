import Foundation

/// One validation pass; collects issues as it goes.
struct ValidationWalk {
    // Walks FHIR JSON with a FHIRElementTable: unknown elements, JSON kinds, cardinality (min/max)
    // and required elements, one type per choice, `_name` companions, primitive lexical forms,
    // codes of required bindings, empty values, and references inside a resource or Bundle.
    let table: FHIRElementTable
    var issues: [FHIRValidationIssue] = []
    /// References seen in the resource being walked, with their paths.
    var references: [(path: String, reference: String)] = []

    init(table: FHIRElementTable) {
        self.table = table
    }

    mutating func error(_ path: String, _ message: String) {
        issues.append(FHIRValidationIssue(.error, path, message))
    }

    mutating func warning(_ path: String, _ message: String) {
        issues.append(FHIRValidationIssue(.warning, path, message))
    }

    /// A resource: `path` is where it sits (nil at the root). A contained resource's references are
    /// checked with its container's, since `#id` resolves there.
    mutating func resource(_ object: JSONObject, path: String?, isContained: Bool = false) {
        guard case .string(let type) = object["resourceType"] ?? .null else {
            error(path ?? "(document)", "a resource needs a string resourceType")
            return
        }
        let here = path ?? type
        guard table.types[type] != nil, table.resourceTypes.contains(type) else {
            error(here, "unknown resourceType \"\(type)\"")
            return
        }
        if isContained {
            complex(object, type: type, path: here, isResource: true)
            return
        }
        let outerReferences = references
        references = []
        complex(object, type: type, path: here, isResource: true)
        checkReferences(in: object, type: type, path: here)
        references = outerReferences
    }

    /// A complex value of `type` (a type name or backbone path).
    mutating func complex(_ object: JSONObject, type: String, path: String, isResource: Bool = false) {
        guard let info = table.types[type] else {
            error(path, "no definition for type \(type)")
            return
        }
        if object.isEmpty { error(path, "empty objects are not allowed") }
        var present: [String: [String]] = [:]   // element name → member keys seen
        for member in object.members {
            let key = member.key
            if isResource && key == "resourceType" { continue }
            let isCompanion = key.hasPrefix("_")
            let name = isCompanion ? String(key.dropFirst()) : key
            let memberPath = path + "." + key
            guard let (element, chosen) = table.element(name, in: type) else {
                error(memberPath, "unknown element")
                continue
            }
            present[element.name, default: []].append(name)
            let valueType: FHIRElementTable.Kind
            switch element.kind {
            case .choice:
                let option = chosen ?? ""
                valueType = FHIRElementTable.primitiveTypes.contains(option) ? .primitive(option) : .complex(option)
            default:
                valueType = element.kind
            }
            if isCompanion {
                guard case .primitive = valueType else {
                    error(memberPath, "only primitive elements have a _ companion")
                    continue
                }
                companion(member.value, repeating: element.max != 1, valueKey: name, in: object, path: memberPath)
                continue
            }
            value(member.value, element: element, kind: valueType, path: memberPath,
                  isResourceID: isResource && key == "id", companion: object["_" + key])
        }
        for element in info.elements {
            let keys = Set(present[element.name] ?? [])
            if case .choice = element.kind, keys.count > 1 {
                error(path + "." + element.name + "[x]", "more than one type for a choice element: \(keys.sorted().joined(separator: ", "))")
            }
            if element.min > 0 && keys.isEmpty {
                let name = { if case .choice = element.kind { return element.name + "[x]" } else { return element.name } }()
                error(path + "." + name, "required element is missing (minimum \(element.min))")
            }
        }
    }

    /// A member value for `element`.
    mutating func value(
        _ value: JSONValue, element: FHIRElementTable.ElementInfo, kind: FHIRElementTable.Kind, path: String,
        isResourceID: Bool, companion: JSONValue?
    ) {
        let hasCompanion = companion != nil
        let repeating = element.max != 1
        if repeating {
            guard case .array(let items) = value else {
                error(path, "a repeating element must be an array, found \(value.kindName)")
                return
            }
            if items.isEmpty { error(path, "empty arrays are not allowed") }
            if let max = element.max, items.count > max { error(path, "\(items.count) items where at most \(max) are allowed") }
            if case .primitive = kind, items.count < element.min, !hasCompanion {
                error(path, "at least \(element.min) items are required")
            }
            for (index, item) in items.enumerated() {
                if case .null = item {
                    if case .primitive = kind, case .array(let companions) = companion ?? .null, index < companions.count,
                       companions[index] != .null { continue }
                    error(path + "[\(index)]", "null is not allowed here")
                    continue
                }
                single(item, element: element, kind: kind, path: path + "[\(index)]", isResourceID: false)
            }
            if case .primitive = kind {} else if items.count < element.min {
                error(path, "at least \(element.min) items are required")
            }
        } else {
            if case .array = value {
                error(path, "a single-valued element must not be an array")
                return
            }
            single(value, element: element, kind: kind, path: path, isResourceID: isResourceID)
        }
    }

    mutating func single(
        _ value: JSONValue, element: FHIRElementTable.ElementInfo, kind: FHIRElementTable.Kind, path: String, isResourceID: Bool
    ) {
        switch kind {
        case .primitive(let type):
            primitive(value, type: isResourceID ? "id" : type, valueSet: element.valueSet, path: path)
        case .complex(let type):
            guard case .object(let object) = value else {
                error(path, "expected an object of type \(type), found \(value.kindName)")
                return
            }
            if type == "Reference", case .string(let reference) = object["reference"] ?? .null {
                references.append((path, reference))
            }
            complex(object, type: type, path: path)
        case .resource:
            guard case .object(let object) = value else {
                error(path, "expected a resource object, found \(value.kindName)")
                return
            }
            resource(object, path: path, isContained: element.name == "contained")
        case .choice:
            error(path, "internal: unresolved choice")
        }
    }

    /// A `_name` companion: an object (or for repeating elements an array of objects and nulls)
    /// holding `id` and `extension`, aligned with the values.
    mutating func companion(_ value: JSONValue, repeating: Bool, valueKey: String, in object: JSONObject, path: String) {
        if repeating {
            guard case .array(let items) = value else {
                error(path, "the companion of a repeating element must be an array")
                return
            }
            if case .array(let values) = object[valueKey] ?? .null, values.count != items.count {
                error(path, "\(items.count) companion items for \(values.count) values")
            }
            for (index, item) in items.enumerated() {
                if case .null = item { continue }
                companionObject(item, path: path + "[\(index)]")
            }
        } else {
            companionObject(value, path: path)
        }
    }

    mutating func companionObject(_ value: JSONValue, path: String) {
        guard case .object(let object) = value else {
            error(path, "a _ companion must be an object, found \(value.kindName)")
            return
        }
        if object.isEmpty { error(path, "empty objects are not allowed") }
        for member in object.members {
            switch member.key {
            case "id":
                primitive(member.value, type: "string", valueSet: nil, path: path + ".id")
            case "extension":
                guard case .array(let items) = member.value, !items.isEmpty else {
                    error(path + ".extension", "extension must be a non-empty array")
                    continue
                }
                for (index, item) in items.enumerated() {
                    guard case .object(let ext) = item else {
                        error(path + ".extension[\(index)]", "expected an object")
                        continue
                    }
                    complex(ext, type: "Extension", path: path + ".extension[\(index)]")
                }
            default:
                error(path + "." + member.key, "unknown element in a _ companion")
            }
        }
    }

    /// A primitive's JSON kind, lexical form and, for required bindings, its code.
    mutating func primitive(_ value: JSONValue, type: String, valueSet: String?, path: String) {
        let lexical: String
        switch (type, value) {
        case ("boolean", .bool): return
        case ("integer", .number(let text)), ("decimal", .number(let text)),
             ("unsignedInt", .number(let text)), ("positiveInt", .number(let text)):
            lexical = text
        case (_, .string(let text)) where !["boolean", "integer", "decimal", "unsignedInt", "positiveInt"].contains(type):
            lexical = text
        default:
            let expected = type == "boolean" ? "boolean" : ["integer", "decimal", "unsignedInt", "positiveInt"].contains(type) ? "number" : "string"
            error(path, "a \(type) must be a JSON \(expected), found \(value.kindName)")
            return
        }
        if lexical.isEmpty {
            error(path, "empty strings are not allowed")
            return
        }
        if !table.primitiveMatches(lexical, type: type) {
            error(path, "not a valid \(type)")
        } else if type == "integer" || type == "unsignedInt" || type == "positiveInt", Int32(lexical) == nil {
            error(path, "\(type) out of the 32-bit range")
        }
        if let valueSet, let codes = table.valueSets[valueSet], !codes.contains(lexical) {
            error(path, "code is not in the required value set \(valueSet)")
        }
    }

    /// Local references inside the resource at `path`: `#id` must name a contained resource; inside a
    /// Bundle, `resource:N`, `urn:uuid:` and relative references must resolve to an entry.
    mutating func checkReferences(in object: JSONObject, type: String, path: String) {
        var containedIDs: Set<String> = []
        if case .array(let contained) = object["contained"] ?? .null {
            for item in contained {
                if case .string(let id) = item.objectValue?["id"] ?? .null { containedIDs.insert(id) }
            }
        }
        for (referencePath, reference) in references where reference.hasPrefix("#") {
            let id = String(reference.dropFirst())
            if !id.isEmpty && !containedIDs.contains(id) {
                error(referencePath, "reference \(reference) names no contained resource")
            }
        }
        if type == "Bundle" { checkBundleReferences(object, path: path) }
    }

    mutating func checkBundleReferences(_ bundle: JSONObject, path: String) {
        guard case .array(let entries) = bundle["entry"] ?? .null else { return }
        var fullURLs: Set<String> = []
        var typedIDs: Set<String> = []
        for entry in entries {
            guard let object = entry.objectValue else { continue }
            if case .string(let fullURL) = object["fullUrl"] ?? .null { fullURLs.insert(fullURL) }
            if let resource = object["resource"]?.objectValue,
               case .string(let type) = resource["resourceType"] ?? .null,
               case .string(let id) = resource["id"] ?? .null {
                typedIDs.insert(type + "/" + id)
            }
        }
        for (index, entry) in entries.enumerated() {
            guard let resource = entry.objectValue?["resource"]?.objectValue else { continue }
            var inner = ValidationWalk(table: table)
            inner.collectReferences(resource, path: "\(path).entry[\(index)].resource")
            for (referencePath, reference) in inner.references {
                if reference.hasPrefix("resource:") {
                    if let number = Int(reference.dropFirst("resource:".count)), number >= 0, number < entries.count { continue }
                    error(referencePath, "reference \(reference) names no entry of this Bundle")
                } else if reference.hasPrefix("urn:uuid:") || reference.hasPrefix("urn:oid:") {
                    if !fullURLs.contains(reference) { error(referencePath, "reference \(reference) names no entry fullUrl") }
                } else if !reference.hasPrefix("#"), !reference.contains("://"), reference.contains("/") {
                    let parts = reference.split(separator: "/")
                    let key = parts.count >= 2 ? parts[0] + "/" + parts[1] : Substring(reference)
                    let resolved = typedIDs.contains(String(key)) || fullURLs.contains { $0.hasSuffix("/" + key) }
                    if !resolved { warning(referencePath, "relative reference \(reference) is not in this Bundle") }
                }
            }
        }
    }

    /// Collects every `Reference.reference` below a resource (without validating again), including
    /// those in resources nested in it (contained ones, `Parameters` values); a nested Bundle's
    /// references belong to that Bundle and are checked with it.
    mutating func collectReferences(_ object: JSONObject, path: String) {
        guard case .string(let type) = object["resourceType"] ?? .null, table.types[type] != nil else { return }
        collect(object, type: type, path: path)
    }

    private mutating func collect(_ object: JSONObject, type: String, path: String) {
        for member in object.members {
            guard let (element, chosen) = table.element(member.key, in: type) else { continue }
            let target: String?
            switch element.kind {
            case .complex(let name): target = name
            case .choice: target = chosen.flatMap { FHIRElementTable.primitiveTypes.contains($0) ? nil : $0 }
            case .resource: target = "Resource"
            default: target = nil
            }
            guard let target else { continue }
            let items: [(JSONValue, String)]
            if case .array(let array) = member.value {
                items = array.enumerated().map { ($0.element, "\(path).\(member.key)[\($0.offset)]") }
            } else {
                items = [(member.value, "\(path).\(member.key)")]
            }
            for (item, itemPath) in items {
                guard let child = item.objectValue else { continue }
                if target == "Resource" {
                    if child["resourceType"]?.stringValue != "Bundle" { collectReferences(child, path: itemPath) }
                    continue
                }
                if target == "Reference", case .string(let reference) = child["reference"] ?? .null {
                    references.append((itemPath, reference))
                }
                collect(child, type: target, path: itemPath)
            }
        }
    }
}
