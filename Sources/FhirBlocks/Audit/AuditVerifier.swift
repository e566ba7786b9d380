/// Re-checks a whole audit log from any ``AuditLogSource`` (§4.2):
///
/// 1. every entry's bytes the source releases are a canonical `AuditEntry`
///    (`AuditEntry(canonicalBytes:)`) and hash (`MerkleHash.leaf`) to the leaf hash stored
///    beside them (a server releases only the entries the reader may see; the others are
///    checked through their leaf hashes alone, counted in
///    ``AuditVerificationReport/entriesWithheld``);
/// 2. every checkpoint parses and carries a valid signature by the log's key (the pinned key,
///    when one is given); a checkpoint that does not verify proves nothing and is reported;
/// 3. for every validly signed checkpoint, the root of the first `treeSize` stored leaves
///    (`MerkleTree.rootHash`) equals the checkpoint's root: an entry rewritten together with
///    its stored leaf hash shows up as the range between the last matching checkpoint and the
///    first mismatching one;
/// 4. consecutive signed checkpoints are consistent, and no two checkpoints of one size name
///    different roots. Two checkpoints whose roots both match the stored leaves are consistent
///    by construction (and one that does not match is reported in step 3); for a pair where a
///    checkpoint lies beyond the entries served, the source's consistency proof (if it serves
///    proofs) must verify with `MerkleTree.verifyConsistency`;
/// 5. the log serves every entry it reports and every entry a checkpoint covers.
///
/// With ``previousCheckpoint`` (the latest one an earlier run verified), the latest signed
/// checkpoint must extend it: not smaller (``AuditProblem/rolledBack(previousSize:latestSize:)``),
/// the same root at the same size, and, when larger, the source's consistency proof between the
/// two must verify and the served leaves must still give the earlier root
/// (``AuditProblem/forkedFromPrevious(previousSize:latestSize:)``). With ``witnessKeys``, some
/// validly signed checkpoint must carry a valid `cosignature/v1` by each witness
/// (``AuditProblem/missingCosignature(witness:)``).
///
/// Checkpoints are read before entries, so a log that grows meanwhile is not taken for a
/// truncated one. Read failures throw ``AuditLogSourceError``; findings go in the report.
public struct AuditVerifier: Sendable {
    /// Entries read per call (1–1000).
    public var pageSize: Int
    /// A key the log must be signed with (from a previous run or out of band); nil trusts the
    /// source's key.
    public var pinnedKey: CsiPublicKey?

    /// The latest checkpoint an earlier verification of this log accepted, which the log's
    /// latest checkpoint must extend; nil for none.
    public var previousCheckpoint: Checkpoint?
    /// Witnesses (Ed25519 cosignature keys, type 0x04) of which each must have cosigned a
    /// validly signed checkpoint.
    public var witnessKeys: [NoteVerifierKey]

    /// Creates a verifier.
    /// - Parameters:
    ///   - pageSize: entries read per call (clamped to 1–1000).
    ///   - pinnedKey: a key the log must be signed with; nil trusts the source's key.
    ///   - previousCheckpoint: the checkpoint an earlier run accepted, which the latest must extend.
    ///   - witnessKeys: witnesses whose cosignature is required.
    public init(pageSize: Int = 1000, pinnedKey: CsiPublicKey? = nil, previousCheckpoint: Checkpoint? = nil, witnessKeys: [NoteVerifierKey] = []) {
        self.pageSize = min(max(1, pageSize), 1000)
        self.pinnedKey = pinnedKey
        self.previousCheckpoint = previousCheckpoint
        self.witnessKeys = witnessKeys
    }

    /// Verifies the log `source` serves.
    public func verify(_ source: some AuditLogSource) async throws(AuditLogSourceError) -> AuditVerificationReport {
        var problems: [AuditProblem] = []

        // Key and checkpoints first.
        let logKey = try await source.readKey()
        var publicKey = logKey.publicKey
        if let pinnedKey, pinnedKey != logKey.publicKey {
            problems.append(.unexpectedKey)
            publicKey = pinnedKey
        }
        let notes = try await source.readCheckpoints()

        // Entries.
        let (records, treeSize, readProblems) = try await readAll(source)
        problems += readProblems
        var leaves: [MerkleHash] = []
        leaves.reserveCapacity(records.count)
        var withheld = 0
        for record in records {
            leaves.append(record.leafHash)
            guard let bytes = record.entry else {
                withheld += 1
                continue
            }
            if MerkleHash.leaf(bytes) != record.leafHash { problems.append(.leafHashMismatch(index: record.index)) }
            do {
                _ = try AuditEntry(canonicalBytes: bytes)
            } catch {
                problems.append(.entryNotCanonical(index: record.index, reason: error))
            }
        }

        // Checkpoints: parse, check the signature, keep the valid ones.
        var valid: [Checkpoint] = []
        var cosigned: [String: Int] = [:]
        for note in notes {
            let signed: SignedCheckpoint
            do {
                signed = try SignedCheckpoint(text: note.note)
            } catch {
                problems.append(.checkpointUnreadable(declaredSize: note.treeSize, reason: error))
                continue
            }
            let stated = signed.checkpoint.treeSize
            guard (try? signed.verify(keyName: logKey.keyName, publicKey: publicKey)) != nil else {
                problems.append(.checkpointSignatureInvalid(treeSize: stated))
                continue
            }
            if note.treeSize != stated { problems.append(.checkpointSizeMismatch(declaredSize: note.treeSize, statedSize: stated)) }
            for witness in witnessKeys where (try? signed.cosignatureTime(by: witness)) != nil {
                cosigned[witness.name] = max(cosigned[witness.name] ?? 0, stated)
            }
            if let twin = valid.first(where: { $0.treeSize == stated }) {
                if twin.rootHash != signed.checkpoint.rootHash, !problems.contains(.forkedCheckpoints(treeSize: stated)) {
                    problems.append(.forkedCheckpoints(treeSize: stated))
                }
                continue
            }
            valid.append(signed.checkpoint)
        }
        valid.sort { $0.treeSize < $1.treeSize }
        if valid.isEmpty, treeSize > 0 { problems.append(.noValidCheckpoint) }

        // Roots of the stored leaves against each checkpoint.
        var lastMatching = 0
        var compared: Set<Int> = []
        var truncationReported = problems.contains { if case .truncated = $0 { true } else { false } }
        for checkpoint in valid {
            guard checkpoint.treeSize <= leaves.count else {
                if !truncationReported {
                    problems.append(.truncated(present: leaves.count, expected: checkpoint.treeSize))
                    truncationReported = true
                }
                continue
            }
            compared.insert(checkpoint.treeSize)
            if MerkleTree.rootHash(leaves: leaves[0..<checkpoint.treeSize]) == checkpoint.rootHash {
                lastMatching = checkpoint.treeSize
            } else {
                problems.append(.rewrittenRange(from: lastMatching, to: checkpoint.treeSize))
            }
        }

        // Consistency of consecutive checkpoints that the entries could not settle, by the source's proofs.
        for (old, new) in zip(valid, valid.dropFirst()) where old.treeSize > 0 && !(compared.contains(old.treeSize) && compared.contains(new.treeSize)) {
            guard let proof = try await source.readConsistencyProof(from: old.treeSize, to: new.treeSize) else { continue }
            do {
                try MerkleTree.verifyConsistency(oldSize: old.treeSize, newSize: new.treeSize, oldRoot: old.rootHash,
                                                 newRoot: new.rootHash, proof: proof)
            } catch {
                problems.append(.inconsistentCheckpoints(from: old.treeSize, to: new.treeSize))
            }
        }

        if let previousCheckpoint, let latest = valid.last {
            problems += try await compare(latest, with: previousCheckpoint, leaves: leaves, source: source)
        }
        for witness in witnessKeys where cosigned[witness.name] == nil { problems.append(.missingCosignature(witness: witness.name)) }

        return AuditVerificationReport(treeSize: treeSize, entriesChecked: records.count,
                                       verifiedCheckpointSizes: valid.map(\.treeSize), latestCheckpoint: valid.last,
                                       problems: problems, entriesWithheld: withheld, cosignedSizes: cosigned)
    }

    /// Whether `latest` extends `previous`: not smaller, the same root at the same size, the
    /// source's consistency proof between them (when it serves proofs) and the served leaves'
    /// root at the earlier size.
    private func compare(_ latest: Checkpoint, with previous: Checkpoint, leaves: [MerkleHash],
                         source: some AuditLogSource) async throws(AuditLogSourceError) -> [AuditProblem] {
        let forked = AuditProblem.forkedFromPrevious(previousSize: previous.treeSize, latestSize: latest.treeSize)
        guard latest.treeSize >= previous.treeSize else { return [.rolledBack(previousSize: previous.treeSize, latestSize: latest.treeSize)] }
        if latest.treeSize == previous.treeSize { return latest.rootHash == previous.rootHash ? [] : [forked] }
        guard previous.treeSize > 0 else { return [] }
        if previous.treeSize <= leaves.count, MerkleTree.rootHash(leaves: leaves[0..<previous.treeSize]) != previous.rootHash { return [forked] }
        guard let proof = try await source.readConsistencyProof(from: previous.treeSize, to: latest.treeSize) else { return [] }
        do {
            try MerkleTree.verifyConsistency(oldSize: previous.treeSize, newSize: latest.treeSize, oldRoot: previous.rootHash,
                                             newRoot: latest.rootHash, proof: proof)
            return []
        } catch {
            return [forked]
        }
    }

    /// Reads entries `0..<treeSize` page by page, where `treeSize` is what the first page
    /// reports. Stops at a gap or a misnumbered entry.
    private func readAll(_ source: some AuditLogSource) async throws(AuditLogSourceError) -> ([AuditLogRecord], Int, [AuditProblem]) {
        var records: [AuditLogRecord] = []
        var problems: [AuditProblem] = []
        let first = try await source.readEntries(from: 0, count: pageSize)
        let treeSize = max(0, first.treeSize)
        var page = first
        reading: while true {
            for record in page.records where records.count < treeSize {
                guard record.index == records.count else {
                    problems.append(.misnumberedEntry(expected: records.count, found: record.index))
                    break reading
                }
                records.append(record)
            }
            guard records.count < treeSize, !page.records.isEmpty else { break }
            page = try await source.readEntries(from: records.count, count: min(pageSize, treeSize - records.count))
        }
        if records.count < treeSize, problems.isEmpty {
            problems.append(.truncated(present: records.count, expected: treeSize))
        }
        return (records, treeSize, problems)
    }
}
