import CommonSupport
import Crypto
import ExactJSON

/// Revocation identifiers (rules 40 and 44).
public enum SHCRevocation {
    /// The largest rid length the spec allows.
    public static let maximumRidLength = 24

    /// The spec's recommended rid (rule 40):
    /// `base64url(HMAC-SHA-256(key: secret ‖ kid, message: subject)[0..<8])`, 11 characters.
    ///
    /// The secret is used as the bytes given (the spec examples' generator uses its secret's
    /// ASCII text, not its base64url decoding); `kid` and `subject` as UTF-8.
    public static func rid(secret: [UInt8], kid: String, subject: String) -> String {
        let key = SymmetricKey(data: secret + Array(kid.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(subject.utf8), using: key)
        return Base64URL.encode(Array(mac.prefix(8)))
    }

    /// The spec's recommended rid with the secret given as text (used as its UTF-8 bytes).
    public static func rid(secret: String, kid: String, subject: String) -> String {
        rid(secret: Array(secret.utf8), kid: kid, subject: subject)
    }

    /// The legacy `hash-fhir` revocation id of draft RFC 002 (rule 44), for cards without `rid`:
    /// `base64url(SHA-256(base64url(UTF-8(JCS(fhirBundle))))[0..<8])`.
    public static func hashFHIRRid(bundle: JSONValue) -> String {
        let encoded = Base64URL.encode(bundle.canonicalized())
        return Base64URL.encode(Array(SHA256.hash(data: Array(encoded.utf8)).prefix(8)))
    }

    /// Whether `rid` is 1-24 base64url characters (rule 40).
    public static func isValidRid(_ rid: some StringProtocol) -> Bool {
        let utf8 = rid.utf8
        return !utf8.isEmpty && utf8.count <= maximumRidLength && utf8.allSatisfy(Base64URL.isAlphabet)
    }
}
