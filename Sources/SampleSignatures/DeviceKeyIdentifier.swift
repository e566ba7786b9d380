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
    public var description: String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }

    /// Parses lower- or upper-case hexadecimal; nil for anything else.
    public init?(hex: String) {
        let characters = Array(hex.utf8)
        guard !characters.isEmpty, characters.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let high = Self.nibble(characters[index]), let low = Self.nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
