import CommonSupport

/// Lowercase hexadecimal, for hashes and test vectors.
public enum Hex {
    /// Lowercase hex of the bytes.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        HexText.encode(bytes)
    }

    /// Bytes of hex text (either case), or nil if it is not an even-length hex string.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        HexText.decode(text)
    }
}
