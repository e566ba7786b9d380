import CommonSupport
import ExactJSON
import FhirBlocks

/// The audit log endpoints of a FhirBlocks server (`/audit/*`, §4.2): checkpoints, the signing
/// key, entries and proofs. It is an `AuditLogSource`, so the core's `AuditVerifier` can re-check the
/// whole log over HTTP.
///
/// Checkpoints, leaf hashes and proofs need no authentication. Entries' content comes only
/// with a bearer token, and only for the entries its holder may read: a wallet's own token
/// (the entries about it), any client's token (its own actions), or an auditor's
/// `system/AuditEvent.rs` token (every entry).
public struct AuditClient: AuditLogSource {
    /// The most entries one `/audit/entries` call returns.
    public static let maximumPageSize = 1000
    /// The server connection.
    public let client: FhirBlocksClient
    /// The bearer token sent with `/audit/entries`, if any.
    public let accessToken: String?

    /// Creates an audit client; with `accessToken`, entries the token may read come with
    /// their content.
    public init(client: FhirBlocksClient, accessToken: String? = nil) {
        self.client = client
        self.accessToken = accessToken
    }

    /// `GET /audit/checkpoint`: the latest signed checkpoint (the server signs one for the
    /// current size if none covers it), or, once a witness has cosigned, the latest one carrying
    /// a cosignature. Not verified here.
    public func latestCheckpoint() async throws(FhirBlocksClientError) -> SignedCheckpoint {
        let path = "audit/checkpoint"
        let response = try await client.successfulExchange(.GET, path, accept: "text/plain")
        do {
            return try SignedCheckpoint(text: response.text)
        } catch {
            throw .malformedResponse(endpoint: path, reason: error.description)
        }
    }

    /// `GET /audit/checkpoints`: every checkpoint, as `treeSize` + note text.
    public func checkpoints() async throws(FhirBlocksClientError) -> [AuditCheckpointNote] {
        let path = "audit/checkpoints"
        let body = try JSONReader(try await client.getJSON(path), endpoint: path)
        var notes: [AuditCheckpointNote] = []
        for (index, element) in try body.array("checkpoints").enumerated() {
            let item = try body.reader(element, context: "checkpoints[\(index)]")
            notes.append(AuditCheckpointNote(treeSize: try item.integer("treeSize"), note: try item.string("note")))
        }
        return notes
    }

    /// `GET /audit/key`: the checkpoint key's name and public key (base64 SPKI).
    public func key() async throws(FhirBlocksClientError) -> AuditLogKey {
        let path = "audit/key"
        let body = try JSONReader(try await client.getJSON(path), endpoint: path)
        let name = try body.string("keyName")
        guard let der = try? Base64URL.decode(try body.string("publicKey"), alphabet: .standard, padding: .required),
              let key = try? CsiPublicKey(spkiDER: der) else {
            throw .malformedResponse(endpoint: path, reason: "publicKey is not base64 of a P-256 SubjectPublicKeyInfo")
        }
        return AuditLogKey(keyName: name, publicKey: key)
    }

    /// `GET /audit/entries?from=N&count=M` (`count` at most 1000).
    public func entries(from: Int, count: Int) async throws(FhirBlocksClientError) -> AuditEntryPage {
        guard from >= 0, (1...Self.maximumPageSize).contains(count) else {
            throw .invalidRequest("entries: from ≥ 0 and 1 ≤ count ≤ \(Self.maximumPageSize)")
        }
        let path = "audit/entries"
        let body = try JSONReader(try await client.getJSON(path, query: [("from", String(from)), ("count", String(count))], bearer: accessToken),
                                  endpoint: path)
        var records: [AuditLogRecord] = []
        for (offset, element) in try body.array("entries").enumerated() {
            let item = try body.reader(element, context: "entries[\(offset)]")
            guard let leaf = MerkleHash(hex: try item.string("leafHash")) else {
                throw .malformedResponse(endpoint: path, reason: "entries[\(offset)].leafHash is not 64 hex digits")
            }
            var bytes: [UInt8]?
            if let text = try item.optionalString("entry") {
                guard let decoded = try? Base64URL.decode(text, alphabet: .standard, padding: .required) else {
                    throw .malformedResponse(endpoint: path, reason: "entries[\(offset)].entry is not base64")
                }
                bytes = decoded
            }
            records.append(AuditLogRecord(index: try item.integer("index"), leafHash: leaf, entry: bytes))
        }
        return AuditEntryPage(treeSize: try body.integer("treeSize"), records: records)
    }

    /// `GET /audit/proof/inclusion?index=I&size=N`.
    public func inclusionProof(index: Int, treeSize: Int) async throws(FhirBlocksClientError) -> AuditInclusionProof {
        let path = "audit/proof/inclusion"
        let body = try JSONReader(try await client.getJSON(path, query: [("index", String(index)), ("size", String(treeSize))]), endpoint: path)
        guard let root = MerkleHash(hex: try body.string("rootHash")) else {
            throw .malformedResponse(endpoint: path, reason: "rootHash is not 64 hex digits")
        }
        return AuditInclusionProof(leafIndex: try body.integer("leafIndex"), treeSize: try body.integer("treeSize"), rootHash: root,
                                   hashes: try Self.hashes(body, endpoint: path))
    }

    /// `GET /audit/proof/consistency?from=M&to=N`.
    public func consistencyProof(from: Int, to: Int) async throws(FhirBlocksClientError) -> [MerkleHash] {
        let path = "audit/proof/consistency"
        let body = try JSONReader(try await client.getJSON(path, query: [("from", String(from)), ("to", String(to))]), endpoint: path)
        guard try body.integer("from") == from, try body.integer("to") == to else {
            throw .malformedResponse(endpoint: path, reason: "the proof is for other sizes than asked")
        }
        return try Self.hashes(body, endpoint: path)
    }

    private static func hashes(_ body: JSONReader, endpoint: String) throws(FhirBlocksClientError) -> [MerkleHash] {
        var hashes: [MerkleHash] = []
        for (index, text) in try body.strings("hashes").enumerated() {
            guard let hash = MerkleHash(hex: text) else {
                throw .malformedResponse(endpoint: endpoint, reason: "hashes[\(index)] is not 64 hex digits")
            }
            hashes.append(hash)
        }
        return hashes
    }

    // MARK: AuditLogSource

    public func readKey() async throws(AuditLogSourceError) -> AuditLogKey {
        do { return try await key() } catch { throw AuditLogSourceError(error.description) }
    }

    /// The checkpoints of `/audit/checkpoints`, plus the latest one from `/audit/checkpoint`
    /// (asked first, so that the log covers every size listed).
    public func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] {
        do {
            let latestPath = "audit/checkpoint"
            let latest = try await client.successfulExchange(.GET, latestPath, accept: "text/plain").text
            var notes = try await checkpoints()
            if !notes.contains(where: { $0.note == latest }) {
                // Filed under the size it states; the verifier parses and checks it like the others.
                let size = (try? SignedCheckpoint(text: latest))?.checkpoint.treeSize ?? -1
                notes.append(AuditCheckpointNote(treeSize: size, note: latest))
            }
            return notes
        } catch {
            throw AuditLogSourceError(error.description)
        }
    }

    public func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage {
        do { return try await entries(from: from, count: min(max(1, count), Self.maximumPageSize)) } catch { throw AuditLogSourceError(error.description) }
    }

    public func readConsistencyProof(from: Int, to: Int) async throws(AuditLogSourceError) -> [MerkleHash]? {
        do { return try await consistencyProof(from: from, to: to) } catch { throw AuditLogSourceError(error.description) }
    }
}
