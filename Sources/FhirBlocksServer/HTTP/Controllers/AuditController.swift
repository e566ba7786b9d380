import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksStore
import Hummingbird

/// The audit log's routes (§4.2) under `/audit`: `GET checkpoint` (a C2SP `tlog-checkpoint`
/// signed note, with the P-256 and Ed25519 signatures and any witnesses' cosignatures),
/// `checkpoints`, `key`, `tile/<L>/<N>[.p/<W>]` (C2SP `tlog-tiles`: hash tiles only; entries
/// are not published as bundles), `entries` (released to the reader the bearer token authenticated by ``BearerAuthenticationMiddleware`` stands for),
/// `proof/inclusion`, `proof/consistency`; and `POST audit/validate`, at the root and under
/// `/smoac` (``validateRoutes``), with their handlers. Everything that proves the log is
/// public; an entry's content is released only to the readers ``AuditReader`` allows (the
/// patient it concerns, the agent that acted, auditors). Given the ledger (who a token stands
/// for), the committer with the audit log (leaves, checkpoints) and the log's signing key.
struct AuditController: TrustEndpoints {
    /// The audit log and checkpoints the handlers read.
    let store: any AuditStore
    let trustLedger: TrustLedger
    let committer: ChangeCommitter
    /// The audit log's signing key (its public half is published at `GET /audit/key`).
    let auditKey: CsiSigningKey

    init(store: any AuditStore, trustLedger: TrustLedger, committer: ChangeCommitter, auditKey: CsiSigningKey) {
        self.store = store
        self.trustLedger = trustLedger
        self.committer = committer
        self.auditKey = auditKey
    }

    /// The controller over `service`'s components.
    init(service: TrustService) {
        self.init(store: service.store, trustLedger: service.trustLedger, committer: service.committer, auditKey: service.auditKey)
    }

    /// The log's routes, to add at `/audit`.
    var routes: RouteCollection<FhirBlocksRequestContext> {
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        routes.get("checkpoint") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in await latestCheckpoint() }
        }
        routes.get("checkpoints") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in await allCheckpoints() }
        }
        routes.get("tile/**") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await tile($0) }
        }
        routes.get("key") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { _ in keyDocument() }
        }
        // Entries are released to the reader the bearer token stands for (anonymous without one).
        routes.group().add(middleware: BearerAuthenticationMiddleware(ledger: trustLedger, policy: .optional)).get("entries") { request, context in
            let authentication = context.authentication
            return try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await entries($0, authentication: authentication) }
        }
        routes.get("proof/inclusion") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await inclusionProof($0) }
        }
        routes.get("proof/consistency") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 0) { await consistencyProof($0) }
        }
        return routes
    }

    /// `POST audit/validate`, to add at `/` and at `/smoac`.
    var validateRoutes: RouteCollection<FhirBlocksRequestContext> {
        let routes = RouteCollection(context: FhirBlocksRequestContext.self)
        routes.post("audit/validate") { request, context in
            try await FhirBlocksRouter.handle(request, context: context, limit: 64 * 1024) { await validate($0) }
        }
        return routes
    }

    // MARK: Handlers

    /// `GET /audit/checkpoint`: a checkpoint signed now if the log grew (so that `health audit
    /// witness` has it to send), then, as the C2SP `tlog-witness` log does, the checkpoint that
    /// witnesses cosigned: the newest one carrying a cosignature when there is one at least as
    /// large as every checkpoint served before, else the latest one (``servedCheckpoint()``).
    /// Its note, not to be cached (C2SP `tlog-tiles`). Cosignatures belong to one checkpoint,
    /// so a log serving each newer one would serve none once it grew past the witnessed size;
    /// `GET /audit/checkpoints` lists every checkpoint, the newest last.
    func latestCheckpoint() async -> ServiceResponse {
        let served: StoredCheckpoint?
        do {
            served = try await servedCheckpoint()
        } catch {
            return .error(.storageFailure("storage failure"))
        }
        guard let latest = served else { return .error(.unknownTarget("the log is empty")) }
        var response = ServiceResponse.text(latest.note)
        response.headers.append(("Cache-Control", "no-cache"))
        return response
    }

    /// Signs a checkpoint if the log grew, then picks the one to serve: the newest cosigned one
    /// (``AuditStore/latestCosignedCheckpoint()``, one row) when it is at least as large as the
    /// largest served before, else the latest (``AuditStore/latestCheckpoint()``, one row); nil
    /// when the log has none. A client never sees the served tree shrink: a witness that read
    /// checkpoint M while a request served a newer N stores its cosignature on M, which is then
    /// not served (the next witnessing cosigns one at least as large as N). The largest served
    /// size starts, after the server starts, at the latest stored checkpoint's (any of them may
    /// have been served before).
    func servedCheckpoint() async throws(TrustStoreError) -> StoredCheckpoint? {
        let floor = committer.auditLog.largestServedSize.withLock { $0 }
        let startingFloor = floor == nil ? try await store.latestCheckpoint()?.treeSize ?? 0 : 0
        await committer.checkpointIfDue(force: true)
        guard let latest = try await store.latestCheckpoint() else { return nil }
        let cosigned = try await store.latestCosignedCheckpoint()
        return committer.auditLog.largestServedSize.withLock { largest in
            let served = largest ?? startingFloor
            let pick = cosigned.flatMap { $0.treeSize >= served && $0.treeSize <= latest.treeSize ? $0 : nil } ?? latest
            largest = max(served, pick.treeSize)
            return pick
        }
    }

    /// `GET /audit/tile/<L>/<N>[.p/<W>]`: the tile's hashes, concatenated (32 bytes each), cached
    /// for good: a tile's content never changes. 404 for a tile the log does not hold yet, for
    /// a non-canonical path, and for entry bundles (`tile/entries/…`): entries are released only
    /// to their readers (`GET /audit/entries`), never published.
    func tile(_ request: ServiceRequest) async -> ServiceResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard let marker = parts.lastIndex(of: "tile") else { return .error(.unknownTarget("no such tile")) }
        let rest = parts[(marker + 1)...].joined(separator: "/")
        if rest.hasPrefix("entries/") || rest == "entries" {
            return .error(.unknownTarget("entry bundles are not published: entries are private (GET /audit/entries releases them to their readers)"))
        }
        guard let path = TilePath(path: rest) else { return .error(.unknownTarget("not a tile path: <L>/<N>[.p/<W>]")) }
        let answer: [MerkleHash]?? = await committer.auditLog.readTree { $0.hashes(of: path) }
        guard let answer else { return .error(.storageFailure("storage failure")) }
        guard let hashes = answer else { return .error(.unknownTarget("the log holds no such tile yet")) }
        return ServiceResponse(contentType: "application/octet-stream", headers: [("Cache-Control", "public, max-age=31536000, immutable")],
                               body: hashes.flatMap(\.bytes))
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
    func keyDocument() -> ServiceResponse {
        var object = JSONObject()
        object.append("keyName", configuration.checkpointKeyName)
        object.append("origin", committer.checkpointOrigin)
        object.append("publicKey", auditKey.publicKey.spkiBase64)
        object.append("jwk", auditKey.publicKey.jwk())
        // The Ed25519 key of the checkpoints' second signature line, as a signed-note verifier key.
        if let noteKey = AuditLog.noteKey(origin: committer.checkpointOrigin, keyName: configuration.checkpointKeyName, auditKey: auditKey) {
            object.append("noteVerifierKey", noteKey.verifierKey.text)
        }
        return .json(.object(object))
    }

    /// `GET /audit/entries` for the reader `authentication` stands for (`TrustLedger.auditReader`).
    func entries(_ request: ServiceRequest, authentication: BearerAuthentication) async -> ServiceResponse {
        let from = Int(request.query["from"] ?? "0") ?? -1
        let count = Int(request.query["count"] ?? "100") ?? -1
        guard from >= 0, (1...1000).contains(count) else { return .error(.malformedRequest("from ≥ 0 and 1 ≤ count ≤ 1000")) }
        guard let reader = trustLedger.auditReader(authentication) else {
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

    /// `GET /audit/proof/inclusion?index=I[&size=N]`.
    func inclusionProof(_ request: ServiceRequest) async -> ServiceResponse {
        guard let index = request.query["index"].flatMap({ Int($0) }) else { return .error(.malformedRequest("\"index\" is required")) }
        let requestedSize = request.query["size"].flatMap { Int($0) }
        typealias Proof = (size: Int, leaf: MerkleHash, root: MerkleHash, hashes: [MerkleHash])
        let answer: Proof?? = await committer.auditLog.readTree { tree -> Proof? in
            let size = requestedSize ?? tree.count
            guard size >= 1, index >= 0, index < size, let hashes = try? tree.inclusionProof(index: index, treeSize: size),
                  let root = try? tree.rootHash(treeSize: size) else { return nil }
            return (size, tree.leaves[index], root, hashes)
        }
        guard let answer else { return .error(.storageFailure("storage failure")) }
        guard let proof = answer else { return .error(.unknownTarget("no such index in a tree of that size")) }
        var object = JSONObject()
        object.append("leafIndex", .number(String(index)))
        object.append("treeSize", .number(String(proof.size)))
        object.append("leafHash", proof.leaf.hex)
        object.append("rootHash", proof.root.hex)
        object.append("hashes", strings: proof.hashes.map(\.hex))
        return .json(.object(object))
    }

    /// `GET /audit/proof/consistency?from=M&to=N`.
    func consistencyProof(_ request: ServiceRequest) async -> ServiceResponse {
        guard let from = request.query["from"].flatMap({ Int($0) }), let to = request.query["to"].flatMap({ Int($0) }) else {
            return .error(.malformedRequest("\"from\" and \"to\" are required"))
        }
        let answer: [MerkleHash]?? = await committer.auditLog.readTree { tree in try? tree.consistencyProof(oldSize: from, newSize: to) }
        guard let answer else { return .error(.storageFailure("storage failure")) }
        guard let proof = answer else { return .error(.unknownTarget("no such tree sizes")) }
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
            let checkpoint = await committer.checkpointIfDue(force: true)
            let latest = (try? await store.latestCheckpoint()) ?? checkpoint
            if let latest,
               let proof = await committer.auditLog.readTree({ try? $0.inclusionProof(index: match.index, treeSize: latest.treeSize) }) ?? nil {
                answer.append("leafIndex", .number(String(match.index)))
                answer.append("inclusionProof", strings: proof.map(\.hex))
                answer.append("checkpoint", latest.note)
            }
        }
        return .json(.object(answer))
    }
}
