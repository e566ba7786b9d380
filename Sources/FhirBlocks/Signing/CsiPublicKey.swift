import CommonSupport
import Crypto
import ExactJSON

/// The P-256 public key bound to a csiGuid, in the encodings the protocol meets:
/// base64 DER SubjectPublicKeyInfo (`publicKey` at registration, 91 bytes → 124 characters),
/// PEM, JWK (RFC 7517, for SMART `private_key_jwt` clients) and, in compat mode only, a bare
/// X9.63 point (§1.5).
public struct CsiPublicKey: Sendable, Hashable {
    /// The swift-crypto key.
    public let key: P256.Signing.PublicKey
    /// The canonical DER SubjectPublicKeyInfo.
    public let spkiDER: [UInt8]

    /// Wraps a swift-crypto key.
    public init(_ key: P256.Signing.PublicKey) {
        self.key = key
        spkiDER = Array(key.derRepresentation)
    }

    public static func == (lhs: CsiPublicKey, rhs: CsiPublicKey) -> Bool { lhs.spkiDER == rhs.spkiDER }
    public func hash(into hasher: inout Hasher) { hasher.combine(spkiDER) }

    // MARK: Reading

    /// Reads DER SubjectPublicKeyInfo bytes; only the canonical uncompressed form is accepted.
    public init(spkiDER bytes: [UInt8]) throws(KeyEncodingError) {
        guard bytes.count == 91, let key = try? P256.Signing.PublicKey(derRepresentation: bytes),
              Array(key.derRepresentation) == bytes else {
            throw .notP256SubjectPublicKeyInfo
        }
        self.init(key)
    }

    /// Reads the registration `publicKey` member: base64 (standard, padded) of a DER
    /// SubjectPublicKeyInfo. Compat mode also accepts a base64 65-byte X9.63 point
    /// (``CompatQuirk/x963PublicKey``).
    public static func parseWire(_ text: String, mode: ProtocolMode) throws(KeyEncodingError) -> Accepted<CsiPublicKey> {
        let bytes: [UInt8]
        do {
            bytes = try Base64URL.decode(text, alphabet: .standard, padding: .required)
        } catch {
            throw .notBase64(Base64DecodingError(error, in: text))
        }
        if bytes.count == 65, bytes.first == 0x04 {
            guard mode == .compat else { throw .x963NotAllowed }
            guard let key = try? P256.Signing.PublicKey(x963Representation: bytes) else { throw .notP256SubjectPublicKeyInfo }
            return Accepted(CsiPublicKey(key), quirks: [.x963PublicKey])
        }
        return Accepted(try CsiPublicKey(spkiDER: bytes))
    }

    /// Reads a PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
    public init(pem: String) throws(KeyEncodingError) {
        guard pem.utf8.count < 4096, pem.contains("-----BEGIN PUBLIC KEY-----"),
              let key = try? P256.Signing.PublicKey(pemRepresentation: pem) else {
            throw .notPEM
        }
        self.init(key)
    }

    /// Reads a public JWK: `kty` `EC`, `crv` `P-256`, `x` and `y` 32-byte base64url without
    /// padding; a JWK with `d` is refused. Other members (`kid`, `use`, `alg`) are ignored.
    public init(jwk: JSONValue) throws(KeyEncodingError) {
        guard let object = jwk.objectValue else { throw .jwkNotAnObject }
        func member(_ name: String) throws(KeyEncodingError) -> String {
            guard let text = object[name]?.stringValue else { throw .jwkMissingMember(name) }
            return text
        }
        guard try member("kty") == "EC", try member("crv") == "P-256" else { throw .jwkUnsupportedKeyType }
        guard object["d"] == nil else { throw .jwkHasPrivateMember }
        guard let parsed = P256JWK.publicKey(x: try member("x"), y: try member("y")) else { throw .jwkInvalidCoordinates }
        self.init(parsed.key)
    }

    /// Reads a public JWK from JSON text.
    public init(jwkText: String) throws(KeyEncodingError) {
        guard let value = try? JSONParser.parse(jwkText, maximumDepth: 8) else { throw .jwkNotAnObject }
        try self.init(jwk: value)
    }

    // MARK: Writing

    /// Base64 (standard, padded) of the DER SubjectPublicKeyInfo: the registration `publicKey`.
    public var spkiBase64: String { Base64URL.encodeStandard(spkiDER) }

    /// PEM `PUBLIC KEY`.
    public var pem: String { key.pemRepresentation }

    /// The 65-byte X9.63 point `04 ‖ X ‖ Y`.
    public var x963: [UInt8] { Array(key.x963Representation) }

    /// The public JWK `{"kty":"EC","crv":"P-256","x":…,"y":…}` plus `kid`, `use: sig`, `alg: ES256`
    /// when a `kid` is given.
    public func jwk(kid: String? = nil) -> JSONValue {
        let (x, y) = P256JWK.coordinates(of: key)
        var object = JSONObject()
        object.append("kty", "EC")
        object.append("crv", "P-256")
        object.append("x", x)
        object.append("y", y)
        if let kid {
            object.append("kid", kid)
            object.append("use", "sig")
            object.append("alg", "ES256")
        }
        return .object(object)
    }

    /// The RFC 7638 JWK thumbprint (SHA-256, base64url): a `kid` that names this key.
    public var thumbprint: String { P256JWK.thumbprint(of: key) }

    // MARK: Verifying

    /// Whether `signature` (in `format`) is a valid ECDSA P-256/SHA-256 signature of `message`.
    public func isValidSignature(_ signature: [UInt8], format: SignatureFormat, for message: [UInt8]) -> Bool {
        switch format {
        case .der:
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        case .raw:
            guard signature.count == 64, let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: message)
        }
    }
}
