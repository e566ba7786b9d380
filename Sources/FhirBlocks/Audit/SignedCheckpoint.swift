import CommonSupport

/// A checkpoint with its signature lines: a C2SP signed note (body, blank line, one or more
/// `— name base64` lines). Verifiers ignore lines from keys they do not know, so witnesses can
/// add cosignatures.
public struct SignedCheckpoint: Sendable, Hashable {
    /// The longest note read (64 KiB).
    public static let maximumLength = 65_536

    /// The checkpoint.
    public var checkpoint: Checkpoint
    /// The signature lines in order.
    public var signatures: [CheckpointSignature]

    /// Creates a signed checkpoint.
    public init(checkpoint: Checkpoint, signatures: [CheckpointSignature]) {
        self.checkpoint = checkpoint
        self.signatures = signatures
    }

    /// Signs a checkpoint with the server's key under `keyName`.
    public static func sign(_ checkpoint: Checkpoint, keyName: String, key: CsiSigningKey) throws(CheckpointError) -> SignedCheckpoint {
        guard CheckpointSignature.isValidKeyName(keyName), !checkpoint.origin.isEmpty,
              !checkpoint.origin.contains(where: { $0.isNewline }) else { throw .invalidKeyName }
        guard let signature = try? key.signature(for: Array(checkpoint.body.utf8), format: .der) else { throw .noValidSignature }
        let line = CheckpointSignature(keyName: keyName, keyID: CheckpointSignature.keyID(name: keyName, publicKey: key.publicKey), signature: signature)
        return SignedCheckpoint(checkpoint: checkpoint, signatures: [line])
    }

    /// The note text.
    public var text: String {
        checkpoint.body + "\n" + signatures.map(\.line).joined()
    }

    /// Parses note text. Does not verify signatures.
    public init(text: String) throws(CheckpointError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        guard text.hasSuffix("\n"), let separator = text.range(of: "\n\n") else { throw .malformedNote }
        let bodyText = text[text.startIndex..<separator.lowerBound]
        let signatureText = text[separator.upperBound...]
        checkpoint = try Checkpoint(lines: bodyText.split(separator: "\n", omittingEmptySubsequences: false))
        guard checkpoint.body == String(bodyText) + "\n" else { throw .malformedNote }
        var lines = signatureText.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty else { throw .unsigned }
        var signatures: [CheckpointSignature] = []
        for (offset, line) in lines.enumerated() {
            let number = offset + 6
            guard line.hasPrefix("\u{2014} ") else { throw .malformedSignature(line: number) }
            let fields = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 2, CheckpointSignature.isValidKeyName(String(fields[0])),
                  let bytes = try? Base64URL.decode(fields[1], alphabet: .standard, padding: .required), bytes.count >= 5 else {
                throw .malformedSignature(line: number)
            }
            signatures.append(CheckpointSignature(keyName: String(fields[0]), keyID: Array(bytes.prefix(4)), signature: Array(bytes.dropFirst(4))))
        }
        self.signatures = signatures
    }

    /// Verifies that a line by `keyName` with the matching key ID carries a valid signature by
    /// `publicKey` over the body.
    public func verify(keyName: String, publicKey: CsiPublicKey) throws(CheckpointError) {
        let id = CheckpointSignature.keyID(name: keyName, publicKey: publicKey)
        let body = Array(checkpoint.body.utf8)
        for line in signatures where line.keyName == keyName && line.keyID == id {
            if publicKey.isValidSignature(line.signature, format: .der, for: body) { return }
        }
        throw .noValidSignature
    }
}
