/// A FHIR `unsignedInt`: a whole number from 0 to 2,147,483,647, a JSON number such as `0`.
public struct FHIRUnsignedInteger: FHIRPrimitiveValue, ExpressibleByIntegerLiteral {
    /// The value, never negative.
    public var integer: Int32 {
        didSet { if integer < 0 { integer = oldValue } }
    }

    /// Wraps a value; one negative becomes 0 (FHIRModels' initializer). See
    /// ``init(exactly:)`` for a check instead.
    public init(_ integer: Int32) {
        self.integer = max(0, integer)
    }

    /// Wraps a value; `nil` if it is negative.
    public init?(exactly integer: Int32) {
        guard integer >= 0 else { return nil }
        self.integer = integer
    }

    /// Creates the value from an integer literal; one that is not not negative becomes 0, as in
    /// FHIRModels.
    public init(integerLiteral value: Int32) {
        self.integer = max(0, value)
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
