import CommonSupport

/// A tree head of the audit log as C2SP `tlog-checkpoint` text: the body of a signed note.
///
/// ```
/// <origin>\n
/// <tree size, decimal>\n
/// <root hash, standard base64>\n
/// timestamp <yyyy-MM-dd'T'HH:mm:ss.SSS'Z'>\n
/// ```
/// The timestamp is an extension line (C2SP allows extension lines after the root hash); it is
/// required here.
public struct Checkpoint: Sendable, Hashable {
    /// The log's name, for example `fhirblocks.example/audit`.
    public var origin: String
    /// The number of entries.
    public var treeSize: Int
    /// `MTH` of the entries.
    public var rootHash: MerkleHash
    /// When the checkpoint was made.
    public var timestamp: Timestamp

    /// Creates a checkpoint.
    public init(origin: String, treeSize: Int, rootHash: MerkleHash, timestamp: Timestamp) {
        self.origin = origin
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.timestamp = timestamp
    }

    /// The body text (what signatures cover), ending in a newline.
    public var body: String {
        "\(origin)\n\(treeSize)\n\(rootHash.base64)\ntimestamp \(timestamp.wireText)\n"
    }

    /// Reads a checkpoint body (what ``body`` writes).
    /// - Parameter body: the body text, ending in a newline.
    /// - Throws: `CheckpointError.malformedNote` or `.malformedBody(line:)`.
    public init(body: String) throws(CheckpointError) {
        guard body.utf8.count <= SignedCheckpoint.maximumLength, body.hasSuffix("\n") else { throw .malformedNote }
        try self.init(lines: body.dropLast().split(separator: "\n", omittingEmptySubsequences: false))
        guard self.body == body else { throw .malformedNote }
    }

    /// Reads body lines (without their newlines).
    init(lines: [Substring]) throws(CheckpointError) {
        guard lines.count == 4 else { throw .malformedBody(line: min(lines.count + 1, 5)) }
        let origin = String(lines[0])
        guard !origin.isEmpty, !origin.contains(where: { $0.isNewline }) else { throw .malformedBody(line: 1) }
        let sizeText = lines[1]
        guard !sizeText.isEmpty, sizeText.utf8.count <= 18, sizeText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              sizeText == "0" || sizeText.first != "0", let size = Int(sizeText) else { throw .malformedBody(line: 2) }
        guard let rootBytes = try? Base64URL.decode(lines[2], alphabet: .standard, padding: .required),
              let root = MerkleHash(bytes: rootBytes) else { throw .malformedBody(line: 3) }
        guard lines[3].hasPrefix("timestamp "), let time = Timestamp(wireText: String(lines[3].dropFirst(10))) else {
            throw .malformedBody(line: 4)
        }
        self.init(origin: origin, treeSize: size, rootHash: root, timestamp: time)
    }
}
