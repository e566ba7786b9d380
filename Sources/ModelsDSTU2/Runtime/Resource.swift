import FHIRCore

/// Any FHIR resource.
public protocol Resource: FHIRCodableModel {
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

/// A resource with narrative, extensions and contained resources. (`extensions(for:)` comes from
/// FHIRCore's `FHIRExtensible`.)
public protocol DomainResource: Resource, FHIRExtensible where ExtensionType == Extension {
    /// Text summary of the resource, for human interpretation.
    var text: Narrative? { get }
    /// Contained, inline resources.
    var contained: [ResourceProxy]? { get }
    /// Additional content defined by implementations.
    var `extension`: [Extension]? { get }
    /// Extensions that cannot be ignored.
    var modifierExtension: [Extension]? { get }
}

extension Resource {
    public var resourceTypeName: String { Self.resourceType.rawValue }

    /// `Type/id`, the relative reference to this resource, when it has an id.
    public var relativeReference: String? {
        id?.value.map { "\(resourceTypeName)/\($0.string)" }
    }
}
