/// The generator's picture of one Swift type to emit: a resource, a data type, or a backbone element
/// nested inside one.
final class TypeDecl {
    enum Kind { case resource, dataType, backbone }

    let fhirPath: String
    let kind: Kind
    var swiftName: String
    weak var parent: TypeDecl?
    var summary: String
    /// The protocol nested types conform to: `BackboneElement`, or `Element` inside data types.
    var nestedConformance = "BackboneElement"
    var properties: [PropertyDecl] = []
    var nested: [TypeDecl] = []
    var choices: [ChoiceDecl] = []

    init(fhirPath: String, kind: Kind, swiftName: String, summary: String) {
        self.fhirPath = fhirPath
        self.kind = kind
        self.swiftName = swiftName
        self.summary = summary
    }

    /// `Observation.ReferenceRange` for nested types.
    var qualifiedName: String {
        if let parent { return parent.qualifiedName + "." + swiftName }
        return swiftName
    }

    /// `ObservationReferenceRange`, the flat name FHIRModels uses.
    var flatName: String {
        if let parent { return parent.flatName + swiftName }
        return swiftName
    }

    var allTypes: [TypeDecl] { [self] + nested.flatMap(\.allTypes) }
}

/// What a property holds.
indirect enum PropertyType {
    /// A primitive: the Swift value type inside `FHIRPrimitive` and the FHIR type code.
    case primitive(swift: String, fhir: String)
    /// A complex type, backbone element or choice, by qualified Swift name.
    case element(swift: String, fhir: String)
    /// Any resource (`ResourceProxy`).
    case resource
    /// A choice element; the enum is in `choices` of the owner.
    case choice(ChoiceDecl)
}

struct PropertyDecl {
    let jsonName: String
    let swiftName: String
    let fhirPath: String
    let min: Int
    let max: Int?          // nil = unbounded
    let type: PropertyType
    let summary: String
    var indirect = false

    var isArray: Bool { max != 1 }
    var isRequired: Bool { min > 0 }
}

final class ChoiceDecl {
    struct Variant {
        let fhirType: String
        let caseName: String
        let jsonKey: String
        let type: PropertyType
    }

    let baseName: String
    let enumName: String
    let variants: [Variant]
    var indirect = false

    init(baseName: String, enumName: String, variants: [Variant]) {
        self.baseName = baseName
        self.enumName = enumName
        self.variants = variants
    }
}

/// A closed code enum generated for a required binding.
struct CodeEnumDecl {
    struct Case {
        let code: String
        let caseName: String
        let display: String?
    }

    let swiftName: String
    let valueSetURL: String
    let title: String
    let cases: [Case]
}
