import ExactJSON
import FhirBlocks
import FhirBlocksClient
import Synchronization
import Testing

/// A log served from memory, with consistency proofs computed from the leaves it serves.
private struct ProvingLog: AuditLogSource {
    static let keyName = "fhirblocks.test/audit"
    let signingKey: CsiSigningKey
    var entries: [AuditEntry] = []
    var records: [AuditLogRecord] = []
    var checkpoints: [AuditCheckpointNote] = []
    /// Consistency proofs read, as (from, to).
    let proofsRead = ProofCounter()

    init(key: CsiSigningKey = .generate()) {
        signingKey = key
    }

    /// Appends `count` entries and signs a checkpoint at the new size.
    mutating func append(_ count: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let patient = CsiGuid.random(using: &generator).rawValue
        for _ in 0..<count {
            let index = entries.count
            let entry = AuditEntry(type: .fhirAccess, recorded: Timestamp(secondsSince1970: 1_800_000_000 + Int64(index)),
                                   agent: CsiGuid.random(using: &generator).rawValue, patient: patient, resources: ["Observation/\(index)"])
            entries.append(entry)
            records.append(AuditLogRecord(index: index, entry: entry))
        }
        let size = entries.count
        let checkpoint = Checkpoint(origin: Self.keyName, treeSize: size, rootHash: MerkleTree.rootHash(leaves: entries.map(\.leafHash)),
                                    timestamp: Timestamp(secondsSince1970: 1_800_000_100 + Int64(size)))
        checkpoints.append(AuditCheckpointNote(treeSize: size, note: try SignedCheckpoint.sign(checkpoint, keyName: Self.keyName, key: signingKey).text))
    }

    /// Entry `index` rewritten (another agent) together with its stored leaf hash, so only a
    /// root comparison can tell.
    mutating func rewriteWithLeaf(_ index: Int) {
        var entry = entries[index]
        entry.agent = "00000000-0000-4000-8000-000000000000"
        records[index] = AuditLogRecord(index: index, entry: entry)
    }

    /// Entry `index` rewritten, its stored leaf hash left as it was.
    mutating func rewriteBytes(_ index: Int) {
        var entry = entries[index]
        entry.agent = "00000000-0000-4000-8000-000000000000"
        records[index].entry = entry.canonicalBytes
    }

    func readKey() async throws(AuditLogSourceError) -> AuditLogKey { AuditLogKey(keyName: Self.keyName, publicKey: signingKey.publicKey) }
    func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] { checkpoints }
    func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage {
        try await InMemoryAuditLogSource(key: readKey(), checkpoints: checkpoints, records: records).readEntries(from: from, count: count)
    }
    func readConsistencyProof(from: Int, to: Int) async throws(AuditLogSourceError) -> [MerkleHash]? {
        proofsRead.add(from, to)
        do {
            return try MerkleTree.consistencyProof(oldSize: from, leaves: Array(records.map(\.leafHash).prefix(to)))
        } catch {
            throw AuditLogSourceError("proof: \(error)")
        }
    }
}

/// Pairs of numbers a source was asked for.
private final class ProofCounter: Sendable {
    private let recorded = Mutex<[(Int, Int)]>([])
    var pairs: [(Int, Int)] { recorded.withLock { $0 } }
    func add(_ from: Int, _ to: Int) { recorded.withLock { $0.append((from, to)) } }
}

/// A source that counts the entries it serves.
private struct CountingSource: AuditLogSource {
    let base: ProvingLog
    let served = ProofCounter()
    func readKey() async throws(AuditLogSourceError) -> AuditLogKey { try await base.readKey() }
    func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] { try await base.readCheckpoints() }
    func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage {
        let page = try await base.readEntries(from: from, count: count)
        served.add(from, page.records.count)
        return page
    }
    func readConsistencyProof(from: Int, to: Int) async throws(AuditLogSourceError) -> [MerkleHash]? {
        try await base.readConsistencyProof(from: from, to: to)
    }
}

@Suite("IncrementalAuditVerifier")
struct IncrementalAuditVerifierTests {
    @Test("a later check reads only the entries appended since the verified checkpoint, proven consistent with it")
    func readsOnlyNewEntries() async throws {
        var log = ProvingLog()
        try log.append(40)
        let verifier = IncrementalAuditVerifier(pageSize: 7)
        let first = try await verifier.verify(log)
        #expect(first.isIntact && first.entriesChecked == 40 && first.treeSize == 40)
        #expect(verifier.verifiedCheckpoint?.treeSize == 40)

        try log.append(5)
        let counting = CountingSource(base: log)
        let second = try await verifier.verify(counting)
        #expect(second.isIntact, "\(second.problems)")
        #expect(second.entriesChecked == 45)
        #expect(counting.served.pairs.allSatisfy { $0.0 >= 40 }, "\(counting.served.pairs)")
        #expect(counting.served.pairs.map(\.1).reduce(0, +) == 5)
        #expect(log.proofsRead.pairs.contains { $0 == (40, 45) })
        #expect(verifier.verifiedCheckpoint?.treeSize == 45)
    }

    @Test("an entry rewritten after the verified checkpoint is caught, with or without its leaf hash")
    func catchesTamperingAfterCheckpoint() async throws {
        var log = ProvingLog()
        try log.append(30)
        let verifier = IncrementalAuditVerifier()
        #expect(try await verifier.verify(log).isIntact)
        try log.append(10)

        var bytesOnly = log
        bytesOnly.rewriteBytes(33)
        let found = try await verifier.verify(bytesOnly)
        #expect(found.problems.contains(.leafHashMismatch(index: 33)), "\(found.problems)")

        var withLeaf = log
        withLeaf.rewriteWithLeaf(35)
        let range = try await verifier.verify(withLeaf)
        #expect(!range.isIntact, "\(range.problems)")
        // The finding left the verified checkpoint where it was.
        #expect(verifier.verifiedCheckpoint?.treeSize == 30)
        #expect(try await verifier.verify(log).isIntact)
    }

    @Test("an entry rewritten before the verified checkpoint is not read again, and the full AuditVerifier catches it")
    func fullCheckCatchesTamperingBeforeCheckpoint() async throws {
        var log = ProvingLog()
        try log.append(30)
        let verifier = IncrementalAuditVerifier()
        #expect(try await verifier.verify(log).isIntact)
        log.rewriteWithLeaf(12)
        // Incremental: entries before size 30 are vouched for by the checkpoint verified then.
        #expect(try await verifier.verify(log).isIntact)
        let full = try await AuditVerifier().verify(log)
        #expect(full.problems.contains(.rewrittenRange(from: 0, to: 30)), "\(full.problems)")
        // A new verifier (a new page session) reads everything and catches it too.
        #expect(!(try await IncrementalAuditVerifier().verify(log).isIntact))
    }

    @Test("a log rolled back, forked at the same size, or signed by another key is refused")
    func rollbackForkAndKey() async throws {
        var log = ProvingLog()
        try log.append(20)
        let verifier = IncrementalAuditVerifier()
        #expect(try await verifier.verify(log).isIntact)

        var rolledBack = ProvingLog(key: log.signingKey)
        try rolledBack.append(10)
        #expect(try await verifier.verify(rolledBack).problems.contains(.truncated(present: 10, expected: 20)))

        var forked = ProvingLog(key: log.signingKey)
        try forked.append(20)
        #expect(try await verifier.verify(forked).problems.contains(.forkedCheckpoints(treeSize: 20)))

        let emptied = ProvingLog(key: log.signingKey)
        #expect(try await verifier.verify(emptied).problems.contains(.truncated(present: 0, expected: 20)))

        var otherKey = ProvingLog()
        try otherKey.append(25)
        #expect(!(try await verifier.verify(otherKey).isIntact))
        #expect(verifier.verifiedCheckpoint?.treeSize == 20)
    }
}
