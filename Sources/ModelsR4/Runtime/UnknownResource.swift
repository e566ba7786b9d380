import FHIRCore

/// A resource whose `resourceType` this version does not define, kept as its JSON object so it
/// survives decoding and encoding unchanged (FHIRCore's `FHIRUnknownResourceProtocol` reads and
/// writes it).
public struct UnknownResource: Resource, FHIRUnknownResourceProtocol {
    /// There is no static type for unknown resources; see ``resourceTypeName``.
    public static var resourceType: ResourceType { .unrecognized("") }

    /// The JSON object, `resourceType` included.
    public var json: JSONObject

    /// A resource from its JSON object.
    public init(json: JSONObject = JSONObject()) {
        self.json = json
    }

    /// Wraps any resource by its JSON.
    public init(_ resource: any Resource) {
        self.init(wrapping: resource)
    }

    /// The `resourceType` as written.
    public var resourceTypeName: String { json["resourceType"]?.stringValue ?? "" }
    public var id: FHIRPrimitive<FHIRString>? { primitiveMember("id") }
    public var meta: Meta? { elementMember("meta") }
    public var implicitRules: FHIRPrimitive<FHIRURI>? { primitiveMember("implicitRules") }
    public var language: FHIRPrimitive<FHIRString>? { primitiveMember("language") }
}
