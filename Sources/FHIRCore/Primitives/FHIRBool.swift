/// A FHIR `boolean`, a JSON `true` or `false`.
public struct FHIRBool: FHIRPrimitiveValue, ExpressibleByBooleanLiteral {
    /// The value.
    public var bool: Bool

    /// Wraps a value.
    public init(_ bool: Bool) {
        self.bool = bool
    }

    /// Creates the value from a boolean literal.
    public init(booleanLiteral value: Bool) {
        self.bool = value
    }

    /// Decodes a JSON boolean.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .bool(let bool) = value else {
            throw LexicalScanner.wrongKind("boolean", expected: "boolean", found: value)
        }
        self.bool = bool
    }

    /// Decodes the JSON boolean at `node` of a tape straight from its bytes (no `JSONValue`), with
    /// the same errors as decoding the `JSONValue`.
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        switch tape.kind(node) {
        case .true: bool = true
        case .false: bool = false
        default: throw FHIRPrimitiveError(type: "boolean", reason: "expected a boolean, found \(tape.kindName(at: node))")
        }
    }

    /// The value as a JSON boolean.
    public var fhirJSON: JSONValue { .bool(bool) }

    /// `true` or `false`.
    public var description: String { bool ? "true" : "false" }
}
