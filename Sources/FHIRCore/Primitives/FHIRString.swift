/// A FHIR string-valued primitive: `string`, `code`, `id`, `markdown` or `xhtml`, a JSON string.
///
/// Decoding checks only the JSON kind; the per-type lexical rules (for example `id`'s length and
/// alphabet) belong to validation.
public struct FHIRString: FHIRPrimitiveValue, ExpressibleByStringLiteral {
    /// The text.
    public var string: String

    /// Wraps a string.
    public init(_ string: String) {
        self.string = string
    }

    /// Creates the value from a string literal.
    public init(stringLiteral value: String) {
        self.string = value
    }

    /// Decodes a JSON string.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let string) = value else {
            throw LexicalScanner.wrongKind("string", expected: "string", found: value)
        }
        self.string = string
    }

    /// Decodes the JSON string at `node` of a tape straight from its bytes (no `JSONValue`), with
    /// the same errors as decoding the `JSONValue`.
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        guard tape.isString(node) else {
            throw FHIRPrimitiveError(type: "string", reason: "expected a string, found \(tape.kindName(at: node))")
        }
        string = tape.string(at: node)
    }

    /// The value as a JSON string.
    public var fhirJSON: JSONValue { .string(string) }

    /// The text itself.
    public var description: String { string }
}
