import Crypto
import Foundation

/// Documents an issuer publishes, made for a test.
enum TestDocuments {
    /// A JWKS with one fresh ES256 key, and that key's `kid` (its RFC 7638 thumbprint).
    static func keySet() -> (json: String, kid: String) {
        let key = P256.Signing.PrivateKey().publicKey.x963Representation
        let x = base64URL(key[1..<33])
        let y = base64URL(key[33..<65])
        let kid = base64URL(SHA256.hash(data: Array(#"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#.utf8)))
        let json = #"{"keys":[{"kty":"EC","kid":"\#(kid)","use":"sig","alg":"ES256","crv":"P-256","x":"\#(x)","y":"\#(y)","crlVersion":1}]}"#
        return (json, kid)
    }

    /// A CRL for `kid` with counter `ctr` revoking `rids`.
    static func revocationList(kid: String, ctr: Int = 1, rids: [String] = ["MKyCxh7p6uQ"]) -> String {
        let list = rids.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"kid":"\#(kid)","method":"rid","ctr":\#(ctr),"rids":[\#(list)]}"#
    }

    private static func base64URL<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
