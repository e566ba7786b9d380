import FHIRCore
import ModelsDSTU2
import ModelsR4

/// The FHIR version `health fhir validate` and `health fhir format` read (`--fhir-version`):
/// 4.0.1 (R4, ModelsR4) by default, or 1.0.2 (DSTU2, ModelsDSTU2).
enum FhirModelVersion: Sendable {
    case r4
    case dstu2

    /// The versions the option takes.
    static let help = "The FHIR version of the input: 4.0.1 (R4, the default) or 1.0.2 (DSTU2)."

    /// The version `--fhir-version` names; anything else is a usage error (exit 2).
    init(option: String) throws {
        switch option {
        case "4.0.1": self = .r4
        case "1.0.2": self = .dstu2
        default: throw UsageError("--fhir-version takes 4.0.1 or 1.0.2, got '\(option)'")
        }
    }

    /// The release's name in messages.
    var name: String {
        switch self {
        case .r4: "R4"
        case .dstu2: "DSTU2"
        }
    }

    /// Every problem the version's validator finds.
    func validate(_ bytes: [UInt8]) -> [FHIRValidationIssue] {
        switch self {
        case .r4: ModelsR4.FHIRValidator().validate(bytes)
        case .dstu2: ModelsDSTU2.FHIRValidator().validate(bytes)
        }
    }

    /// Decodes a resource with the version's models and encodes it again, canonically.
    func reencode(_ bytes: [UInt8], style: JSONWriter.Style) throws(FHIRDecodingError) -> [UInt8] {
        switch self {
        case .r4: try ModelsR4.ResourceProxy(fhirJSON: bytes).fhirJSONBytes(style: style)
        case .dstu2: try ModelsDSTU2.ResourceProxy(fhirJSON: bytes).fhirJSONBytes(style: style)
        }
    }

    /// Throws what decoding a resource with the version's models throws.
    func checkDecodes(_ value: JSONValue) throws(FHIRDecodingError) {
        switch self {
        case .r4: _ = try ModelsR4.ResourceProxy(fhirJSON: value)
        case .dstu2: _ = try ModelsDSTU2.ResourceProxy(fhirJSON: value)
        }
    }
}
