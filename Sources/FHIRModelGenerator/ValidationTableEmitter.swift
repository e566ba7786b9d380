/// Emits the element table the validator walks: for every type and backbone element, each element's
/// JSON name, cardinality and type; the codes of every required binding that has a closed list; and
/// the regex of every primitive type. It is one raw string literal, which compiles in no time
/// compared with the same data as Swift array literals.
///
/// Lines:
/// - `T path` starts a type (`Observation`, `Observation.referenceRange`).
/// - `E name|min|max|kind|target|valueSet` where kind is `p` (primitive; target = FHIR type), `c`
///   (complex; target = type path), `r` (any resource) or `x` (choice; target = `type,type,…`, each
///   complex type by path), and max is `*` for unbounded.
/// - `V url|code|code…` the codes of a required value set.
/// - `R type regex` the regex of a primitive type.
enum ValidationTableEmitter {
    static func file(types: [TypeDecl], package: DefinitionPackage, codeEnums: [String: CodeEnumDecl]) -> String {
        let release = package.release
        var lines: [String] = []
        var valueSetForEnum: [String: String] = [:]
        for decl in codeEnums.values { valueSetForEnum[decl.swiftName] = decl.valueSetURL }
        let all = types.flatMap(\.allTypes)
        let paths = Dictionary(all.map { ($0.qualifiedName, $0.fhirPath) }, uniquingKeysWith: { first, _ in first })
        for type in all {
            lines.append("T \(type.fhirPath)")
            for property in type.properties {
                let max = property.max.map(String.init) ?? "*"
                let (kind, target, valueSet) = describe(property.type, valueSetForEnum: valueSetForEnum, paths: paths)
                lines.append("E \(property.jsonName)|\(property.min)|\(max)|\(kind)|\(target)|\(valueSet)")
            }
        }
        for decl in codeEnums.values.sorted(by: { $0.valueSetURL < $1.valueSetURL }) {
            lines.append("V \(decl.valueSetURL)|" + decl.cases.map(\.code).joined(separator: "|"))
        }
        for (type, regex) in package.primitiveRegexes.sorted(by: { $0.key < $1.key }) {
            lines.append("R \(type) \(regex)")
        }
        return SwiftEmitter.header(release) + """

            /// The \(release.displayName) element table (see `FHIRValidator`); generated from the StructureDefinitions.
            enum ElementDefinitions {
                static let table = #\"\"\"
            \(lines.joined(separator: "\n"))
            \"\"\"#
            }

            """
    }

    private static func describe(
        _ type: PropertyType, valueSetForEnum: [String: String], paths: [String: String]
    ) -> (String, String, String) {
        switch type {
        case .primitive(let swift, let fhir):
            return ("p", fhir, valueSetForEnum[swift] ?? "")
        case .element(let swift, let fhir):
            return ("c", paths[swift] ?? fhir, "")
        case .resource:
            return ("r", "Resource", "")
        case .choice(let choice):
            let targets = choice.variants.map { variant -> String in
                switch variant.type {
                case .element(let swift, let fhir): paths[swift] ?? fhir
                default: variant.fhirType
                }
            }
            return ("x", targets.joined(separator: ","), "")
        }
    }
}
