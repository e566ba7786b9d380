/// A FHIR `positiveInt`: a whole number from 1 to 2,147,483,647, a JSON number such as `3`.
public struct FHIRPositiveInteger: FHIRPrimitiveValue, ExpressibleByIntegerLiteral {
    /// The value, always at least 1.
    public private(set) var integer: Int32

    /// Wraps a value; `nil` unless it is at least 1.
    public init?(_ integer: Int32) {
        guard integer >= 1 else { return nil }
        self.integer = integer
    }

    /// Creates the value from an integer literal, which must be at least 1 (checked with a
    /// precondition, as a literal is program text rather than input).
    public init(integerLiteral value: Int32) {
        precondition(value >= 1, "positiveInt literal must be at least 1")
        self.integer = value
    }

    /// Decodes a JSON number: digits without sign, fraction or exponent, at least 1.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        integer = try IntegerLexicalForm.decode(value, type: "positiveInt", allowsSign: false, minimum: 1)
    }

    /// The value as a JSON number.
    public var fhirJSON: JSONValue { .number(String(integer)) }

    /// The decimal text.
    public var description: String { String(integer) }
}
