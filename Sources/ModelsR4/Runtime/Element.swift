import FHIRCore

/// A FHIR data type or backbone element: it has an `id` and extensions.
public protocol Element: FHIRJSONCodable, Codable {
    /// Unique id for inter-element referencing.
    var id: FHIRPrimitive<FHIRString>? { get set }
    /// Additional content defined by implementations.
    var `extension`: [Extension]? { get set }
}

/// An element nested inside a resource or data type; it may carry modifier extensions.
public protocol BackboneElement: Element {
    /// Extensions that cannot be ignored.
    var modifierExtension: [Extension]? { get set }
}

extension Element {
    /// The extensions with the given url.
    public func extensions(for url: String) -> [Extension] {
        (`extension` ?? []).filter { $0.url.value?.string == url }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(fhirJSON: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try fhirJSONValue.encode(to: encoder)
    }
}
