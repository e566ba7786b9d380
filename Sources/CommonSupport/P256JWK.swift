import Crypto

/// The P-256 public JWK (RFC 7517/7518) as SMART Health Cards issuers and FhirBlocks clients use
/// it: its coordinates and its RFC 7638 thumbprint, in one place.
package enum P256JWK {
    /// The base64url `x` and `y` of `key` (32 bytes each, leading zeros kept).
    package static func coordinates(of key: P256.Signing.PublicKey) -> (x: String, y: String) {
        let raw = Array(key.rawRepresentation)
        return (Base64URL.encode(raw[0..<32]), Base64URL.encode(raw[32..<64]))
    }

    /// The key whose base64url coordinates are `x` and `y`, with whether either was shorter than
    /// 32 bytes (some issuers drop leading zero bytes; with `acceptingShortCoordinates` they are
    /// padded back). Nil when they are not base64url or not a point on the curve.
    package static func publicKey(x: String, y: String, acceptingShortCoordinates: Bool = false)
        -> (key: P256.Signing.PublicKey, shortened: Bool)? {
        guard let xBytes = try? Base64URL.decode(x), let yBytes = try? Base64URL.decode(y),
              (1...32).contains(xBytes.count), (1...32).contains(yBytes.count) else { return nil }
        let shortened = xBytes.count < 32 || yBytes.count < 32
        if shortened && !acceptingShortCoordinates { return nil }
        let padded = [UInt8](repeating: 0, count: 32 - xBytes.count) + xBytes + [UInt8](repeating: 0, count: 32 - yBytes.count) + yBytes
        guard let key = try? P256.Signing.PublicKey(rawRepresentation: padded) else { return nil }
        return (key, shortened)
    }

    /// The RFC 7638 thumbprint of an EC key: base64url of SHA-256 over
    /// `{"crv":…,"kty":…,"x":…,"y":…}` (the required members in lexicographic order, no whitespace).
    package static func thumbprint(kty: String = "EC", crv: String = "P-256", x: String, y: String) -> String {
        let canonical = "{\"crv\":\(quoted(crv)),\"kty\":\(quoted(kty)),\"x\":\(quoted(x)),\"y\":\(quoted(y))}"
        return Base64URL.encode(Array(SHA256.hash(data: Array(canonical.utf8))))
    }

    /// The thumbprint of `key`.
    package static func thumbprint(of key: P256.Signing.PublicKey) -> String {
        let (x, y) = coordinates(of: key)
        return thumbprint(x: x, y: y)
    }

    /// A JSON string literal (RFC 8259: `"`, `\` and control characters escaped).
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
