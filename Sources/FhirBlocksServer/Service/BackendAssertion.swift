import CommonSupport
import Crypto
import CryptoExtras
import ExactJSON
import FhirBlocks

/// Why a backend client's assertion or key set was refused (the token endpoint answers
/// `invalid_client` with the reason).
struct BackendAssertionError: Error, Equatable, Sendable {
    /// What was wrong, for the `error_description`.
    let reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}

/// One public key of a backend client's JSON Web Key Set (RFC 7517): a P-256 or P-384 EC key,
/// or an RSA key of 2048 bits or more, with its `kid` and `alg` if given.
struct BackendKey: Sendable {
    enum Material: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    let kid: String?
    let alg: String?
    let material: Material

    /// Reads one JWK; nil for a key that is not a usable signature key (another `kty` or
    /// curve, `use` other than `sig`, a malformed or too small key): such keys are skipped.
    init?(jwk: JSONObject) {
        if let use = jwk["use"], use.stringValue != "sig" { return nil }
        func bytes(_ name: String) -> [UInt8]? {
            guard let text = jwk[name]?.stringValue else { return nil }
            return try? Base64URL.decode(Array(text.utf8))
        }
        switch jwk["kty"]?.stringValue {
        case "EC":
            guard let x = bytes("x"), let y = bytes("y") else { return nil }
            switch jwk["crv"]?.stringValue {
            case "P-256":
                guard x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(x963Representation: [4] + x + y) else { return nil }
                material = .p256(key)
            case "P-384":
                guard x.count == 48, y.count == 48, let key = try? P384.Signing.PublicKey(x963Representation: [4] + x + y) else { return nil }
                material = .p384(key)
            default:
                return nil
            }
        case "RSA":
            guard let n = bytes("n"), let e = bytes("e"), n.count <= 1024, e.count <= 8,
                  let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { return nil }
            material = .rsa(key)
        default:
            return nil
        }
        kid = jwk["kid"]?.stringValue
        alg = jwk["alg"]?.stringValue
    }

    /// Whether `signature` over `input` verifies with this key under `alg` (`ES256` needs a
    /// P-256 key, `ES384` a P-384 key, `RS384` an RSA key: RSASSA-PKCS1-v1_5 with SHA-384).
    func verifies(_ signature: [UInt8], over input: ArraySlice<UInt8>, alg: String) -> Bool {
        if let own = self.alg, own != alg { return false }
        switch (alg, material) {
        case ("ES256", .p256(let key)):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA256.hash(data: input))
        case ("ES384", .p384(let key)):
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA384.hash(data: input))
        case ("RS384", .rsa(let key)):
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.isValidSignature(parsed, for: SHA384.hash(data: input), padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }
}

/// A backend client's JSON Web Key Set: its usable signature keys (others are skipped).
struct BackendKeySet: Sendable {
    /// The largest key set read, inline or fetched (bytes).
    static let maximumSize = 64 * 1024
    /// The most keys read from one set.
    static let maximumKeys = 32

    let keys: [BackendKey]

    /// Reads a key set's JSON (`{"keys": [...]}`); refused when it is too large, not JSON, has
    /// no `keys` array or more than ``maximumKeys`` keys.
    init(json: [UInt8]) throws(BackendAssertionError) {
        guard json.count <= Self.maximumSize else { throw BackendAssertionError("the key set is larger than \(Self.maximumSize) bytes") }
        guard let object = (try? JSONParser.parse(json, maximumDepth: 8))?.objectValue, let array = object["keys"]?.arrayValue else {
            throw BackendAssertionError("the key set is not a JSON Web Key Set")
        }
        guard array.count <= Self.maximumKeys else { throw BackendAssertionError("the key set has more than \(Self.maximumKeys) keys") }
        keys = array.compactMap { $0.objectValue.flatMap(BackendKey.init(jwk:)) }
    }

    /// The keys named `kid`.
    func keys(kid: String) -> [BackendKey] { keys.filter { $0.kid == kid } }
}

/// A SMART Backend Services client assertion (SMART App Launch 2.x, "Authenticating to the
/// token endpoint"), read but not yet trusted: a compact JWS signed `ES256`, `ES384` or
/// `RS384` (any other `alg`, `none` and `HS256` included, is refused), `typ` `JWT`, a `kid`,
/// and the claims `iss`, `sub`, `aud`, `exp` and `jti`.
struct BackendAssertion: Sendable {
    /// The signing algorithms accepted, as the discovery document lists them.
    static let algorithms = ["ES256", "ES384", "RS384"]
    /// The furthest in the future `exp` may be (the spec's five minutes).
    static let maximumLifetimeSeconds: Int64 = 300
    /// The longest `jti` accepted.
    static let maximumJTILength = 256

    let alg: String
    let kid: String
    let issuer: String
    let subject: String
    let audiences: [String]
    let expiry: Int64
    let jti: String
    let signingInput: ArraySlice<UInt8>
    let signature: [UInt8]

    /// Reads `text`; refused when it is not a compact JWS of the shape above.
    init(_ text: String) throws(BackendAssertionError) {
        guard text.utf8.count <= CompactAssertion.maximumLength, let jws = try? CompactJWS(Array(text.utf8)) else {
            throw BackendAssertionError("the client assertion is not a compact JWS")
        }
        guard let header = (try? JSONParser.parse(jws.header, maximumDepth: 4))?.objectValue,
              let claims = (try? JSONParser.parse(jws.payload, maximumDepth: 4))?.objectValue else {
            throw BackendAssertionError("the client assertion's header or claims are not JSON objects")
        }
        guard let alg = header["alg"]?.stringValue, Self.algorithms.contains(alg) else {
            throw BackendAssertionError("the client assertion's alg must be one of \(Self.algorithms.joined(separator: ", "))")
        }
        guard header["typ"]?.stringValue == "JWT" else { throw BackendAssertionError("the client assertion's typ must be JWT") }
        guard header["crit"] == nil else { throw BackendAssertionError("the client assertion has critical header parameters") }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else { throw BackendAssertionError("the client assertion has no kid") }
        guard let issuer = claims["iss"]?.stringValue, let subject = claims["sub"]?.stringValue else {
            throw BackendAssertionError("the client assertion has no iss or sub")
        }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let one)?: audiences = [one]
        case .array(let many)?: audiences = many.compactMap(\.stringValue)
        default: throw BackendAssertionError("the client assertion has no aud")
        }
        guard case .number(let expText)? = claims["exp"], let expiry = Int64(expText) ?? Double(expText).flatMap({ Int64(exactly: $0.rounded(.down)) }) else {
            throw BackendAssertionError("the client assertion has no numeric exp")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= Self.maximumJTILength else {
            throw BackendAssertionError("the client assertion has no jti (or one longer than \(Self.maximumJTILength) bytes)")
        }
        self.alg = alg
        self.kid = kid
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.expiry = expiry
        self.jti = jti
        signingInput = jws.signingInput
        signature = jws.signature
    }

    /// Checks the claims for `clientID` at `now` (seconds since 1970): `iss` and `sub` are the
    /// client, `aud` names `audience` (the token endpoint's URL), `exp` is in the future and at
    /// most ``maximumLifetimeSeconds`` ahead.
    func checkClaims(clientID: String, audience: String, now: Int64) throws(BackendAssertionError) {
        guard issuer == clientID, subject == clientID else { throw BackendAssertionError("iss and sub must both be the client_id") }
        guard audiences.contains(audience) else { throw BackendAssertionError("aud must be the token endpoint's URL, \(audience)") }
        guard expiry > now else { throw BackendAssertionError("the client assertion has expired") }
        guard expiry <= now + Self.maximumLifetimeSeconds else {
            throw BackendAssertionError("the client assertion's exp is more than \(Self.maximumLifetimeSeconds) seconds ahead")
        }
    }

    /// Checks the signature with the key of `keySet` named by ``kid``.
    func checkSignature(_ keySet: BackendKeySet) throws(BackendAssertionError) {
        let candidates = keySet.keys(kid: kid)
        guard !candidates.isEmpty else { throw BackendAssertionError("no key of the client's key set has kid \(kid)") }
        guard candidates.contains(where: { $0.verifies(signature, over: signingInput, alg: alg) }) else {
            throw BackendAssertionError("the client assertion's signature does not verify")
        }
    }
}
