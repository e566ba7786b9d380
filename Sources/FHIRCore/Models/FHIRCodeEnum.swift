/// A code from a required binding's value set, generated as an enum with one case per code and
/// `unrecognized` for codes this version does not list (kept as written, so nothing is lost).
public protocol FHIRCodeEnum: FHIRPrimitiveValue, RawRepresentable where RawValue == String {
    /// A code the value set does not list.
    static func unrecognized(_ code: String) -> Self
    /// Every code the value set lists.
    static var allKnownCases: [Self] { get }
}

extension FHIRCodeEnum {
    /// The case for `code`, or `.unrecognized(code)`.
    @inlinable public init(code: String) {
        self = Self(rawValue: code) ?? .unrecognized(code)
    }

    /// Whether the value set lists this code.
    public var isKnown: Bool { Self(rawValue: rawValue) != nil }

    /// Decodes the JSON string at `node` of a tape straight from its bytes (no `JSONValue`).
    /// Inlinable, so each models module specializes it for its code enums.
    @inlinable public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        guard tape.isString(node) else {
            throw FHIRPrimitiveError(type: "code", reason: "expected a string, found \(tape.kindName(at: node))")
        }
        self.init(code: tape.string(at: node))
    }

    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let code) = value else {
            throw FHIRPrimitiveError(type: "code", reason: "expected a string, found \(value.kindName)")
        }
        self.init(code: code)
    }

    public var fhirJSON: JSONValue { .string(rawValue) }

    public var description: String { rawValue }
}
