import CommonSupport
import Foundation

/// A FHIR `base64Binary`, a JSON string of base64 text.
///
/// The text is kept as written; decoding the JSON checks only that it is a string (validation
/// checks the alphabet). ``data`` decodes it on demand.
public struct Base64Binary: FHIRPrimitiveValue {
    /// The base64 text as written.
    public var string: String

    /// Wraps base64 text without checking it.
    public init(_ string: String) {
        self.string = string
    }

    /// Encodes bytes as standard base64 with padding.
    public init(data: Data) {
        self.string = Base64URL.encodeStandard(data)
    }

    /// Decodes a JSON string.
    public init(fhirJSON value: JSONValue) throws(FHIRPrimitiveError) {
        guard case .string(let string) = value else {
            throw LexicalScanner.wrongKind("base64Binary", expected: "string", found: value)
        }
        self.string = string
    }

    /// The decoded bytes, or `nil` if the text is not valid base64. Whitespace (which FHIR
    /// permits between groups) is ignored.
    public var data: Data? {
        let compact = string.utf8.contains(where: Self.isWhitespace)
            ? String(decoding: string.utf8.filter { !Self.isWhitespace($0) }, as: UTF8.self)
            : string
        return Base64URL.decodeStandard(compact).map { Data($0) }
    }

    /// The value as a JSON string.
    public var fhirJSON: JSONValue { .string(string) }

    /// The base64 text as written.
    public var description: String { string }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
