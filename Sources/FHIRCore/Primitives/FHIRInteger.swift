/// A FHIR `integer`: a 32-bit signed whole number, a JSON number such as `-42`.
///
/// Decoding accepts `-?(0|[1-9][0-9]*)` within `Int32`; `1.0` and `1e2` are rejected. (`-0` is
/// accepted, as the FHIR regex allows it, and encodes back as `0`.)
public struct FHIRInteger: FHIRPrimitiveValue, ExpressibleByIntegerLiteral {
    /// The value.
    public var integer: Int32

    /// Wraps a value.
    public init(_ integer: Int32) {
        self.integer = integer
    }

    /// Creates the value from an integer literal.
    public init(integerLiteral value: Int32) {
        self.integer = value
    }

    /// Decodes a JSON number.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        integer = try IntegerLexicalForm.decode(value, type: "integer", allowsSign: true, minimum: .min)
    }

    /// The value as a JSON number.
    public var fhirJSON: JSONValue { .number(String(integer)) }

    /// The decimal text.
    public var description: String { String(integer) }
}
