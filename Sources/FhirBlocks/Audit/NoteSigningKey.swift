import Crypto

/// An Ed25519 signed-note key: signs checkpoint text (type 0x01, the log's own signature, which
/// Go's `golang.org/x/mod/sumdb/note` and the C2SP witnesses verify) or `cosignature/v1` lines
/// (type 0x04, a witness's).
///
/// The audit log's note key is not a file of its own: it is derived from the audit key
/// (`audit-key.pem`, P-256) with HKDF-SHA-256 under a label of this format, so it is kept, read
/// and checked exactly as that key is, and a server that keeps its audit key keeps its note key.
public struct NoteSigningKey: Sendable {
    /// The key name on the signature lines.
    public let name: String
    /// The verifier key of note signatures (type 0x01).
    public let verifierKey: NoteVerifierKey
    /// The verifier key of this key's cosignatures (type 0x04).
    public let cosignerKey: NoteVerifierKey
    private let key: Curve25519.Signing.PrivateKey

    /// A key from a 32-byte Ed25519 seed.
    /// - Parameters:
    ///   - name: the key name: non-empty, no whitespace, no `+`.
    ///   - seed: the 32-byte private key seed (RFC 8032).
    /// - Throws: `CheckpointError.invalidKeyName` or `CheckpointError.invalidVerifierKey` (a seed of another length).
    public init(name: String, seed: [UInt8]) throws(CheckpointError) {
        guard CheckpointSignature.isValidKeyName(name) else { throw .invalidKeyName }
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { throw .invalidVerifierKey }
        self.name = name
        self.key = key
        let publicKey = Array(key.publicKey.rawRepresentation)
        verifierKey = try NoteVerifierKey(name: name, type: NoteVerifierKey.ed25519Type, publicKey: publicKey)
        cosignerKey = try NoteVerifierKey(name: name, type: NoteVerifierKey.cosignatureType, publicKey: publicKey)
    }

    /// The audit log's note key, derived from its P-256 signing key.
    /// - Parameters:
    ///   - name: the key name.
    ///   - auditKey: the audit log's P-256 key.
    /// - Throws: `CheckpointError.invalidKeyName`.
    public init(name: String, derivedFrom auditKey: CsiSigningKey) throws(CheckpointError) {
        let seed = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: auditKey.rawScalar),
                                          salt: Array("OpenHealthKit audit log".utf8),
                                          info: Array("signed-note Ed25519 key v1".utf8), outputByteCount: 32)
        try self.init(name: name, seed: seed.withUnsafeBytes { Array($0) })
    }

    /// A new random key (a test's witness).
    /// - Parameter name: the key name.
    /// - Throws: `CheckpointError.invalidKeyName`.
    public static func generate(name: String) throws(CheckpointError) -> NoteSigningKey {
        try NoteSigningKey(name: name, seed: Array(Curve25519.Signing.PrivateKey().rawRepresentation))
    }

    /// The note signature line of `body` (the note text, ending in a newline).
    /// - Parameter body: the signed text.
    /// - Throws: `CheckpointError.noValidSignature` if signing fails.
    public func signatureLine(for body: String) throws(CheckpointError) -> CheckpointSignature {
        guard let signature = try? key.signature(for: Array(body.utf8)) else { throw .noValidSignature }
        return CheckpointSignature(keyName: name, keyID: verifierKey.keyID, signature: Array(signature))
    }

    /// The `cosignature/v1` line of a checkpoint at `time` (C2SP `tlog-cosignature`): key ID of type
    /// 0x04, then the 8-byte big-endian time and the Ed25519 signature of
    /// `cosignature/v1\ntime <time>\n` followed by the checkpoint body.
    /// - Parameters:
    ///   - checkpoint: the cosigned checkpoint.
    ///   - time: seconds since the epoch, at most 2^63 − 1.
    /// - Throws: `CheckpointError.noValidSignature` if signing fails or the time is out of range.
    public func cosignatureLine(for checkpoint: Checkpoint, time: UInt64) throws(CheckpointError) -> CheckpointSignature {
        guard time <= UInt64(Int64.max), let signature = try? key.signature(for: Cosignature.message(body: checkpoint.body, time: time)) else {
            throw .noValidSignature
        }
        let timeBytes = (0..<8).map { UInt8(truncatingIfNeeded: time >> (56 - 8 * $0)) }
        return CheckpointSignature(keyName: name, keyID: cosignerKey.keyID, signature: timeBytes + Array(signature))
    }
}

/// The `cosignature/v1` format of C2SP `tlog-cosignature` (Ed25519).
public enum Cosignature {
    /// The signed message: `cosignature/v1\ntime <time>\n` followed by the checkpoint body.
    /// - Parameters:
    ///   - body: the checkpoint body, ending in a newline.
    ///   - time: the cosignature's time in seconds since the epoch.
    public static func message(body: String, time: UInt64) -> [UInt8] {
        Array("cosignature/v1\ntime \(time)\n\(body)".utf8)
    }
}
