import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// The audit log over HTTP (§4.2): signed checkpoints, entries, inclusion and consistency
/// proofs, and the FhirBlocks `audit/validate` call. Everything that proves the log is public;
/// an entry's content is released only to the readers ``AuditReader`` allows (the patient it
/// concerns, the agent that acted, auditors).
extension TrustService {
    /// The checkpoint origin line: this log's URL.
    var checkpointOrigin: String { "\(baseURL)/audit" }

    /// Appends `entry` to the audit log and returns its index once it is durable. The entry
    /// joins the next group commit, exactly as a protected read's entry does (its canonical bytes
    /// and leaf hash are computed here, on the caller's task); a storage failure is
    /// `server_error` and nothing of the entry's group was stored.
    public func appendAuditEntry(_ entry: AuditEntry) async throws(SMOACError) -> Int {
        var change = TrustChange()
        change.auditEntries = [PendingAuditEntry(entry: entry)]
        guard let index = try await commit(change).first else { throw .storageFailure("the audit entry could not be stored") }
        return index
    }

    /// Signs and stores a checkpoint of the current tree if `checkpointEvery` entries were
    /// appended since the last one (or `force` and the tree grew): ``AuditLog/checkpointIfDue(origin:force:sync:)``.
    @discardableResult
    func checkpointIfDue(force: Bool = false, sync: Bool = true) async -> StoredCheckpoint? {
        await auditLog.checkpointIfDue(origin: checkpointOrigin, force: force, sync: sync)
    }

    /// `GET /audit/checkpoint`: a checkpoint signed now if the log grew, then the latest one as its note.
    func latestCheckpoint() async -> ServiceResponse {
        await checkpointIfDue(force: true)
        guard let latest = try? await store.checkpoints().last else {
            return .error(.unknownTarget("the log is empty"))
        }
        return .text(latest.note)
    }

    /// `GET /audit/checkpoints`: every stored checkpoint, oldest first.
    func allCheckpoints() async -> ServiceResponse {
        guard let all = try? await store.checkpoints() else { return .error(.storageFailure("storage failure")) }
        return .json(.object(JSONObject(members: [JSONMember(key: "checkpoints", value: .array(all.map { checkpoint in
            .object(JSONObject(members: [JSONMember(key: "treeSize", value: .number(String(checkpoint.treeSize))),
                                         JSONMember(key: "note", value: .string(checkpoint.note))]))
        }))])))
    }

    /// `GET /audit/key`: the checkpoint key's name, the log's origin and its public key.
    func auditKeyDocument() -> ServiceResponse {
        var object = JSONObject()
        object.append("keyName", configuration.checkpointKeyName)
        object.append("origin", checkpointOrigin)
        object.append("publicKey", auditKey.publicKey.spkiBase64)
        object.append("jwk", auditKey.publicKey.jwk())
        return .json(.object(object))
    }

    func leaves() async -> [MerkleHash]? {
        await auditLog.leaves()
    }

    /// Who reads: anonymous without an `Authorization` header; nil when a bearer token is
    /// presented but is not active.
    func auditReader(_ authentication: BearerAuthentication) -> AuditReader? {
        switch authentication {
        case .none: .anonymous
        case .inactive: nil
        case .active(let access): auditReader(access)
        }
    }

    /// The reader a token stands for: an auditor (a listed client with the auditor scope), a
    /// wallet over its own data, or a client reading about its own actions.
    func auditReader(_ access: BearerAccess) -> AuditReader {
        let client = access.token.client
        if configuration.auditors.contains(client), access.grants.contains(where: { $0.isSubset(of: .auditor) }) { return .auditor }
        if isOwnerToken(access) { return .patient(client) }
        return .agent(client)
    }

    /// `GET /audit/entries` for the reader `authentication` stands for (``auditReader(_:)``).
    func entries(_ request: ServiceRequest, authentication: BearerAuthentication) async -> ServiceResponse {
        let from = Int(request.query["from"] ?? "0") ?? -1
        let count = Int(request.query["count"] ?? "100") ?? -1
        guard from >= 0, (1...1000).contains(count) else { return .error(.malformedRequest("from ≥ 0 and 1 ≤ count ≤ 1000")) }
        guard let reader = auditReader(authentication) else {
            return .error(.invalidClient("the bearer token is not active; send none to read leaf hashes only"))
        }
        guard let records = try? await store.auditRecords(from: from, limit: count), let size = try? await store.auditCount() else {
            return .error(.storageFailure("storage failure"))
        }
        var object = JSONObject()
        object.append("treeSize", .number(String(size)))
        object.append("entries", .array(records.map { record in
            var members = [JSONMember(key: "index", value: .number(String(record.index))),
                           JSONMember(key: "leafHash", value: .string(record.leafHash.hex))]
            // An auditor gets the stored bytes whatever they hold (a damaged entry included).
            let released = reader == .auditor
                || (try? AuditEntry(canonicalBytes: record.canonicalBytes)).map(reader.maySee) == true
            if released { members.append(JSONMember(key: "entry", value: .string(Base64URL.encodeStandard(record.canonicalBytes)))) }
            return .object(JSONObject(members: members))
        }))
        return .json(.object(object))
    }

    func inclusionProof(_ request: ServiceRequest) async -> ServiceResponse {
        guard let leaves = await leaves() else { return .error(.storageFailure("storage failure")) }
        guard let index = request.query["index"].flatMap({ Int($0) }) else { return .error(.malformedRequest("\"index\" is required")) }
        let size = request.query["size"].flatMap { Int($0) } ?? leaves.count
        guard size >= 1, size <= leaves.count, index >= 0, index < size else { return .error(.unknownTarget("no such index in a tree of that size")) }
        let prefix = Array(leaves[..<size])
        guard let proof = try? MerkleTree.inclusionProof(index: index, leaves: prefix) else { return .error(.unknownTarget("no such index")) }
        var object = JSONObject()
        object.append("leafIndex", .number(String(index)))
        object.append("treeSize", .number(String(size)))
        object.append("leafHash", prefix[index].hex)
        object.append("rootHash", MerkleTree.rootHash(leaves: prefix).hex)
        object.append("hashes", strings: proof.map(\.hex))
        return .json(.object(object))
    }

    func consistencyProof(_ request: ServiceRequest) async -> ServiceResponse {
        guard let leaves = await leaves() else { return .error(.storageFailure("storage failure")) }
        guard let from = request.query["from"].flatMap({ Int($0) }), let to = request.query["to"].flatMap({ Int($0) }) else {
            return .error(.malformedRequest("\"from\" and \"to\" are required"))
        }
        guard from >= 0, from <= to, to <= leaves.count else { return .error(.unknownTarget("no such tree sizes")) }
        let prefix = Array(leaves[..<to])
        guard let proof = try? MerkleTree.consistencyProof(oldSize: from, leaves: prefix) else { return .error(.unknownTarget("no such tree sizes")) }
        var object = JSONObject()
        object.append("from", .number(String(from)))
        object.append("to", .number(String(to)))
        object.append("hashes", strings: proof.map(\.hex))
        return .json(.object(object))
    }

    /// `POST /audit/validate` `{"csiGuid","signature"}`: whether a signed request with that
    /// signature from that csi is in the log, with its inclusion proof and a checkpoint.
    func validate(_ request: ServiceRequest) async -> ServiceResponse {
        guard case .object(let object)? = try? JSONParser.parse(request.body, maximumDepth: 4),
              let csiText = object["csiGuid"]?.stringValue, let csi = CsiGuid(csiText), let signature = object["signature"]?.stringValue else {
            return .error(.malformedRequest("the body must be {\"csiGuid\", \"signature\"}"))
        }
        guard let records = try? await store.auditRecords(signatureDigest: Self.signatureDigest(signature)) else {
            return .error(.storageFailure("storage failure"))
        }
        let match = records.first { record in (try? AuditEntry(canonicalBytes: record.canonicalBytes))?.agent == csi.rawValue }
        var answer = JSONObject()
        answer.append("valid", .bool(match != nil))
        if let match {
            let checkpoint = await checkpointIfDue(force: true)
            let latest = (try? await store.checkpoints().last) ?? checkpoint
            if let latest, let leaves = await leaves(), latest.treeSize <= leaves.count,
               let proof = try? MerkleTree.inclusionProof(index: match.index, leaves: Array(leaves[..<latest.treeSize])) {
                answer.append("leafIndex", .number(String(match.index)))
                answer.append("inclusionProof", strings: proof.map(\.hex))
                answer.append("checkpoint", latest.note)
            }
        }
        return .json(.object(answer))
    }
}
