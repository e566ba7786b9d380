import CommonSupport

/// The body of a C2SP `tlog-witness` `add-checkpoint` request: `old <size>`, up to 63 consistency
/// proof lines (base64 hashes), an empty line, then the signed checkpoint; every line ends in a
/// newline.
public struct AddCheckpointRequest: Sendable, Hashable {
    /// The most consistency proof lines a request carries.
    public static let maximumProofLines = 63

    /// The size of the checkpoint the witness cosigned last for this log (0 for none).
    public var oldSize: Int
    /// The consistency proof from `oldSize` to the checkpoint's size (empty when `oldSize` is 0).
    public var proof: [MerkleHash]
    /// The signed checkpoint's note text.
    public var checkpoint: String

    /// Creates a request.
    /// - Parameters:
    ///   - oldSize: the witness's last cosigned size (0 for none).
    ///   - proof: the consistency proof from `oldSize` to the checkpoint.
    ///   - checkpoint: the signed checkpoint note.
    public init(oldSize: Int, proof: [MerkleHash], checkpoint: String) {
        self.oldSize = oldSize
        self.proof = proof
        self.checkpoint = checkpoint
    }

    /// The request body.
    public var body: String {
        "old \(oldSize)\n" + proof.map { $0.base64 + "\n" }.joined() + "\n" + checkpoint
    }

    /// Reads a request body; nil when it is not one (a witness answers 400). The checkpoint is
    /// not parsed here.
    /// - Parameter body: the request body.
    public init?(body: [UInt8]) {
        guard body.count <= SignedCheckpoint.maximumLength + 4096, let text = String(validating: body, as: UTF8.self) else { return nil }
        var rest = text[...]
        func nextLine() -> Substring? {
            guard let newline = rest.firstIndex(of: "\n") else { return nil }
            defer { rest = rest[rest.index(after: newline)...] }
            return rest[..<newline]
        }
        guard let first = nextLine(), first.hasPrefix("old ") else { return nil }
        let sizeText = first.dropFirst(4)
        guard (1...18).contains(sizeText.utf8.count), sizeText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              sizeText == "0" || sizeText.first != "0", let size = Int(sizeText) else { return nil }
        var proof: [MerkleHash] = []
        while true {
            guard let line = nextLine() else { return nil }
            if line.isEmpty { break }
            guard proof.count < Self.maximumProofLines, let bytes = try? Base64URL.decode(line, alphabet: .standard, padding: .required),
                  let hash = MerkleHash(bytes: bytes) else { return nil }
            proof.append(hash)
        }
        guard !rest.isEmpty else { return nil }
        self.init(oldSize: size, proof: proof, checkpoint: String(rest))
    }
}
