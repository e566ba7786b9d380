import ExtrasBase64

/// Base64 (RFC 4648 §4) and base64url (§5) text as the FhirBlocks wire uses it.
///
/// Encoding uses ExtrasBase64. Decoding is written out here so that every rejection is a typed
/// ``Base64DecodingError`` with an offset, and so that the accepted alphabet and padding are
/// chosen per call (legacy clients send standard padded base64 where JOSE wants unpadded
/// base64url). Decoding is canonical: the unused low bits of the last character must be zero.
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

        var output: [UInt8] = []
        output.reserveCapacity(end / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for offset in 0..<end {
            guard let value = sextet(input[offset], alphabet: alphabet) else {
                throw .invalidCharacter(offset: offset)
            }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if accumulator != 0 { throw .nonCanonical }
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
