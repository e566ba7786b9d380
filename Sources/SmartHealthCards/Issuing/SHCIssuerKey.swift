import CommonSupport
import Crypto
import ExactJSON
import Foundation

/// An issuer's ES256 signing key (rules 1-4): a P-256 private key whose `kid` is the RFC 7638
/// thumbprint of its public JWK.
public struct SHCIssuerKey: Sendable {
    /// The P-256 private key.
    public let privateKey: P256.Signing.PrivateKey
    /// The key id: the RFC 7638 SHA-256 thumbprint of the public key.
    public let kid: String
    /// `crlVersion` to publish with the public JWK, when the key supports revocation (rule 41).
    public var crlVersion: Int?

    /// Wraps a private key.
    public init(privateKey: P256.Signing.PrivateKey, crlVersion: Int? = nil) {
        self.privateKey = privateKey
        kid = P256JWK.thumbprint(of: privateKey.publicKey)
        self.crlVersion = crlVersion
    }

    /// A new random key (new signing keys should be generated at least annually, rule 8).
    public static func generate() -> SHCIssuerKey {
        SHCIssuerKey(privateKey: P256.Signing.PrivateKey())
    }

    /// Reads a private JWK (`kty` EC, `crv` P-256, `d`, `x`, `y`); `x`/`y` must match `d`.
    /// A `kid` that is present must be the thumbprint; `crlVersion` is kept.
    public init(privateJWK json: JSONValue) throws(SHCKeyError) {
        guard case .object = json else { throw .notAnObject }
        guard json["kty"]?.stringValue == "EC", json["crv"]?.stringValue == "P-256" else {
            throw .invalidPrivateKey("kty must be EC and crv P-256")
        }
        guard let d = json["d"]?.stringValue, let dBytes = try? Base64URL.decode(d), dBytes.count == 32,
              let key = try? P256.Signing.PrivateKey(rawRepresentation: dBytes) else {
            throw .invalidPrivateKey("d must be a 32-byte base64url P-256 scalar")
        }
        self.init(privateKey: key, crlVersion: json["crlVersion"]?.doubleValue.map { Int($0) })
        if let x = json["x"]?.stringValue, let y = json["y"]?.stringValue {
            guard (x, y) == P256JWK.coordinates(of: key.publicKey) else {
                throw .invalidPrivateKey("x/y do not belong to d")
            }
        }
        if let kid = json["kid"]?.stringValue, kid != self.kid {
            throw .invalidPrivateKey("kid is not the key's RFC 7638 thumbprint")
        }
    }

    /// Reads a private JWK from JSON text.
    public init(privateJWKBytes bytes: [UInt8]) throws(SHCKeyError) {
        let value: JSONValue
        do { value = try SHCLimits.default.parseJSON(bytes) } catch { throw .invalidJSON(error) }
        try self.init(privateJWK: value)
    }

    /// The ES256 signing keys (`use` sig, or no `use`) of a private JWK set such as
    /// `issuer.jwks.private.json`; other keys (e.g. `use` enc) are skipped.
    public static func signingKeys(fromPrivateJWKS bytes: [UInt8]) throws(SHCKeyError) -> [SHCIssuerKey] {
        let value: JSONValue
        do { value = try SHCLimits.default.parseJSON(bytes) } catch { throw .invalidJSON(error) }
        guard let keys = value["keys"]?.arrayValue else { throw .missingKeysArray }
        var result: [SHCIssuerKey] = []
        for key in keys where (key["use"]?.stringValue ?? "sig") == "sig" && (key["alg"]?.stringValue ?? "ES256") == "ES256" {
            result.append(try SHCIssuerKey(privateJWK: key))
        }
        return result
    }

    private var coordinates: (x: String, y: String) {
        P256JWK.coordinates(of: privateKey.publicKey)
    }

    /// The public JWK as the examples publish it: `kty`, `kid`, `use`, `alg`, `crv`, `x`, `y`, and
    /// `crlVersion` when set.
    public var publicJWK: SHCJWK {
        SHCJWK(object: publicJWKJSON)
    }

    private var publicJWKJSON: JSONValue {
        let (x, y) = coordinates
        var members: [JSONMember] = [
            .init("kty", .string("EC")), .init("kid", .string(kid)), .init("use", .string("sig")),
            .init("alg", .string("ES256")), .init("crv", .string("P-256")), .init("x", .string(x)), .init("y", .string(y)),
        ]
        if let crlVersion { members.append(.init("crlVersion", .number(integer: crlVersion))) }
        return .object(members: members)
    }

    /// The private JWK as JSON text (the public members plus `d`). Keep it secret.
    public var privateJWK: [UInt8] {
        guard case .object(var object) = publicJWKJSON else { return [] }
        object.members.append(.init("d", .string(Base64URL.encode(Array(privateKey.rawRepresentation)))))
        return JSONWriter.serialize(.object(object), style: .pretty) + [0x0A]
    }

    /// The public JWK set `{"keys":[…]}` to publish as `.well-known/jwks.json`.
    public var publicJWKS: [UInt8] {
        SHCJWKSet(keys: [publicJWK]).serialized()
    }

    /// Writes ``privateJWK`` to a new file readable only by its owner: mode 0600 from creation,
    /// written completely and synced before it appears, never over an existing file
    /// (``SHCFileError/alreadyExists(path:)``).
    public func writePrivateJWK(to url: URL) throws(SHCFileError) {
        do {
            try SecretFile.save(privateJWK, to: url.path, replacing: false)
        } catch .alreadyExists(let path) {
            throw .alreadyExists(path: path)
        } catch {
            throw .writeFailed(path: url.path)
        }
    }
}
