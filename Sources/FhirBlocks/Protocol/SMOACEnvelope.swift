import ExactJSON

/// The members every signed `csi/*` and `permission/*` body carries (§1.3): the cipher name,
/// the caller's csiGuid, the `dateTime`, the single-use `nonce` and the base64 DER signature.
///
/// The text of each member is kept exactly as received, because the signed payload is rebuilt
/// from it verbatim.
public struct SMOACEnvelope: Sendable, Hashable {
    /// Which member names the cipher: `cipher` (permission/*, fetchPublicClaims) or
    /// `cipherSpec` (registration).
    public enum CipherField: String, Sendable, Hashable {
        case cipher
        case cipherSpec
    }

    /// The only cipher the protocol knows.
    public static let ecdsa = "ecdsa"

    /// Which member carried the cipher name.
    public var cipherField: CipherField
    /// The cipher name, `"ecdsa"`.
    public var cipher: String
    /// The caller's csiGuid as sent (for registration: the GUID being registered).
    public var csiGuid: String
    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` as sent.
    public var dateTime: String
    /// The single-use nonce as sent.
    public var nonce: String
    /// Base64 (standard, padded) DER ECDSA signature as sent.
    public var signature: String

    /// Creates an envelope.
    public init(cipherField: CipherField = .cipher, csiGuid: String, dateTime: String, nonce: String, signature: String) {
        self.cipherField = cipherField
        self.cipher = Self.ecdsa
        self.csiGuid = csiGuid
        self.dateTime = dateTime
        self.nonce = nonce
        self.signature = signature
    }

    /// Reads and checks the envelope members of a body.
    init(fields: JSONFields, cipherField: CipherField) throws(SMOACError) {
        self.cipherField = cipherField
        cipher = try fields.string(cipherField.rawValue)
        guard cipher == Self.ecdsa else {
            throw .malformedRequest("\(fields.context): \"\(cipherField.rawValue)\" must be \"ecdsa\"")
        }
        csiGuid = try fields.string("csiGuid")
        guard CsiGuid(csiGuid) != nil else {
            throw .malformedRequest("\(fields.context): \"csiGuid\" is not a 36-character UUID")
        }
        dateTime = try fields.string("dateTime")
        guard Timestamp(wireText: dateTime) != nil else {
            throw .malformedRequest("\(fields.context): \"dateTime\" is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        }
        nonce = try fields.string("nonce")
        guard ProtocolNonce.isValid(nonce) else {
            throw .malformedRequest("\(fields.context): \"nonce\" must be 16-64 characters of [A-Za-z0-9-]")
        }
        signature = try fields.string("signature")
        guard !signature.isEmpty else { throw .malformedRequest("\(fields.context): \"signature\" is empty") }
    }

    /// The caller as a typed identifier (always valid for a parsed envelope).
    public var caller: CsiGuid? { CsiGuid(csiGuid) }

    /// The `dateTime` as a timestamp (always valid for a parsed envelope).
    public var timestamp: Timestamp? { Timestamp(wireText: dateTime) }
}
