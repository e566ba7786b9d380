import ExtrasBase64

/// Base64 (RFC 4648 §4) and base64url (§5) text as the FhirBlocks wire uses it.
///
/// Encoding and decoding use ExtrasBase64. The checks around it are written here so that every
/// rejection is a typed ``Base64DecodingError`` with an offset, and so that the accepted alphabet
/// and padding are chosen per call (legacy clients send standard padded base64 where JOSE wants
/// unpadded base64url). Decoding is canonical: the unused low bits of the last character must be zero.
public enum Base64Text {
    /// Which characters encode the values 62 and 63.
    public enum Alphabet: Sendable, Hashable {
        /// `+` and `/` (RFC 4648 §4).
        case standard
        /// `-` and `_` (RFC 4648 §5).
        case url
        /// Either pair, even mixed (for compat inputs that may have been converted half-way).
        case either
    }

    /// Whether `=` padding is required, forbidden or optional.
    public enum Padding: Sendable, Hashable {
        /// The length must be a multiple of four, padded with `=`.
        case required
        /// No `=` may appear.
        case forbidden
        /// Either form.
        case optional
    }

    /// Standard alphabet, padded, no line breaks: what the legacy clients send.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes)
    }

    /// base64url without padding: what JOSE (JWS, JWK) uses.
    public static func encodeURL(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Decodes text in the given alphabet and padding form.
    public static func decode(
        _ text: some StringProtocol,
        alphabet: Alphabet = .standard,
        padding: Padding = .required
    ) throws(Base64DecodingError) -> [UInt8] {
        try decode(utf8: Array(text.utf8), alphabet: alphabet, padding: padding)
    }

    /// Decodes UTF-8 bytes in the given alphabet and padding form.
    public static func decode(
        utf8 input: [UInt8],
        alphabet: Alphabet = .standard,
        padding: Padding = .required
    ) throws(Base64DecodingError) -> [UInt8] {
        // Split off the padding.
        var end = input.count
        while end > 0 && input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        let padCount = input.count - end
        if padCount > 0 {
            if padding == .forbidden { throw .unexpectedPadding(offset: end) }
            if padCount > 2 || input.count % 4 != 0 { throw .invalidPadding(offset: end) }
        } else if padding == .required && input.count % 4 != 0 {
            throw .missingPadding
        }
        let remainder = end % 4
        if remainder == 1 { throw .invalidLength(end) }
        if padCount > 0 && (4 - remainder) % 4 != padCount { throw .invalidPadding(offset: end) }

        // The alphabet is checked here (so a rejection names its offset, and `.either` may mix
        // both pairs); the decoding itself is ExtrasBase64's.
        var body = Array(input[0..<end])
        for offset in body.indices {
            let byte = body[offset]
            guard sextet(byte, alphabet: alphabet) != nil else { throw .invalidCharacter(offset: offset) }
            if byte == UInt8(ascii: "+") { body[offset] = UInt8(ascii: "-") } else if byte == UInt8(ascii: "/") { body[offset] = UInt8(ascii: "_") }
        }
        // Canonical: the bits the last character carries beyond the last whole byte are zero.
        if let last = body.last, let value = sextet(last, alphabet: .url) {
            let unusedBits: UInt8 = remainder == 2 ? 0x0F : remainder == 3 ? 0x03 : 0
            if value & unusedBits != 0 { throw .nonCanonical }
        }
        guard let output = try? Base64.decode(bytes: body, options: [.base64UrlAlphabet, .omitPaddingCharacter]) else {
            throw .invalidLength(end)
        }
        return output
    }

    @inline(__always)
    private static func sextet(_ byte: UInt8, alphabet: Alphabet) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return alphabet == .url ? nil : 62
        case UInt8(ascii: "/"): return alphabet == .url ? nil : 63
        case UInt8(ascii: "-"): return alphabet == .standard ? nil : 62
        case UInt8(ascii: "_"): return alphabet == .standard ? nil : 63
        default: return nil
        }
    }
}
