import Crypto

/// RFC 7636 Proof Key for Code Exchange with the `S256` method only (SMART App Launch 2.0
/// forbids `plain`): the app sends `BASE64URL(SHA-256(verifier))` to `/authorize` and the
/// verifier to the token endpoint. Internal to the package (the FhirBlocks server checks it, the
/// SMART client sends it).
package enum PKCE {
    /// The only method accepted.
    package static let method = "S256"

    /// Whether `text` is a syntactically valid verifier or challenge: 43–128 characters of
    /// `[A-Za-z0-9-._~]` (RFC 7636 §4.1; an S256 challenge is 43 characters of base64url).
    package static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (43...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
            default: false
            }
        }
    }

    /// The S256 challenge of `verifier`: base64url (unpadded) of its SHA-256.
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// Whether `verifier` is well formed and hashes to `challenge`.
    package static func verify(verifier: String, challenge: String) -> Bool {
        guard isWellFormed(verifier) else { return false }
        let computed = Array(Self.challenge(for: verifier).utf8)
        let expected = Array(challenge.utf8)
        guard computed.count == expected.count else { return false }
        // Constant time over the (public-length) strings.
        var difference: UInt8 = 0
        for index in computed.indices { difference |= computed[index] ^ expected[index] }
        return difference == 0
    }
}
