import FhirBlocks
import Synchronization

/// Verifies an audit log again and again (a page a person reloads) at a cost that grows with
/// what was appended since the last visit, not with the whole log.
///
/// It remembers the last checkpoint it verified (its size, root, the log's key and the right
/// edge of the tree, a `MerkleFrontier` of O(log n) hashes). Each call:
///
/// 1. reads the log's key, which must be the one remembered (or `pinnedKey`);
/// 2. reads the latest checkpoint and checks its signature;
/// 3. proves it consistent with the remembered one (the source's consistency proof, checked
///    with `MerkleTree.verifyConsistency`; a smaller or different checkpoint of the same size
///    is a rolled-back or forked log);
/// 4. reads only the entries from the remembered size on: each served entry's bytes must be a
///    canonical `AuditEntry` hashing to its stored leaf hash, and the remembered frontier with
///    the new leaves appended must give the latest checkpoint's root;
/// 5. remembers the latest checkpoint when nothing was found.
///
/// The first call starts from the empty tree, so it reads every entry once. Entries before the
/// remembered checkpoint are not read again: a change to one of them after it was verified is
/// found by a full check (`AuditVerifier`, `health audit verify`), which also compares every
/// earlier checkpoint. A finding leaves the remembered checkpoint where it was.
public final class IncrementalAuditVerifier: Sendable {
    /// What was verified last.
    private struct Verified: Sendable {
        var key: AuditLogKey
        var checkpoint: Checkpoint
        var frontier: MerkleFrontier
    }

    /// Entries read per call (1–1000).
    public let pageSize: Int
    /// A key the log must be signed with; nil trusts the key the first call reads.
    public let pinnedKey: CsiPublicKey?
    private let state = Mutex<Verified?>(nil)

    /// Creates a verifier that has verified nothing yet.
    /// - Parameters:
    ///   - pageSize: entries read per call (clamped to 1–1000).
    ///   - pinnedKey: a key the log must be signed with; nil trusts the key the first call reads.
    public init(pageSize: Int = 1000, pinnedKey: CsiPublicKey? = nil) {
        self.pageSize = min(max(1, pageSize), 1000)
        self.pinnedKey = pinnedKey
    }

    /// The last checkpoint verified, if any.
    public var verifiedCheckpoint: Checkpoint? { state.withLock { $0?.checkpoint } }

    /// Verifies what `source` appended since the last verified checkpoint (everything, the first
    /// time). `entriesChecked` in the report counts the entries covered: those verified earlier
    /// and those read now.
    public func verify(_ source: some AuditLogSource) async throws(AuditLogSourceError) -> AuditVerificationReport {
        let previous = state.withLock { $0 }
        var problems: [AuditProblem] = []

        let logKey = try await source.readKey()
        var key = previous?.key ?? logKey
        if let pinnedKey { key.publicKey = pinnedKey }
        if logKey.publicKey != key.publicKey { problems.append(.unexpectedKey) }
        let oldSize = previous?.checkpoint.treeSize ?? 0
        var frontier = previous?.frontier ?? MerkleFrontier()

        // The latest checkpoint, signed by the key.
        guard let note = try await latestNote(source) else {
            let page = try await source.readEntries(from: 0, count: 1)
            if page.treeSize > 0 { problems.append(.noValidCheckpoint) }
            // A log that had a verified checkpoint and now has none is not an extension of it.
            if let previous { problems.append(.truncated(present: max(0, page.treeSize), expected: previous.checkpoint.treeSize)) }
            return report(treeSize: max(0, page.treeSize), checked: 0, latest: previous?.checkpoint, problems: problems)
        }
        guard let signed = try? SignedCheckpoint(text: note.note),
              (try? signed.verify(keyName: key.keyName, publicKey: key.publicKey)) != nil else {
            problems.append(.checkpointSignatureInvalid(treeSize: note.treeSize))
            return report(treeSize: note.treeSize, checked: oldSize, latest: previous?.checkpoint, problems: problems)
        }
        let latest = signed.checkpoint
        if let previous {
            if latest.treeSize < oldSize {
                problems.append(.truncated(present: latest.treeSize, expected: oldSize))
            } else if latest.treeSize == oldSize, latest.rootHash != previous.checkpoint.rootHash {
                problems.append(.forkedCheckpoints(treeSize: oldSize))
            } else if latest.treeSize > oldSize, oldSize > 0,
                      let proof = try await source.readConsistencyProof(from: oldSize, to: latest.treeSize) {
                do {
                    try MerkleTree.verifyConsistency(oldSize: oldSize, newSize: latest.treeSize, oldRoot: previous.checkpoint.rootHash,
                                                     newRoot: latest.rootHash, proof: proof)
                } catch {
                    problems.append(.inconsistentCheckpoints(from: oldSize, to: latest.treeSize))
                }
            }
            if !problems.isEmpty {
                return report(treeSize: latest.treeSize, checked: oldSize, latest: previous.checkpoint, problems: problems)
            }
        }

        // The entries from the remembered size on.
        var next = oldSize
        var treeSize = latest.treeSize
        var firstPage = true
        var withheld = 0
        var frontierAtLatest: MerkleFrontier? = latest.treeSize == oldSize ? frontier : nil
        reading: while firstPage || next < treeSize {
            let page = try await source.readEntries(from: next, count: pageSize)
            if firstPage {
                treeSize = max(treeSize, page.treeSize)
                firstPage = false
            }
            guard !page.records.isEmpty else { break }
            for record in page.records where next < treeSize {
                guard record.index == next else {
                    problems.append(.misnumberedEntry(expected: next, found: record.index))
                    break reading
                }
                if let bytes = record.entry {
                    if MerkleHash.leaf(bytes) != record.leafHash { problems.append(.leafHashMismatch(index: next)) }
                    do {
                        _ = try AuditEntry(canonicalBytes: bytes)
                    } catch {
                        problems.append(.entryNotCanonical(index: next, reason: error))
                    }
                } else {
                    withheld += 1
                }
                if next < latest.treeSize {
                    frontier.append(record.leafHash)
                    if frontier.size == latest.treeSize {
                        if frontier.rootHash != latest.rootHash { problems.append(.rewrittenRange(from: oldSize, to: latest.treeSize)) }
                        frontierAtLatest = frontier
                    }
                }
                next += 1
            }
        }
        if next < treeSize, !problems.contains(where: { if case .misnumberedEntry = $0 { true } else { false } }) {
            problems.append(.truncated(present: next, expected: treeSize))
        }

        if problems.isEmpty, let frontierAtLatest {
            let verified = Verified(key: key, checkpoint: latest, frontier: frontierAtLatest)
            state.withLock { current in
                if (current?.checkpoint.treeSize ?? -1) <= latest.treeSize { current = verified }
            }
        }
        return report(treeSize: treeSize, checked: next, latest: latest, problems: problems, withheld: withheld)
    }

    /// Forgets the verified checkpoint: the next call reads every entry again.
    public func reset() {
        state.withLock { $0 = nil }
    }

    /// The source's checkpoint with the largest size (for an `AuditClient`, `/audit/checkpoint`
    /// alone, not the list of every checkpoint).
    private func latestNote(_ source: some AuditLogSource) async throws(AuditLogSourceError) -> AuditCheckpointNote? {
        if let client = source as? AuditClient {
            do {
                let text = try await client.client.successfulExchange(.GET, "audit/checkpoint", accept: "text/plain").text
                return AuditCheckpointNote(treeSize: (try? SignedCheckpoint(text: text))?.checkpoint.treeSize ?? -1, note: text)
            } catch {
                throw AuditLogSourceError(error.description)
            }
        }
        return try await source.readCheckpoints().max { $0.treeSize < $1.treeSize }
    }

    private func report(treeSize: Int, checked: Int, latest: Checkpoint?, problems: [AuditProblem], withheld: Int = 0) -> AuditVerificationReport {
        AuditVerificationReport(treeSize: treeSize, entriesChecked: checked, verifiedCheckpointSizes: latest.map { [$0.treeSize] } ?? [],
                                latestCheckpoint: latest, problems: problems, entriesWithheld: withheld)
    }
}
