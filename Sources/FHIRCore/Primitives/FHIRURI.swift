import Foundation

/// FHIR `canonical` shares the representation of ``FHIRURI``.
public typealias FHIRCanonical = FHIRURI

/// A FHIR URI-valued primitive: `uri`, `url`, `canonical`, `oid` or `uuid`, a JSON string.
///
/// The text is kept as written; decoding checks only the JSON kind.
public struct FHIRURI: FHIRPrimitiveValue, ExpressibleByStringLiteral {
    /// The URI text.
    public var string: String

    /// Wraps URI text.
    public init(_ string: String) {
        self.string = string
    }

    /// Wraps a URL's absolute string.
    public init(_ url: URL) {
        self.string = url.absoluteString
    }

    /// Creates the value from a string literal.
    public init(stringLiteral value: String) {
        self.string = value
    }

    /// Decodes a JSON string.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let string) = value else {
            throw LexicalScanner.wrongKind("uri", expected: "string", found: value)
        }
        self.string = string
    }

    /// Decodes the JSON string at `node` of a tape straight from its bytes (no `JSONValue`), with
    /// the same errors as decoding the `JSONValue`.
    public init(fhirJSON tape: borrowing JSONTape, node: Int) throws(FHIRPrimitiveError) {
        guard tape.isString(node) else {
            throw FHIRPrimitiveError(type: "uri", reason: "expected a string, found \(tape.kindName(at: node))")
        }
        string = tape.string(at: node)
    }

    /// The URI as a `URL` (FHIRModels' non-optional `url`). Text that Foundation does not take
    /// as a URL as it stands is given percent-encoded; ``string`` always keeps the text as written.
    /// Setting it replaces the text with the URL's absolute string.
    public var url: URL {
        get {
            if let url = URL(string: string) { return url }
            if let url = URL(string: string, encodingInvalidCharacters: true) { return url }
            let encoded = string.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
            return URL(string: encoded) ?? Self.emptyURL
        }
        set { string = newValue.absoluteString }
    }

    /// What `url` gives for text no URL can carry (only the empty string).
    private static let emptyURL = URL(string: "about:blank") ?? URL(fileURLWithPath: "/")

    /// The value as a JSON string.
    public var fhirJSON: JSONValue { .string(string) }

    /// The URI text.
    public var description: String { string }
}

extension FHIRURI {
    public static func == (lhs: URL, rhs: FHIRURI) -> Bool { lhs.absoluteString == rhs.string }
    public static func == (lhs: FHIRURI, rhs: URL) -> Bool { lhs.string == rhs.absoluteString }
}
