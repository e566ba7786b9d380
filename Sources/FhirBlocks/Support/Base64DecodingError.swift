import CommonSupport

/// Why text is not base64 of the expected form. Offsets are byte offsets into the text; the
/// text itself is never repeated.
public enum Base64DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A character outside the alphabet at this offset.
    case invalidCharacter(offset: Int)
    /// A length (without padding) that no byte string encodes to.
    case invalidLength(Int)
    /// `=` padding where the form forbids it.
    case unexpectedPadding(offset: Int)
    /// Padding of the wrong length or in the wrong place.
    case invalidPadding(offset: Int)
    /// Padding is required but missing.
    case missingPadding
    /// The last character carries non-zero unused bits (a second spelling of the same bytes).
    case nonCanonical

    /// A one-line description.
    public var description: String {
        switch self {
        case .invalidCharacter(let offset): "invalid base64 character at offset \(offset)"
        case .invalidLength(let length): "invalid base64 length \(length)"
        case .unexpectedPadding(let offset): "unexpected '=' padding at offset \(offset)"
        case .invalidPadding(let offset): "invalid '=' padding at offset \(offset)"
        case .missingPadding: "base64 padding is missing"
        case .nonCanonical: "non-canonical base64 (unused bits set)"
        }
    }
}

extension Base64DecodingError {
    /// The error for what the package's base64 decoder found wrong with `text`.
    init(_ problem: Base64URL.Problem, in text: some StringProtocol) {
        switch problem {
        case .invalidCharacter(let offset): self = .invalidCharacter(offset: offset)
        case .padding(let offset): self = .unexpectedPadding(offset: offset)
        case .invalidPadding(let offset): self = .invalidPadding(offset: offset)
        case .missingPadding: self = .missingPadding
        case .invalidLength: self = .invalidLength(text.utf8.count - text.utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count)
        case .nonCanonical: self = .nonCanonical
        }
    }
}
