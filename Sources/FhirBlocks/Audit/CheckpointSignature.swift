import CommonSupport
import Crypto

/// One signature line of a signed note (C2SP `signed-note`): `— <key name> <base64(key ID ‖ signature)>`.
///
/// For this log's P-256 key: key ID = the first 4 bytes of SHA-256(key name ‖ 0x0A ‖ 0x02 ‖
/// DER SubjectPublicKeyInfo); signature = DER ECDSA P-256/SHA-256 over the note body. (0x02 is
/// the signed-note type byte for ECDSA; the exact key and signature encodings are this
/// project's choice.)
public struct CheckpointSignature: Sendable, Hashable {
    /// The signature type byte for ECDSA P-256.
    public static let ecdsaType: UInt8 = 0x02

    /// The key name.
    public var keyName: String
    /// The 4-byte key ID.
    public var keyID: [UInt8]
    /// The signature bytes.
    public var signature: [UInt8]

    /// Creates a signature line.
    public init(keyName: String, keyID: [UInt8], signature: [UInt8]) {
        self.keyName = keyName
        self.keyID = keyID
        self.signature = signature
    }

    /// The key ID of a named P-256 key.
    public static func keyID(name: String, publicKey: CsiPublicKey) -> [UInt8] {
        var input = Array(name.utf8)
        input.append(0x0A)
        input.append(ecdsaType)
        input += publicKey.spkiDER
        return Array(Array(SHA256.hash(data: input)).prefix(4))
    }

    /// Whether a key name is acceptable: non-empty, no whitespace, no `+`.
    public static func isValidKeyName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains { $0.isWhitespace || $0 == "+" }
    }

    /// The line, with its trailing newline.
    public var line: String {
        "\u{2014} \(keyName) \(Base64URL.encodeStandard(keyID + signature))\n"
    }
}
