/// A complex value that generated code decodes straight into its place in the value that holds
/// it (a member of a struct, an element of an array), instead of building it apart and copying
/// it in: ``FHIRObjectReader/element(_:into:)`` and its siblings start from
/// ``decodingPlaceholder`` where the value will live and read the object's members into it.
/// Data types and backbone elements of the generated models conform.
public protocol FHIRInPlaceDecodable: FHIRJSONCodable {
    /// The value members are decoded into: required elements hold placeholders, the rest nil.
    static var decodingPlaceholder: Self { get }

    /// Reads the members of the reader's object into `model` (normally ``decodingPlaceholder``):
    /// every element is set, to nil when its member is absent, and a required one that is absent
    /// is an error. Then finishes the reader (in strict mode a member the type does not define is
    /// an error).
    static func decodeMembers(into model: inout Self, from reader: inout FHIRObjectReader) throws(FHIRDecodingError)
}
