import Foundation

/// The FHIR definitions the generator reads: StructureDefinitions, ValueSets and CodeSystems of
/// one core package folder (for R4, `hl7.fhir.r4.core-4.0.1/package`; for DSTU2,
/// `hl7.fhir.core-1.0.2`, whose ValueSets carry their code systems inline).
struct DefinitionPackage {
    let release: FHIRRelease
    var structureDefinitions: [String: [String: Any]] = [:]   // by `type` (specializations only)
    var primitiveRegexes: [String: String] = [:]              // FHIR primitive type → regex
    var valueSets: [String: [String: Any]] = [:]              // by canonical url
    var codeSystems: [String: [String: Any]] = [:]            // by canonical url
    /// DSTU2's data types that are profiles of another (`Age` of `Quantity`): name → base type.
    var constrainedDataTypes: [String: String] = [:]

    init(folder: URL, release: FHIRRelease) throws {
        self.release = release
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        for file in files where file.hasSuffix(".json") {
            let kind = file.prefix { $0 != "-" }
            guard kind == "StructureDefinition" || kind == "ValueSet" || kind == "CodeSystem" else { continue }
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw GeneratorError.malformed(file, "not a JSON object")
            }
            switch kind {
            case "StructureDefinition": addStructureDefinition(json)
            case "ValueSet":
                if let url = json["url"] as? String { valueSets[url] = json }
                // DSTU2: the code system a value set defines sits inside it; it is always complete.
                if let inline = json["codeSystem"] as? [String: Any], let system = inline["system"] as? String {
                    var codeSystem = inline
                    codeSystem["content"] = "complete"
                    codeSystems[system] = codeSystem
                }
            default:
                if let url = json["url"] as? String { codeSystems[url] = json }
            }
        }
        guard !structureDefinitions.isEmpty else {
            throw GeneratorError.malformed(folder.path, "no StructureDefinitions found")
        }
    }

    private mutating func addStructureDefinition(_ json: [String: Any]) {
        if release == .dstu2 {
            addDSTU2StructureDefinition(json)
            return
        }
        guard let kind = json["kind"] as? String, let type = json["type"] as? String else { return }
        let derivation = json["derivation"] as? String
        switch kind {
        case "primitive-type":
            addPrimitiveRegex(json, type: type)
        case "resource", "complex-type":
            // Constraints (profiles such as SimpleQuantity or vitalsigns) add no new shapes.
            guard derivation == "specialization" || json["baseDefinition"] == nil else { return }
            structureDefinitions[type] = json
        default:
            return
        }
    }

    /// DSTU2 (1.0.2): no `type` or `derivation`; profiles have `constrainedType`; primitives and
    /// complex types are both of kind `datatype`, the primitives named in lower case.
    private mutating func addDSTU2StructureDefinition(_ json: [String: Any]) {
        if let base = json["constrainedType"] as? String, (json["kind"] as? String) == "datatype",
           let type = json["id"] as? String, type.first?.isUppercase == true, base.first?.isUppercase == true,
           base != "Extension", (json["url"] as? String) == "http://hl7.org/fhir/StructureDefinition/\(type)" {
            constrainedDataTypes[type] = base
        }
        guard json["constrainedType"] == nil, let kind = json["kind"] as? String, let type = json["id"] as? String,
              let first = type.first else { return }
        switch kind {
        case "datatype" where first.isLowercase: addPrimitiveRegex(json, type: type)
        case "datatype", "resource": structureDefinitions[type] = json
        default: return
        }
    }

    private mutating func addPrimitiveRegex(_ json: [String: Any], type: String) {
        let elements = (json["snapshot"] as? [String: Any])?["element"] as? [[String: Any]] ?? []
        for element in elements where (element["path"] as? String) == "\(type).value" {
            for elementType in element["type"] as? [[String: Any]] ?? [] {
                for ext in elementType["extension"] as? [[String: Any]] ?? []
                where (ext["url"] as? String).map({ $0.hasSuffix("/regex") || $0.hasSuffix("structuredefinition-regex") }) == true {
                    primitiveRegexes[type] = ext["valueString"] as? String
                }
            }
        }
    }

    /// The url of the StructureDefinition a definition derives from (`baseDefinition`; DSTU2's `base`).
    static func baseURL(_ definition: [String: Any]) -> String? {
        definition["baseDefinition"] as? String ?? definition["base"] as? String
    }

    /// The value set a binding names (`valueSet`; DSTU2's `valueSetReference.reference`), without a version.
    static func bindingValueSet(_ binding: [String: Any]) -> String? {
        let raw = binding["valueSet"] as? String
            ?? (binding["valueSetReference"] as? [String: Any])?["reference"] as? String
        return raw.map { String($0.split(separator: "|").first ?? "") }
    }
}

/// The FHIR release a definitions package holds.
public enum FHIRRelease: String, Sendable, CaseIterable {
    /// FHIR R4 (4.0.1), `hl7.fhir.r4.core`.
    case r4
    /// FHIR DSTU2 (1.0.2), `hl7.fhir.core`.
    case dstu2

    /// The FHIR version number.
    public var version: String {
        switch self {
        case .r4: "4.0.1"
        case .dstu2: "1.0.2"
        }
    }

    /// The definitions package's name.
    var packageName: String {
        switch self {
        case .r4: "hl7.fhir.r4.core"
        case .dstu2: "hl7.fhir.core"
        }
    }

    /// The release's short name in documentation.
    var displayName: String {
        switch self {
        case .r4: "R4"
        case .dstu2: "DSTU2"
        }
    }
}

/// A definition the generator cannot turn into Swift.
enum GeneratorError: Error, CustomStringConvertible {
    case malformed(String, String)
    case unsupported(String, String)

    var description: String {
        switch self {
        case .malformed(let what, let why): "malformed definition \(what): \(why)"
        case .unsupported(let what, let why): "unsupported definition \(what): \(why)"
        }
    }
}
