import ExtrasBase64

/// Strict base64url (RFC 4648 §5) without padding, as JWS and JWK use it, standard base64 for
/// certificates and key files, and either form with the alphabet and padding chosen per call (the
/// FhirBlocks wire, whose legacy clients send padded standard base64 where JOSE wants unpadded
/// base64url): every module's base64, through ExtrasBase64. Decoding is canonical: the unused low
/// bits of the last character must be zero.
package enum Base64URL {
    /// Why a base64 or base64url text was rejected. Offsets are byte offsets into the text; the
    /// text itself is never repeated.
    package enum Problem: Error, Equatable, Hashable, Sendable {
        /// A character outside the alphabet (for base64url, `A–Z a–z 0–9 - _`) at this offset.
        case invalidCharacter(offset: Int)
        /// A `=` padding character at this offset, where the form forbids padding.
        case padding(offset: Int)
        /// Padding of the wrong length or in the wrong place (the padding starts at this offset).
        case invalidPadding(offset: Int)
        /// Padding is required but missing.
        case missingPadding
        /// A length that no byte string encodes to (length without padding mod 4 == 1).
        case invalidLength
        /// The last character carries bits beyond the last byte that are not zero: another text
        /// decodes to the same bytes (RFC 4648 §3.5), which a strict decoder refuses.
        case nonCanonical
    }

    /// Whether `byte` is in the base64url alphabet.
    @inline(__always)
    package static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// The first problem of `bytes` as unpadded base64url, if any.
    package static func problem(in bytes: some Collection<UInt8>) -> Problem? {
        var offset = 0
        var last: UInt8?
        for byte in bytes {
            if !isAlphabet(byte) {
                return byte == UInt8(ascii: "=") ? .padding(offset: offset) : .invalidCharacter(offset: offset)
            }
            offset += 1
            last = byte
        }
        if offset % 4 == 1 { return .invalidLength }
        if let last, !isCanonicalEnd(last, count: offset) { return .nonCanonical }
        return nil
    }

    /// Whether the last character of a text of `count` characters leaves the bits beyond the last
    /// whole byte zero (always true when `count` is a multiple of four).
    @inline(__always)
    package static func isCanonicalEnd(_ last: UInt8, count: Int) -> Bool {
        let unused: UInt8
        switch count % 4 {
        case 2: unused = 0x0F
        case 3: unused = 0x03
        default: return true
        }
        return sextet(last) & unused == 0
    }

    /// The value of a base64url character (0xFF outside the alphabet).
    @inline(__always)
    private static func sextet(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: 0xFF
        }
    }

    /// Decodes unpadded, canonical base64url with ExtrasBase64. ExtrasBase64 itself accepts `=` in
    /// the last quartet and stray bits in the last character; JWS forbids padding and a strict
    /// decoder refuses the bits (RFC 4648 §3.5), so those are checked first. The exact problem
    /// (and its offset) is looked for only when decoding fails.
    package static func decode(_ bytes: some Collection<UInt8>) throws(Problem) -> [UInt8] {
        let decoded = bytes.withContiguousStorageIfAvailable { decodeStrict($0) } ?? decodeStrict(Array(bytes))
        guard let decoded else { throw problem(in: bytes) ?? .invalidLength }
        return decoded
    }

    /// Decodes a segment in place (a JWS part of a larger buffer); nil when it is not strict,
    /// unpadded base64url.
    package static func decodeStrict(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        guard count % 4 != 1 else { return nil }
        if count >= 1, input[count - 1] == UInt8(ascii: "=") { return nil }
        if count >= 2, input[count - 2] == UInt8(ascii: "=") { return nil }
        if count > 0, !isCanonicalEnd(input[count - 1], count: count) { return nil }
        return try? Base64.decode(bytes: input, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    private static func decodeStrict(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { decodeStrict($0) }
    }

    /// Decodes unpadded base64url text.
    package static func decode(_ string: String) throws(Problem) -> [UInt8] {
        try decode(Array(string.utf8))
    }

    /// Encodes bytes as unpadded base64url.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// Decodes standard, padded base64 (RFC 4648 §4), as X.509 `x5c` members and key files hold it.
    package static func decodeStandard(_ text: some StringProtocol) -> [UInt8]? {
        try? Base64.decode(string: String(text))
    }

    /// Encodes bytes as standard, padded base64.
    package static func encodeStandard(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes)
    }

    // MARK: Either alphabet, padding as asked

    /// Which characters encode the values 62 and 63.
    package enum Alphabet: Sendable, Hashable {
        /// `+` and `/` (RFC 4648 §4).
        case standard
        /// `-` and `_` (RFC 4648 §5).
        case url
        /// Either pair, even mixed (for compat inputs that may have been converted half-way).
        case either
    }

    /// Whether `=` padding is required, forbidden or optional.
    package enum Padding: Sendable, Hashable {
        /// The length must be a multiple of four, padded with `=`.
        case required
        /// No `=` may appear.
        case forbidden
        /// Either form.
        case optional
    }

    /// Decodes text in the given alphabet and padding form.
    package static func decode(_ text: some StringProtocol, alphabet: Alphabet, padding: Padding) throws(Problem) -> [UInt8] {
        try decode(utf8: Array(text.utf8), alphabet: alphabet, padding: padding)
    }

    /// Decodes UTF-8 bytes in the given alphabet and padding form. The checks are written here so
    /// that every rejection names its offset and `.either` may mix both pairs; the decoding itself
    /// is ExtrasBase64's.
    package static func decode(utf8 input: [UInt8], alphabet: Alphabet, padding: Padding) throws(Problem) -> [UInt8] {
        // Split off the padding.
        var end = input.count
        while end > 0 && input[end - 1] == UInt8(ascii: "=") { end -= 1 }
        let padCount = input.count - end
        if padCount > 0 {
            if padding == .forbidden { throw .padding(offset: end) }
            if padCount > 2 || input.count % 4 != 0 { throw .invalidPadding(offset: end) }
        } else if padding == .required && input.count % 4 != 0 {
            throw .missingPadding
        }
        let remainder = end % 4
        if remainder == 1 { throw .invalidLength }
        if padCount > 0 && (4 - remainder) % 4 != padCount { throw .invalidPadding(offset: end) }

        var body = Array(input[0..<end])
        for offset in body.indices {
            let byte = body[offset]
            guard sextet(byte, alphabet: alphabet) != nil else { throw .invalidCharacter(offset: offset) }
            if byte == UInt8(ascii: "+") { body[offset] = UInt8(ascii: "-") } else if byte == UInt8(ascii: "/") { body[offset] = UInt8(ascii: "_") }
        }
        // Canonical: the bits the last character carries beyond the last whole byte are zero.
        if let last = body.last, !isCanonicalEnd(last, count: end) { throw .nonCanonical }
        guard let output = try? Base64.decode(bytes: body, options: [.base64UrlAlphabet, .omitPaddingCharacter]) else {
            throw .invalidLength
        }
        return output
    }

    @inline(__always)
    private static func sextet(_ byte: UInt8, alphabet: Alphabet) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): alphabet == .url ? nil : 62
        case UInt8(ascii: "/"): alphabet == .url ? nil : 63
        case UInt8(ascii: "-"): alphabet == .standard ? nil : 62
        case UInt8(ascii: "_"): alphabet == .standard ? nil : 63
        default: nil
        }
    }
}
