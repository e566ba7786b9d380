/// A FHIR `unsignedInt`: a whole number from 0 to 2,147,483,647, a JSON number such as `0`.
public struct FHIRUnsignedInteger: FHIRPrimitiveValue, ExpressibleByIntegerLiteral {
    /// The value, never negative.
    public private(set) var integer: Int32

    /// Wraps a value; `nil` if it is negative.
    public init?(_ integer: Int32) {
        guard integer >= 0 else { return nil }
        self.integer = integer
    }

    /// Creates the value from an integer literal, which must not be negative (checked with a
    /// precondition, as a literal is program text rather than input).
    public init(integerLiteral value: Int32) {
        precondition(value >= 0, "unsignedInt literal must not be negative")
        self.integer = value
    }

    /// Decodes a JSON number: digits without sign, fraction or exponent.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        integer = try IntegerLexicalForm.decode(value, type: "unsignedInt", allowsSign: false, minimum: 0)
    }

    /// The value as a JSON number.
    public var fhirJSON: JSONValue { .number(String(integer)) }

    /// The decimal text.
    public var description: String { String(integer) }
}
