/// A generated model type (element, resource, resource proxy) that is also `Codable`: it goes
/// through `JSONDecoder` and `JSONEncoder` as FHIR JSON, losslessly, by way of `JSONValue`.
public protocol FHIRCodableModel: FHIRJSONCodable, Codable {}

extension FHIRCodableModel {
    /// Decodes FHIR JSON from any Foundation decoder (by way of `JSONValue`).
    public init(from decoder: any Decoder) throws {
        try self.init(fhirJSON: JSONValue(from: decoder))
    }

    /// Encodes as FHIR JSON to any Foundation encoder (by way of `JSONValue`).
    public func encode(to encoder: any Encoder) throws {
        try fhirJSONValue.encode(to: encoder)
    }
}

/// A resource of a type the models do not define, kept as its JSON object so it survives decoding
/// and encoding unchanged. Each models module's `UnknownResource` conforms.
public protocol FHIRUnknownResourceProtocol: FHIRJSONCodable {
    /// The JSON object, `resourceType` included.
    var json: JSONObject { get set }
    /// A resource from its JSON object.
    init(json: JSONObject)
}

extension FHIRUnknownResourceProtocol {
    /// Keeps every member of the object.
    public init(fhirObject reader: inout FHIRObjectReader) throws(FHIRDecodingError) {
        self.init(json: reader.takeAll())
    }

    /// Wraps any model value by its JSON.
    public init(wrapping value: some FHIRJSONCodable) {
        self.init(json: value.fhirJSONValue.objectValue ?? JSONObject())
    }

    /// Writes every member as it was read.
    public func encode(fhirObject writer: inout JSONWriter) {
        for member in json.members {
            writer.key(member.key)
            writer.value(member.value)
        }
    }

    /// A string member as a primitive (`id`, `language`…).
    public func primitiveMember<P: FHIRPrimitiveProtocol>(_ key: String) -> P? where P.PrimitiveType == FHIRString {
        json[key]?.stringValue.map { P(FHIRString($0)) }
    }

    /// A URI member as a primitive (`implicitRules`).
    public func primitiveMember<P: FHIRPrimitiveProtocol>(_ key: String) -> P? where P.PrimitiveType == FHIRURI {
        json[key]?.stringValue.map { P(FHIRURI($0)) }
    }

    /// A complex member decoded as `T` (`meta`), nil when absent or invalid.
    public func elementMember<T: FHIRJSONCodable>(_ key: String) -> T? {
        json[key].flatMap { try? T(fhirJSON: $0) }
    }
}
