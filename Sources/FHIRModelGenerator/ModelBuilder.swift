/// Builds ``TypeDecl``s from StructureDefinition snapshots.
struct ModelBuilder {
    let package: DefinitionPackage
    var codeEnums: [String: CodeEnumDecl] = [:]      // by value set url
    private var usedEnumNames: Set<String> = []
    private let expander: ValueSetExpander

    /// FHIR primitive type code → the Swift value type inside `FHIRPrimitive`.
    static let primitiveSwiftTypes: [String: String] = [
        "boolean": "FHIRBool", "integer": "FHIRInteger", "string": "FHIRString", "decimal": "FHIRDecimal",
        "uri": "FHIRURI", "url": "FHIRURI", "canonical": "FHIRCanonical", "base64Binary": "Base64Binary",
        "instant": "Instant", "date": "FHIRDate", "dateTime": "DateTime", "time": "FHIRTime", "code": "FHIRString",
        "oid": "FHIRURI", "id": "FHIRString", "markdown": "FHIRString", "unsignedInt": "FHIRUnsignedInteger",
        "positiveInt": "FHIRPositiveInteger", "uuid": "FHIRURI", "xhtml": "FHIRString",
    ]

    /// Abstract bases; they become protocols written by hand.
    static let abstractTypes: Set<String> = ["Element", "BackboneElement", "Resource", "DomainResource"]

    /// Names already taken at the top level of the module (hand-written runtime types and protocols).
    static let runtimeNames: Set<String> = Set<String>([
        "FHIRPrimitive", "ResourceProxy", "Element", "BackboneElement", "Resource", "DomainResource",
        "FHIRModel", "FHIRJSONCodable", "FHIRChoice", "FHIRCodeEnum", "Indirect", "UnknownResource",
        "PrimitiveExtensions",
    ]).union(primitiveSwiftTypes.values)

    init(package: DefinitionPackage) {
        self.package = package
        self.expander = ValueSetExpander(package: package)
    }

    var topLevelTypeNames: Set<String> {
        Set(package.structureDefinitions.keys).subtracting(Self.abstractTypes)
    }

    mutating func buildAll() throws -> [TypeDecl] {
        var result: [TypeDecl] = []
        // Reserve the generated ResourceType enum's name before any value set claims it.
        usedEnumNames = Self.runtimeNames.union(package.structureDefinitions.keys)
        for (type, definition) in package.structureDefinitions.sorted(by: { $0.key < $1.key })
        where !Self.abstractTypes.contains(type) {
            result.append(try build(type: type, definition: definition))
        }
        return result
    }

    private mutating func build(type: String, definition: [String: Any]) throws -> TypeDecl {
        guard let snapshot = definition["snapshot"] as? [String: Any],
              let elements = snapshot["element"] as? [[String: Any]], let root = elements.first else {
            throw GeneratorError.malformed(type, "no snapshot")
        }
        let kind: TypeDecl.Kind = (definition["kind"] as? String) == "resource" ? .resource : .dataType
        let decl = TypeDecl(fhirPath: type, kind: kind, swiftName: type, summary: Self.summary(root, fallback: type))
        var byPath: [String: TypeDecl] = [type: decl]
        // Children in snapshot order; a parent always precedes its children.
        var pendingContentReferences: [(owner: TypeDecl, element: [String: Any])] = []
        // DSTU2 names the element a `nameReference` reuses with `name` (R4: `contentReference` by path).
        var pathsByName: [String: String] = [:]
        if package.release == .dstu2 {
            for element in elements {
                if let name = element["name"] as? String, let path = element["path"] as? String, pathsByName[name] == nil {
                    pathsByName[name] = path
                }
            }
        }
        for var element in elements.dropFirst() {
            guard let path = element["path"] as? String, let dot = path.lastIndex(of: ".") else { continue }
            let parentPath = String(path[..<dot])
            guard let owner = byPath[parentPath] else {
                throw GeneratorError.malformed(path, "parent \(parentPath) not declared before it")
            }
            if element["sliceName"] != nil { continue }
            if let name = element["nameReference"] as? String {
                guard let target = pathsByName[name] else {
                    throw GeneratorError.malformed(path, "unresolved nameReference \(name)")
                }
                element["contentReference"] = "#" + target
            }
            if element["contentReference"] != nil {
                pendingContentReferences.append((owner, element))
                continue
            }
            if let property = try makeProperty(element, owner: owner, byPath: &byPath) {
                owner.properties.append(property)
            }
        }
        for (owner, element) in pendingContentReferences {
            guard let reference = element["contentReference"] as? String,
                  let target = byPath[String(reference.dropFirst())] else {
                throw GeneratorError.malformed(element["path"] as? String ?? type, "unresolved contentReference")
            }
            let path = element["path"] as? String ?? ""
            let property = PropertyDecl(
                jsonName: Self.lastSegment(path), swiftName: SwiftNaming.identifier(Self.lastSegment(path)),
                fhirPath: path, min: element["min"] as? Int ?? 0, max: Self.max(element),
                type: .element(swift: target.qualifiedName, fhir: "BackboneElement"),
                summary: Self.summary(element, fallback: path)
            )
            // Keep definition order: insert where the snapshot had it.
            let order = elements.compactMap { $0["path"] as? String }
            let position = owner.properties.firstIndex { (order.firstIndex(of: $0.fhirPath) ?? 0) > (order.firstIndex(of: path) ?? 0) }
            owner.properties.insert(property, at: position ?? owner.properties.count)
        }
        return decl
    }

    private mutating func makeProperty(
        _ element: [String: Any], owner: TypeDecl, byPath: inout [String: TypeDecl]
    ) throws -> PropertyDecl? {
        guard let path = element["path"] as? String else { return nil }
        // DSTU2 repeats `Reference` once per target profile: each type code counts once.
        var seenTypes: Set<String> = []
        let types = (element["type"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            .filter { seenTypes.insert($0).inserted }
        let rawName = Self.lastSegment(path)
        let min = element["min"] as? Int ?? 0
        let max = Self.max(element)
        if max == 0 { return nil }
        let summary = Self.summary(element, fallback: path)

        if rawName.hasSuffix("[x]") {
            let base = String(rawName.dropLast(3))
            let variants = types.map { code -> ChoiceDecl.Variant in
                ChoiceDecl.Variant(
                    fhirType: code, caseName: SwiftNaming.identifier(SwiftNaming.lowerFirst(code)),
                    jsonKey: base + SwiftNaming.upperFirst(code), type: propertyType(code: code, element: element)
                )
            }
            let choice = ChoiceDecl(baseName: base, enumName: SwiftNaming.upperFirst(base) + "X", variants: variants)
            owner.choices.append(choice)
            return PropertyDecl(
                jsonName: base, swiftName: SwiftNaming.identifier(base), fhirPath: path,
                min: min, max: 1, type: .choice(choice), summary: summary
            )
        }
        guard types.count == 1, let code = types.first else {
            throw GeneratorError.unsupported(path, "\(types.count) types on a non-choice element")
        }
        let type: PropertyType
        if code == "BackboneElement" || code == "Element" {
            var name = Self.explicitTypeName(element) ?? SwiftNaming.upperFirst(rawName)
            if topLevelTypeNames.contains(name) || Self.runtimeNames.contains(name)
                || SwiftNaming.keywords.contains(name) || owner.swiftName == name
                || owner.nested.contains(where: { $0.swiftName == name }) {
                name += "Component"
            }
            let nested = TypeDecl(fhirPath: path, kind: .backbone, swiftName: name, summary: summary)
            nested.parent = owner
            nested.nestedConformance = code == "Element" ? "Element" : "BackboneElement"
            owner.nested.append(nested)
            byPath[path] = nested
            type = .element(swift: nested.qualifiedName, fhir: code)
        } else {
            type = propertyType(code: code, element: element)
        }
        return PropertyDecl(
            jsonName: rawName, swiftName: SwiftNaming.identifier(rawName), fhirPath: path,
            min: min, max: max, type: type, summary: summary
        )
    }

    private mutating func propertyType(code: String, element: [String: Any]) -> PropertyType {
        if code.hasPrefix("http://hl7.org/fhirpath/System.") {
            // Element.id, Extension.url and the like: the fhir-type extension names the FHIR type.
            let fhirType = Self.fhirTypeExtension(element, code: code) ?? "string"
            return .primitive(swift: Self.primitiveSwiftTypes[fhirType] ?? "FHIRString", fhir: fhirType)
        }
        if code == "Resource" { return .resource }
        if let swift = Self.primitiveSwiftTypes[code] {
            if code == "code", let enumName = codeEnum(for: element) {
                return .primitive(swift: enumName, fhir: code)
            }
            return .primitive(swift: swift, fhir: code)
        }
        return .element(swift: code, fhir: code)
    }

    /// The enum for a required binding on a `code` element, generated on first use.
    private mutating func codeEnum(for element: [String: Any]) -> String? {
        guard let binding = element["binding"] as? [String: Any], (binding["strength"] as? String) == "required",
              let url = DefinitionPackage.bindingValueSet(binding) else { return nil }
        if let existing = codeEnums[url] { return existing.swiftName }
        guard let valueSet = package.valueSets[url], let codes = expander.codes(valueSet: url), !codes.isEmpty else {
            return nil
        }
        var name = SwiftNaming.typeName(valueSet["name"] as? String ?? url)
        if url == "http://hl7.org/fhir/ValueSet/resource-types" { name = "ResourceType" }
        else {
            while usedEnumNames.contains(name) { name += "Code" }
        }
        usedEnumNames.insert(name)
        var seen: [String: Int] = [:]
        var cases: [CodeEnumDecl.Case] = []
        for entry in codes {
            var caseName = SwiftNaming.caseName(code: entry.code, display: entry.display)
            if caseName == "unrecognized" { caseName = "unrecognizedCode" }
            let count = seen[caseName.lowercased(), default: 0]
            seen[caseName.lowercased()] = count + 1
            if count > 0 { caseName += "\(count + 1)" }
            cases.append(.init(code: entry.code, caseName: SwiftNaming.identifier(caseName), display: entry.display))
        }
        let title = valueSet["title"] as? String ?? valueSet["name"] as? String ?? name
        codeEnums[url] = CodeEnumDecl(swiftName: name, valueSetURL: url, title: title, cases: cases)
        return name
    }

    static func lastSegment(_ path: String) -> String {
        String(path.split(separator: ".").last ?? Substring(path))
    }

    static func max(_ element: [String: Any]) -> Int? {
        guard let max = element["max"] as? String, max != "*" else { return nil }
        return Int(max)
    }

    static func summary(_ element: [String: Any], fallback: String) -> String {
        let text = (element["short"] as? String) ?? fallback
        return text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }

    static func explicitTypeName(_ element: [String: Any]) -> String? {
        for ext in element["extension"] as? [[String: Any]] ?? []
        where (ext["url"] as? String)?.hasSuffix("structuredefinition-explicit-type-name") == true {
            return (ext["valueString"] as? String).map(SwiftNaming.typeName)
        }
        return nil
    }

    static func fhirTypeExtension(_ element: [String: Any], code: String) -> String? {
        for type in element["type"] as? [[String: Any]] ?? [] where (type["code"] as? String) == code {
            for ext in type["extension"] as? [[String: Any]] ?? []
            where (ext["url"] as? String)?.hasSuffix("structuredefinition-fhir-type") == true {
                return ext["valueUrl"] as? String ?? ext["valueUri"] as? String
            }
        }
        return nil
    }
}
