/// A FHIR `positiveInt`: a whole number from 1 to 2,147,483,647, a JSON number such as `3`.
public struct FHIRPositiveInteger: FHIRPrimitiveValue, ExpressibleByIntegerLiteral {
    /// The value, always at least 1.
    public var integer: Int32 {
        didSet { if integer < 1 { integer = oldValue } }
    }

    /// Wraps a value; one less than 1 becomes 1 (FHIRModels' initializer). See
    /// ``init(exactly:)`` for a check instead.
    public init(_ integer: Int32) {
        self.integer = max(1, integer)
    }

    /// Wraps a value; `nil` if it is less than 1.
    public init?(exactly integer: Int32) {
        guard integer >= 1 else { return nil }
        self.integer = integer
    }

    /// Creates the value from an integer literal; one that is not at least 1 becomes 1, as in
    /// FHIRModels.
    public init(integerLiteral value: Int32) {
        self.integer = max(1, value)
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
