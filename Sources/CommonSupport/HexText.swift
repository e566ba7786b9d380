/// Hexadecimal text of bytes: lower case out, either case in. Internal to the package
/// (FhirBlocks' public `Hex`, the form decoder, device key identifiers).
package enum HexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of the bytes, written straight into a string made at its size (the
    /// package's one hex writer: digests, identifiers, keys, sync identifiers).
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable(encode(contiguous:)) { return text }
        return Array(bytes).withUnsafeBufferPointer(encode(contiguous:))
    }

    private static func encode(contiguous bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            digits.withUnsafeBufferPointer { table in
                var index = 0
                for byte in bytes {
                    text[index] = table[Int(byte >> 4)]
                    text[index + 1] = table[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }

    /// Bytes of hex text (either case), or nil if it is not an even-length hex string.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// The value of one hex digit (either case), or nil.
    package static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
