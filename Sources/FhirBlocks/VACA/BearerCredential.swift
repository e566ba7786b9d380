/// Reads the token from an `Authorization` header (RFC 6750 §2.1).
public enum BearerCredential {
    /// Strict: `Bearer <token>` (scheme case-insensitive, one or more spaces). Compat also:
    /// `Bearer<token>` with no space (the legacy client, §1.10 item 8,
    /// ``CompatQuirk/bearerWithoutSpace``). Returns nil when there is no usable token.
    public static func token(fromAuthorization header: String, mode: ProtocolMode) -> Accepted<String>? {
        let utf8 = Array(header.utf8)
        guard utf8.count > 6, String(decoding: utf8[0..<6], as: UTF8.self).lowercased() == "bearer" else { return nil }
        var index = 6
        var spaces = 0
        while index < utf8.count, utf8[index] == UInt8(ascii: " ") || utf8[index] == UInt8(ascii: "\t") {
            index += 1
            spaces += 1
        }
        var end = utf8.count
        while end > index, utf8[end - 1] == UInt8(ascii: " ") || utf8[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        let token = Array(utf8[index..<end])
        guard !token.isEmpty, token.allSatisfy(isTokenCharacter) else { return nil }
        if spaces == 0 {
            guard mode == .compat else { return nil }
            return Accepted(String(decoding: token, as: UTF8.self), quirks: [.bearerWithoutSpace])
        }
        return Accepted(String(decoding: token, as: UTF8.self))
    }

    /// b64token: `A-Z a-z 0-9 - . _ ~ + /` then optional `=`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default:
            false
        }
    }
}
