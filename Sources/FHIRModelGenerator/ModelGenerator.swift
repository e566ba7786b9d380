import Foundation

/// Generates the Swift sources of `ModelsR4` or `ModelsDSTU2` from a FHIR core definitions package.
///
/// The output is a map from a relative path (`Resources/Observation.swift`) to file contents. It is a
/// pure function of the definitions, so a test can re-run it and compare with the committed sources.
public struct ModelGenerator {
    /// The folder holding the package's StructureDefinitions and ValueSets.
    public let definitionsFolder: URL
    /// The FHIR release the package holds (its definitions differ in shape).
    public let release: FHIRRelease

    /// A generator for the definitions in `definitionsFolder`, of FHIR `release`.
    public init(definitionsFolder: URL, release: FHIRRelease = .r4) {
        self.definitionsFolder = definitionsFolder
        self.release = release
    }

    /// The generated files by relative path.
    public func generate() throws -> [String: String] {
        let package = try DefinitionPackage(folder: definitionsFolder, release: release)
        var builder = ModelBuilder(package: package)
        let types = try builder.buildAll()
        RecursionAnalysis.markIndirections(in: types)
        // ResourceType comes from the resource-types value set even where no element binds it.
        let resourceTypesURL = "http://hl7.org/fhir/ValueSet/resource-types"
        if builder.codeEnums[resourceTypesURL] == nil {
            let codes = ValueSetExpander(package: package).codes(valueSet: resourceTypesURL) ?? []
            builder.codeEnums[resourceTypesURL] = CodeEnumDecl(
                swiftName: "ResourceType", valueSetURL: resourceTypesURL, title: "ResourceType",
                cases: codes.map { .init(code: $0.code, caseName: SwiftNaming.caseName(code: $0.code, display: nil), display: $0.display) }
            )
        }

        let typesByName = Dictionary(
            types.flatMap(\.allTypes).map { ($0.qualifiedName, $0) }, uniquingKeysWith: { first, _ in first })
        var files: [String: String] = [:]
        let resources = types.filter { $0.kind == .resource }
        for type in types {
            let definition = package.structureDefinitions[type.fhirPath] ?? [:]
            let baseName = DefinitionPackage.baseURL(definition)?.split(separator: "/").last.map(String.init) ?? ""
            let conformance: String
            switch type.kind {
            case .resource: conformance = baseName == "DomainResource" ? "DomainResource" : "Resource"
            default: conformance = baseName == "BackboneElement" ? "BackboneElement" : "Element"
            }
            let folder = type.kind == .resource ? "Resources" : "DataTypes"
            files["\(folder)/\(type.swiftName).swift"] = SwiftEmitter.typeFile(type, base: conformance, types: typesByName, release: release)
        }
        for decl in builder.codeEnums.values {
            files["Codes/\(decl.swiftName).swift"] = SwiftEmitter.codeEnumFile(decl, release: release)
        }
        files["ResourceProxy.swift"] = SwiftEmitter.resourceProxyFile(resources, release: release)
        let taken = Set(types.map(\.swiftName)).union(builder.codeEnums.values.map(\.swiftName)).union(ModelBuilder.runtimeNames)
        files["TypeAliases.swift"] = SwiftEmitter.typeAliasesFile(
            types, taken: taken, release: release,
            constrained: package.constrainedDataTypes.filter { package.structureDefinitions[$0.value] != nil })
        files["ElementDefinitions.swift"] = ValidationTableEmitter.file(types: types, package: package, codeEnums: builder.codeEnums)
        files["Runtime.swift"] = RuntimeEmitter.file(release: release)
        return files
    }

    /// Writes the generated files below `folder`, removing generated files that are no longer produced.
    public func write(to folder: URL) throws -> Int {
        let files = try generate()
        let manager = FileManager.default
        if manager.fileExists(atPath: folder.path) {
            try manager.removeItem(at: folder)
        }
        for (path, contents) in files {
            let url = folder.appendingPathComponent(path)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        return files.count
    }
}
