import Crypto
import ExactJSON

/// A P-256 private key that signs SMOAC payloads, VACA assertions and audit checkpoints.
/// Key storage is the caller's business; this type only converts and signs.
public struct CsiSigningKey: Sendable {
    /// The swift-crypto key.
    public let key: P256.Signing.PrivateKey

    /// Wraps a swift-crypto key.
    public init(_ key: P256.Signing.PrivateKey) {
        self.key = key
    }

    /// A new random key.
    public static func generate() -> CsiSigningKey {
        CsiSigningKey(P256.Signing.PrivateKey())
    }

    /// A key from its 32-byte private scalar.
    public init(rawScalar: [UInt8]) throws(KeyEncodingError) {
        guard rawScalar.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: rawScalar) else {
            throw .invalidPrivateKey
        }
        self.init(key)
    }

    /// A key from PEM (`PRIVATE KEY` PKCS #8 or `EC PRIVATE KEY` SEC 1).
    public init(pem: String) throws(KeyEncodingError) {
        guard pem.utf8.count < 8192, let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else { throw .notPEM }
        self.init(key)
    }

    /// The public half.
    public var publicKey: CsiPublicKey { CsiPublicKey(key.publicKey) }

    /// PKCS #8 PEM.
    public var pem: String { key.pemRepresentation }

    /// The 32-byte private scalar.
    public var rawScalar: [UInt8] { Array(key.rawRepresentation) }

    /// Signs `message` (hashed with SHA-256) and encodes the signature in `format`.
    public func signature(for message: [UInt8], format: SignatureFormat) throws(KeyEncodingError) -> [UInt8] {
        guard let signature = try? key.signature(for: message) else { throw .signingFailed }
        switch format {
        case .der: return Array(signature.derRepresentation)
        case .raw: return Array(signature.rawRepresentation)
        }
    }
}
