import CommonSupport
import Crypto

/// Names a device's P-256 public key: the SHA-1 of its uncompressed point (the 65 bytes of
/// the X.509 subjectPublicKey BIT STRING), as RFC 5280 §4.2.1.2 (method 1) derives a
/// subjectKeyIdentifier. A signature's `sid` carries it, so bare keys work without certificates.
public struct DeviceKeyIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The identifier's bytes (20 for keys identified as above; a signature may carry others).
    public let bytes: [UInt8]

    /// Wraps identifier bytes as a signature carries them.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The identifier of `publicKey`.
    public init(_ publicKey: P256.Signing.PublicKey) {
        bytes = Array(Insecure.SHA1.hash(data: publicKey.x963Representation))
    }

    /// Lower-case hexadecimal, as the CLI prints it.
    public var description: String { HexText.encode(bytes) }

    /// Parses lower- or upper-case hexadecimal; nil for anything else.
    public init?(hex: String) {
        guard !hex.isEmpty, let bytes = HexText.decode(hex) else { return nil }
        self.bytes = bytes
    }
}
