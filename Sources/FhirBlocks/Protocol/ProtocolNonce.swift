/// The `nonce` rules of §1.3/§1.6: the legacy clients send 36 characters of `[A-Za-z0-9]` with
/// `-` at UUID positions (not hexadecimal); the server accepts any 16–64 character string of
/// `[A-Za-z0-9-]`.
public enum ProtocolNonce {
    /// The shortest accepted nonce.
    public static let minimumLength = 16
    /// The longest accepted nonce.
    public static let maximumLength = 64

    /// Whether the text is an acceptable nonce.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard (minimumLength...maximumLength).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): true
            default: false
            }
        }
    }

    /// A nonce in the legacy clients' shape (36 characters, `-` at 8, 13, 18, 23).
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var bytes: [UInt8] = []
        for offset in 0..<36 {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                bytes.append(UInt8(ascii: "-"))
            } else {
                bytes.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
