import FHIRCore

/// A resource whose `resourceType` this version does not define, kept as its JSON object so it
/// survives decoding and encoding unchanged.
public struct UnknownResource: Resource {
    /// There is no static type for unknown resources; see ``resourceTypeName``.
    public static var resourceType: ResourceType { .unrecognized("") }

    /// The JSON object, `resourceType` included.
    public var json: JSONObject

    public init(fhirObject reader: inout FHIRObjectReader) throws(FHIRDecodingError) {
        json = reader.takeAll()
    }

    /// Wraps any resource by its JSON.
    public init(_ resource: any Resource) {
        json = resource.fhirJSONValue.objectValue ?? JSONObject()
    }

    public func encode(fhirObject writer: inout JSONWriter) {
        for member in json.members {
            writer.key(member.key)
            writer.value(member.value)
        }
    }

    public var resourceTypeName: String { json["resourceType"]?.stringValue ?? "" }
    public var id: FHIRPrimitive<FHIRString>? { json["id"]?.stringValue.map { FHIRPrimitive(FHIRString($0)) } }
    public var meta: Meta? { json["meta"].flatMap { try? Meta(fhirJSON: $0) } }
    public var implicitRules: FHIRPrimitive<FHIRURI>? {
        json["implicitRules"]?.stringValue.map { FHIRPrimitive(FHIRURI($0)) }
    }
    public var language: FHIRPrimitive<FHIRString>? { json["language"]?.stringValue.map { FHIRPrimitive(FHIRString($0)) } }
}
