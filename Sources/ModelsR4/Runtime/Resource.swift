import FHIRCore

/// Any FHIR resource.
public protocol Resource: FHIRJSONCodable, Codable {
    /// The resource type of a generated resource struct.
    static var resourceType: ResourceType { get }
    /// The `resourceType` as written in JSON (for unknown resources, whatever they said).
    var resourceTypeName: String { get }
    /// Logical id of this artifact.
    var id: FHIRPrimitive<FHIRString>? { get }
    /// Metadata about the resource.
    var meta: Meta? { get }
    /// A set of rules under which this content was created.
    var implicitRules: FHIRPrimitive<FHIRURI>? { get }
    /// Language of the resource content.
    var language: FHIRPrimitive<FHIRString>? { get }
}

/// A resource with narrative, extensions and contained resources.
public protocol DomainResource: Resource {
    /// Text summary of the resource, for human interpretation.
    var text: Narrative? { get }
    /// Contained, inline resources.
    var contained: [ResourceProxy]? { get }
    /// Additional content defined by implementations.
    var `extension`: [Extension]? { get }
    /// Extensions that cannot be ignored.
    var modifierExtension: [Extension]? { get }
}

extension DomainResource {
    /// The extensions with the given url (as on elements and primitives).
    public func extensions(for url: String) -> [Extension] {
        (`extension` ?? []).filter { $0.url.value?.string == url }
    }
}

extension Resource {
    public var resourceTypeName: String { Self.resourceType.rawValue }

    /// `Type/id`, the relative reference to this resource, when it has an id.
    public var relativeReference: String? {
        id?.value.map { "\(resourceTypeName)/\($0.string)" }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(fhirJSON: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try fhirJSONValue.encode(to: encoder)
    }
}
