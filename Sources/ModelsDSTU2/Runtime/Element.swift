import FHIRCore

/// A FHIR data type or backbone element: it has an `id` and extensions. (`extensions(for:)` and
/// `Codable` come from FHIRCore's `FHIRExtensible` and `FHIRCodableModel`; generated code decodes
/// it in place through `FHIRInPlaceDecodable`.)
public protocol Element: FHIRCodableModel, FHIRInPlaceDecodable, FHIRExtensible where ExtensionType == Extension {
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
