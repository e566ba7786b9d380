/// Why a key could not be read or used. Never contains key material.
public enum KeyEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not base64 of the expected form.
    case notBase64(Base64DecodingError)
    /// The bytes are not a DER SubjectPublicKeyInfo of a P-256 key in canonical (uncompressed) form.
    case notP256SubjectPublicKeyInfo
    /// The bytes are a bare X9.63 point, which only compat mode accepts.
    case x963NotAllowed
    /// The text is not a PEM P-256 key of the expected kind.
    case notPEM
    /// The JWK is not JSON or not an object.
    case jwkNotAnObject
    /// A JWK member is missing or of the wrong type.
    case jwkMissingMember(String)
    /// The JWK is not `kty: EC`, `crv: P-256`.
    case jwkUnsupportedKeyType
    /// A public JWK that carries the private member `d`.
    case jwkHasPrivateMember
    /// `x`/`y` (or `d`) are not 32 bytes of base64url, or not a point on P-256.
    case jwkInvalidCoordinates
    /// The private scalar is not a valid P-256 private key.
    case invalidPrivateKey
    /// The signing operation failed.
    case signingFailed

    /// A one-line description.
    public var description: String {
        switch self {
        case .notBase64(let error): "key is not base64: \(error)"
        case .notP256SubjectPublicKeyInfo: "key is not a P-256 SubjectPublicKeyInfo"
        case .x963NotAllowed: "a bare X9.63 key is accepted only in compat mode"
        case .notPEM: "key is not a P-256 PEM key"
        case .jwkNotAnObject: "JWK is not a JSON object"
        case .jwkMissingMember(let name): "JWK member \"\(name)\" is missing or not a string"
        case .jwkUnsupportedKeyType: "JWK is not an EC P-256 key"
        case .jwkHasPrivateMember: "public JWK carries the private member \"d\""
        case .jwkInvalidCoordinates: "JWK coordinates are not a P-256 point"
        case .invalidPrivateKey: "not a valid P-256 private key"
        case .signingFailed: "signing failed"
        }
    }
}
