import CommonSupport

extension SignedCheckpoint {
    /// The checkpoint with `lines` appended after its signatures, leaving out a line it already
    /// carries (witnesses' cosignatures added to the log's own view).
    /// - Parameter lines: the signature lines to add.
    public func adding(_ lines: [CheckpointSignature]) -> SignedCheckpoint {
        var copy = self
        for line in lines where !copy.signatures.contains(line) { copy.signatures.append(line) }
        return copy
    }

    /// Verifies the Ed25519 note signature (type 0x01) of `key` over the body: a line with its
    /// name and key ID must be present and every such line must verify (signed-note: a known key's
    /// failing signature rejects the note).
    /// - Parameter key: the log's Ed25519 verifier key.
    /// - Throws: `CheckpointError.noValidSignature`.
    public func verify(_ key: NoteVerifierKey) throws(CheckpointError) {
        guard key.type == NoteVerifierKey.ed25519Type else { throw .noValidSignature }
        let id = key.keyID
        let lines = signatures.filter { $0.keyName == key.name && $0.keyID == id }
        let body = Array(checkpoint.body.utf8)
        guard !lines.isEmpty, lines.allSatisfy({ key.isValidSignature($0.signature, for: body) }) else { throw .noValidSignature }
    }

    /// The time of the latest `cosignature/v1` by the witness `key` (type 0x04) that verifies over
    /// this checkpoint, in seconds since the epoch.
    /// - Parameter key: the witness's cosignature verifier key.
    /// - Throws: `CheckpointError.noValidCosignature` when no line by the key verifies, or one fails.
    public func cosignatureTime(by key: NoteVerifierKey) throws(CheckpointError) -> UInt64 {
        guard key.type == NoteVerifierKey.cosignatureType else { throw .noValidCosignature }
        let id = key.keyID
        var latest: UInt64?
        for line in signatures where line.keyName == key.name && line.keyID == id {
            guard let time = Self.cosignatureTime(line), time <= UInt64(Int64.max),
                  key.isValidSignature(Array(line.signature.dropFirst(8)), for: Cosignature.message(body: checkpoint.body, time: time)) else {
                throw .noValidCosignature
            }
            latest = max(latest ?? 0, time)
        }
        guard let latest else { throw .noValidCosignature }
        return latest
    }

    /// The big-endian time in front of a cosignature line's Ed25519 signature (8 + 64 bytes).
    /// - Parameter line: a `cosignature/v1` signature line.
    public static func cosignatureTime(_ line: CheckpointSignature) -> UInt64? {
        guard line.signature.count == 72 else { return nil }
        return line.signature.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Signature lines as a witness answers `add-checkpoint` (C2SP `tlog-witness`): one or more
    /// `— <name> <base64>` lines, each ending in a newline.
    /// - Parameter text: the response body.
    /// - Throws: `CheckpointError.unsigned` for no line, `.malformedSignature(line:)` for a bad one.
    public static func signatureLines(_ text: String) throws(CheckpointError) -> [CheckpointSignature] {
        guard text.utf8.count <= maximumLength else { throw .tooLong }
        guard !text.isEmpty else { throw .unsigned }
        guard text.hasSuffix("\n") else { throw .malformedSignature(line: 1) }
        var lines: [CheckpointSignature] = []
        for (offset, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let parsed = parseSignatureLine(line) else { throw .malformedSignature(line: offset + 1) }
            lines.append(parsed)
        }
        return lines
    }

    /// One `— <name> <base64(key ID ‖ signature)>` line (without its newline), or nil.
    static func parseSignatureLine(_ line: Substring) -> CheckpointSignature? {
        guard line.hasPrefix("\u{2014} ") else { return nil }
        let fields = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, CheckpointSignature.isValidKeyName(String(fields[0])),
              let bytes = try? Base64URL.decode(fields[1], alphabet: .standard, padding: .required), bytes.count >= 5 else { return nil }
        return CheckpointSignature(keyName: String(fields[0]), keyID: Array(bytes.prefix(4)), signature: Array(bytes.dropFirst(4)))
    }
}
