import CommonSupport
import ExactJSON

/// Builds and signs assertions (SDK side, and tests).
public enum AssertionBuilder {
    /// A standard compact JWS ES256: base64url parts, raw `r‖s` signature over `header.payload`.
    public static func jws(header: JWTHeader, claims: JWTClaims, key: CsiSigningKey) throws(KeyEncodingError) -> String {
        let input = Base64URL.encode(JSONWriter.serialize(header.json)) + "." + Base64URL.encode(JSONWriter.serialize(claims.json))
        return input + "." + Base64URL.encode(try key.signature(for: Array(input.utf8), format: .raw))
    }

    /// The legacy FhirBlocks form (§1.4): `base64(header).base64(payload).base64(derSig)` in
    /// standard padded base64, the DER signature over the payload bytes only. `payloadJSON` is
    /// the exact text (the legacy client builds it by string concatenation).
    public static func legacy(headerJSON: String = "{\"alg\":\"ES256\",\"typ\":\"jwt\"}", payloadJSON: String,
                              key: CsiSigningKey) throws(KeyEncodingError) -> String {
        let payload = Array(payloadJSON.utf8)
        let signature = try key.signature(for: payload, format: .der)
        return Base64URL.encodeStandard(Array(headerJSON.utf8)) + "." + Base64URL.encodeStandard(payload) + "." + Base64URL.encodeStandard(signature)
    }
}
