import CommonSupport
import Crypto

/// A signed-note verifier key (C2SP `signed-note`, "vkey"): `<name>+<hex key ID>+<base64(type ‖ public key)>`.
///
/// Two types are read: `0x01`, an Ed25519 key that signs note text (what Go's
/// `golang.org/x/mod/sumdb/note` verifies), and `0x04`, an Ed25519 witness key whose
/// `cosignature/v1` lines (C2SP `tlog-cosignature`) sign a timestamped checkpoint. The key ID is
/// the first 4 bytes of SHA-256(name ‖ 0x0A ‖ type ‖ 32-byte public key).
public struct NoteVerifierKey: Sendable, Hashable, CustomStringConvertible {
    /// The signature type byte of an Ed25519 note signature.
    public static let ed25519Type: UInt8 = 0x01
    /// The signature type byte of an Ed25519 `cosignature/v1`.
    public static let cosignatureType: UInt8 = 0x04
    /// The longest verifier key text read.
    public static let maximumLength = 1024

    /// The key name on the signature lines.
    public let name: String
    /// The signature type byte (``ed25519Type`` or ``cosignatureType``).
    public let type: UInt8
    /// The 32-byte Ed25519 public key.
    public let publicKey: [UInt8]

    /// A key from its parts.
    /// - Parameters:
    ///   - name: the key name: non-empty, no whitespace, no `+`.
    ///   - type: ``ed25519Type`` or ``cosignatureType``.
    ///   - publicKey: the 32-byte Ed25519 public key.
    /// - Throws: `CheckpointError.invalidKeyName` or `CheckpointError.invalidVerifierKey`.
    public init(name: String, type: UInt8, publicKey: [UInt8]) throws(CheckpointError) {
        guard CheckpointSignature.isValidKeyName(name) else { throw .invalidKeyName }
        guard type == Self.ed25519Type || type == Self.cosignatureType, publicKey.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey)) != nil else { throw .invalidVerifierKey }
        self.name = name
        self.type = type
        self.publicKey = publicKey
    }

    /// Reads `<name>+<8 hex digits>+<base64>`; the key ID must be the one the name, type and key give.
    /// - Parameter text: the verifier key.
    /// - Throws: `CheckpointError.invalidVerifierKey` (or `.invalidKeyName`) for anything else.
    public init(text: String) throws(CheckpointError) {
        guard text.utf8.count <= Self.maximumLength else { throw .invalidVerifierKey }
        let parts = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count == 8, let id = Hex.decode(parts[1]),
              let material = try? Base64URL.decode(parts[2], alphabet: .standard, padding: .required), let type = material.first else {
            throw .invalidVerifierKey
        }
        try self.init(name: String(parts[0]), type: type, publicKey: Array(material.dropFirst()))
        guard id == keyID else { throw .invalidVerifierKey }
    }

    /// The 4-byte key ID.
    public var keyID: [UInt8] {
        var input = Array(name.utf8)
        input.append(0x0A)
        input.append(type)
        input += publicKey
        return Array(Array(SHA256.hash(data: input)).prefix(4))
    }

    /// The verifier key text.
    public var text: String { "\(name)+\(Hex.encode(keyID))+\(Base64URL.encodeStandard([type] + publicKey))" }

    public var description: String { text }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
