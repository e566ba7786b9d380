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

    /// The text as a Foundation URL, or `nil` if Foundation cannot parse it.
    public var url: URL? { URL(string: string) }

    /// The value as a JSON string.
    public var fhirJSON: JSONValue { .string(string) }

    /// The URI text.
    public var description: String { string }
}
