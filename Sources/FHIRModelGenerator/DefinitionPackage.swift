import Foundation

/// The FHIR definitions the generator reads: StructureDefinitions, ValueSets and CodeSystems of
/// one core package folder (for R4, `hl7.fhir.r4.core-4.0.1/package`).
struct DefinitionPackage {
    var structureDefinitions: [String: [String: Any]] = [:]   // by `type` (specializations only)
    var primitiveRegexes: [String: String] = [:]              // FHIR primitive type → regex
    var valueSets: [String: [String: Any]] = [:]              // by canonical url
    var codeSystems: [String: [String: Any]] = [:]            // by canonical url

    init(folder: URL) throws {
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
            default:
                if let url = json["url"] as? String { codeSystems[url] = json }
            }
        }
        guard !structureDefinitions.isEmpty else {
            throw GeneratorError.malformed(folder.path, "no StructureDefinitions found")
        }
    }

    private mutating func addStructureDefinition(_ json: [String: Any]) {
        guard let kind = json["kind"] as? String, let type = json["type"] as? String else { return }
        let derivation = json["derivation"] as? String
        switch kind {
        case "primitive-type":
            let elements = (json["snapshot"] as? [String: Any])?["element"] as? [[String: Any]] ?? []
            for element in elements where (element["path"] as? String) == "\(type).value" {
                for type in element["type"] as? [[String: Any]] ?? [] {
                    for ext in type["extension"] as? [[String: Any]] ?? []
                    where (ext["url"] as? String) == "http://hl7.org/fhir/StructureDefinition/regex" {
                        primitiveRegexes[json["type"] as? String ?? ""] = ext["valueString"] as? String
                    }
                }
            }
        case "resource", "complex-type":
            // Constraints (profiles such as SimpleQuantity or vitalsigns) add no new shapes.
            guard derivation == "specialization" || json["baseDefinition"] == nil else { return }
            structureDefinitions[type] = json
        default:
            return
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
