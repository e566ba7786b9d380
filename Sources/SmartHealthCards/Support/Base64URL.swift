import ExtrasBase64

/// Strict base64url (RFC 4648 §5) without padding, as JWS uses it.
enum Base64URL {
    /// Why a base64url text was rejected.
    enum Problem: Error, Equatable {
        /// A character outside `A–Z a–z 0–9 - _` at this offset.
        case invalidCharacter(offset: Int)
        /// A `=` padding character at this offset.
        case padding(offset: Int)
        /// A length that no byte string encodes to (length mod 4 == 1).
        case invalidLength
    }

    /// Whether `byte` is in the base64url alphabet.
    @inline(__always)
    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// The first problem of `bytes` as unpadded base64url, if any.
    static func problem(in bytes: some Collection<UInt8>) -> Problem? {
        var offset = 0
        for byte in bytes {
            if !isAlphabet(byte) {
                return byte == UInt8(ascii: "=") ? .padding(offset: offset) : .invalidCharacter(offset: offset)
            }
            offset += 1
        }
        return offset % 4 == 1 ? .invalidLength : nil
    }

    /// Decodes unpadded base64url.
    static func decode(_ bytes: some Collection<UInt8>) throws(Problem) -> [UInt8] {
        let decoded = bytes.withContiguousStorageIfAvailable { decodeFast($0) } ?? decodeFast(Array(bytes))
        guard let decoded else { throw problem(in: bytes) ?? .invalidLength }
        return decoded
    }

    /// Sextet values by ASCII code; 0xFF for characters outside base64url.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    private static func decodeFast(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { decodeFast($0) }
    }

    /// Table-driven decoding; nil on any character outside the alphabet or an impossible length.
    static func decodeFast(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        let outputCount = count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        return sextets.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
                var index = 0
                var outputIndex = 0
                while index + 4 <= count {
                    let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                    let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                    if (a | b | c | d) & 0x80 != 0 { valid = false; break }
                    let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    buffer[outputIndex] = UInt8(truncatingIfNeeded: word >> 16)
                    buffer[outputIndex + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    buffer[outputIndex + 2] = UInt8(truncatingIfNeeded: word)
                    outputIndex += 3
                    index += 4
                }
                if valid, remainder >= 2 {
                    let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                    let c = remainder == 3 ? table[Int(input[index + 2])] : 0
                    if (a | b | c) & 0x80 != 0 {
                        valid = false
                    } else {
                        let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                        buffer[outputIndex] = UInt8(truncatingIfNeeded: word >> 16)
                        if remainder == 3 { buffer[outputIndex + 1] = UInt8(truncatingIfNeeded: word >> 8) }
                    }
                }
                initialized = valid ? outputCount : 0
            }
            return valid ? output : nil
        }
    }

    /// Decodes unpadded base64url text.
    static func decode(_ string: String) throws(Problem) -> [UInt8] {
        try decode(Array(string.utf8))
    }

    /// Encodes bytes as unpadded base64url.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}
