import ExactJSON
import FhirBlocks
import Testing

/// A log built with the real `AuditEntry`, `MerkleTree` and `SignedCheckpoint` code.
struct TestLog {
    static let keyName = "fhirblocks.test/audit"
    static let origin = "fhirblocks.test/audit"

    let signingKey: CsiSigningKey
    var entries: [AuditEntry]
    var records: [AuditLogRecord]
    var checkpoints: [AuditCheckpointNote]

    /// `count` entries with checkpoints signed at `checkpointSizes`.
    init(count: Int, checkpointSizes: [Int], key: CsiSigningKey = .generate()) throws {
        signingKey = key
        var generator = SystemRandomNumberGenerator()
        let wallet = CsiGuid.random(using: &generator).rawValue
        let types = AuditEventType.allCases
        entries = (0..<count).map { index in
            AuditEntry(type: types[index % types.count], recorded: Timestamp(secondsSince1970: 1_800_000_000 + Int64(index)),
                       agent: CsiGuid.random(using: &generator).rawValue, patient: wallet, resources: ["Observation/\(index)"])
        }
        records = entries.enumerated().map { AuditLogRecord(index: $0.offset, entry: $0.element) }
        checkpoints = []
        for size in checkpointSizes {
            checkpoints.append(try Self.checkpoint(size: size, leaves: entries.map(\.leafHash), key: key))
        }
    }

    static func checkpoint(size: Int, leaves: [MerkleHash], key: CsiSigningKey, keyName: String = TestLog.keyName) throws -> AuditCheckpointNote {
        let checkpoint = Checkpoint(origin: origin, treeSize: size, rootHash: MerkleTree.rootHash(leaves: leaves[0..<size]),
                                    timestamp: Timestamp(secondsSince1970: 1_800_000_100 + Int64(size)))
        return AuditCheckpointNote(treeSize: size, note: try SignedCheckpoint.sign(checkpoint, keyName: keyName, key: key).text)
    }

    var key: AuditLogKey { AuditLogKey(keyName: Self.keyName, publicKey: signingKey.publicKey) }

    func source(reportedTreeSize: Int? = nil) -> InMemoryAuditLogSource {
        InMemoryAuditLogSource(key: key, checkpoints: checkpoints, records: records, reportedTreeSize: reportedTreeSize)
    }

    /// Entry `index` with another agent, as canonical bytes.
    func rewrittenBytes(_ index: Int) -> [UInt8] {
        var entry = entries[index]
        entry.agent = "00000000-0000-4000-8000-000000000000"
        return entry.canonicalBytes
    }
}

/// A source that also serves consistency proofs (computed, or deliberately wrong).
struct ProvingSource: AuditLogSource {
    var base: InMemoryAuditLogSource
    var corrupt: Bool
    /// The leaves proofs are computed from (the served ones by default).
    var proofLeaves: [MerkleHash]?

    func readKey() async throws(AuditLogSourceError) -> AuditLogKey { try await base.readKey() }
    func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] { try await base.readCheckpoints() }
    func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage { try await base.readEntries(from: from, count: count) }
    func readConsistencyProof(from: Int, to: Int) async throws(AuditLogSourceError) -> [MerkleHash]? {
        var proof: [MerkleHash]
        do {
            proof = try MerkleTree.consistencyProof(oldSize: from, leaves: Array((proofLeaves ?? base.records.map(\.leafHash)).prefix(to)))
        } catch {
            throw AuditLogSourceError("proof: \(error)")
        }
        if corrupt, !proof.isEmpty { proof[0] = MerkleHash.leaf([0x42]) }
        return proof
    }
}

struct FailingSource: AuditLogSource {
    func readKey() async throws(AuditLogSourceError) -> AuditLogKey { throw AuditLogSourceError("unreachable") }
    func readCheckpoints() async throws(AuditLogSourceError) -> [AuditCheckpointNote] { [] }
    func readEntries(from: Int, count: Int) async throws(AuditLogSourceError) -> AuditEntryPage { AuditEntryPage(treeSize: 0, records: []) }
}

@Suite("AuditVerifier")
struct AuditVerifierTests {
    @Test(arguments: [1, 3, 1000])
    func intactLogPasses(pageSize: Int) async throws {
        let log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        let report = try await AuditVerifier(pageSize: pageSize).verify(log.source())
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.treeSize == 10)
        #expect(report.entriesChecked == 10)
        #expect(report.verifiedCheckpointSizes == [3, 7, 10])
        #expect(report.latestCheckpoint?.treeSize == 10)
        #expect(report.firstTamperedIndex == nil)
        #expect(report.uncheckpointedEntries == 0)
    }

    @Test func entriesAfterTheLatestCheckpointAreCheckedButReportedAsUnsigned() async throws {
        let log = try TestLog(count: 12, checkpointSizes: [4, 9])
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.isIntact)
        #expect(report.uncheckpointedEntries == 3)
    }

    @Test func emptyLogIsIntact() async throws {
        let log = try TestLog(count: 0, checkpointSizes: [0])
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.isIntact)
        #expect(report.treeSize == 0)
    }

    @Test func rewrittenEntryBytesAreReportedAtTheirIndex() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        log.records[5].entry = log.rewrittenBytes(5)  // the stored leaf hash is left alone
        let report = try await AuditVerifier().verify(log.source())
        #expect(!report.isIntact)
        #expect(report.firstProblem == .leafHashMismatch(index: 5))
        #expect(report.firstTamperedIndex == 5)
        // The stored leaves still match every checkpoint: no range is blamed.
        #expect(report.problems == [.leafHashMismatch(index: 5)])
    }

    @Test func rewrittenEntryWithItsLeafHashIsReportedThroughTheCheckpointRange() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        log.records[5] = AuditLogRecord(index: 5, leafHash: MerkleHash.leaf(log.rewrittenBytes(5)), entry: log.rewrittenBytes(5))
        let report = try await AuditVerifier().verify(log.source())
        #expect(!report.isIntact)
        #expect(report.firstProblem == .rewrittenRange(from: 3, to: 7))
        #expect(report.firstTamperedIndex == 3)
        #expect(report.problems.contains(.rewrittenRange(from: 3, to: 10)))
        #expect(!report.problems.contains { if case .leafHashMismatch = $0 { true } else { false } })
        #expect(report.firstProblem?.description.contains("3..<7") == true)
    }

    @Test func rewriteBeforeTheFirstCheckpointIsBlamedFromZero() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        log.records[1] = AuditLogRecord(index: 1, leafHash: MerkleHash.leaf(log.rewrittenBytes(1)), entry: log.rewrittenBytes(1))
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.firstProblem == .rewrittenRange(from: 0, to: 3))
    }

    @Test func nonCanonicalEntryIsReported() async throws {
        var log = try TestLog(count: 6, checkpointSizes: [6])
        // Same members, another spelling (a space after the opening brace), leaf hash recomputed.
        let spaced = [UInt8(ascii: "{"), UInt8(ascii: " ")] + (log.records[2].entry ?? []).dropFirst()
        log.records[2] = AuditLogRecord(index: 2, leafHash: MerkleHash.leaf(Array(spaced)), entry: Array(spaced))
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.firstProblem == .entryNotCanonical(index: 2, reason: .notCanonical))
        #expect(report.problems.contains(.rewrittenRange(from: 0, to: 6)))
    }

    /// Entries served as leaf hashes only are checked through the tree: an intact log stays
    /// intact, and a withheld entry whose leaf was rewritten is still caught by the roots.
    @Test func withheldEntriesAreCheckedThroughTheirLeaves() async throws {
        var log = try TestLog(count: 6, checkpointSizes: [6])
        for index in [1, 4] { log.records[index].entry = nil }
        let intact = try await AuditVerifier().verify(log.source())
        #expect(intact.isIntact && intact.entriesWithheld == 2 && intact.entriesChecked == 6)
        log.records[4].leafHash = MerkleHash.leaf(Array("forged".utf8))
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.firstProblem == .rewrittenRange(from: 0, to: 6))
    }

    @Test func forgedCheckpointSignatureIsRefused() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        // A checkpoint at 7 signed by another key under the log's key name.
        log.checkpoints[1] = try TestLog.checkpoint(size: 7, leaves: log.entries.map(\.leafHash), key: .generate())
        let report = try await AuditVerifier().verify(log.source())
        #expect(!report.isIntact)
        #expect(report.problems == [.checkpointSignatureInvalid(treeSize: 7)])
        #expect(report.verifiedCheckpointSizes == [3, 10])
    }

    @Test func alteredCheckpointBodyIsRefused() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3, 10])
        let signed = try SignedCheckpoint(text: log.checkpoints[1].note)
        var altered = signed
        altered.checkpoint.rootHash = MerkleHash.leaf([1, 2, 3])  // the signature no longer covers the body
        log.checkpoints[1] = AuditCheckpointNote(treeSize: 10, note: altered.text)
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.problems == [.checkpointSignatureInvalid(treeSize: 10)])
    }

    @Test func resignedRewriteIsCaughtByTheSignatureAndTheEarlierCheckpoint() async throws {
        // The attacker rewrites entry 5 with its leaf and re-signs the later checkpoints with its own key.
        var log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        log.records[5] = AuditLogRecord(index: 5, leafHash: MerkleHash.leaf(log.rewrittenBytes(5)), entry: log.rewrittenBytes(5))
        let forger = CsiSigningKey.generate()
        let leaves = log.records.map(\.leafHash)
        log.checkpoints[1] = try TestLog.checkpoint(size: 7, leaves: leaves, key: forger)
        log.checkpoints[2] = try TestLog.checkpoint(size: 10, leaves: leaves, key: forger)
        let report = try await AuditVerifier().verify(log.source())
        #expect(!report.isIntact)
        #expect(report.problems.contains(.checkpointSignatureInvalid(treeSize: 7)))
        #expect(report.problems.contains(.checkpointSignatureInvalid(treeSize: 10)))
        // With the key pinned, a log that swapped its key is refused too.
        var swapped = log.source()
        swapped.key = AuditLogKey(keyName: TestLog.keyName, publicKey: forger.publicKey)
        let pinned = try await AuditVerifier(pinnedKey: log.signingKey.publicKey).verify(swapped)
        #expect(pinned.problems.contains(.unexpectedKey))
        #expect(pinned.problems.contains(.checkpointSignatureInvalid(treeSize: 10)))
        // Without the pin, the swapped key makes the real checkpoint at 3 the odd one out.
        let unpinned = try await AuditVerifier().verify(swapped)
        #expect(unpinned.problems.contains(.checkpointSignatureInvalid(treeSize: 3)))
    }

    @Test func truncatedLogIsRefused() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3, 7, 10])
        log.records.removeLast(2)  // the log now serves and reports 8 entries
        let report = try await AuditVerifier().verify(log.source())
        #expect(!report.isIntact)
        #expect(report.problems == [.truncated(present: 8, expected: 10)])
        #expect(report.firstTamperedIndex == 8)
        #expect(report.verifiedCheckpointSizes == [3, 7, 10])
    }

    @Test func logThatReportsMoreThanItServesIsRefused() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [3])
        log.records.removeLast(4)
        let report = try await AuditVerifier(pageSize: 4).verify(log.source(reportedTreeSize: 10))
        #expect(report.firstProblem == .truncated(present: 6, expected: 10))
    }

    @Test func misnumberedEntryIsRefused() async throws {
        var log = try TestLog(count: 6, checkpointSizes: [6])
        log.records.swapAt(2, 3)
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.firstProblem == .misnumberedEntry(expected: 2, found: 3))
    }

    @Test func forkedCheckpointsAreRefused() async throws {
        var log = try TestLog(count: 10, checkpointSizes: [5, 10])
        var other = log.entries.map(\.leafHash)
        other[4] = MerkleHash.leaf([9])
        log.checkpoints.append(try TestLog.checkpoint(size: 5, leaves: other, key: log.signingKey))
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.problems.contains(.forkedCheckpoints(treeSize: 5)))
    }

    @Test func unsignedLogIsRefused() async throws {
        let log = try TestLog(count: 4, checkpointSizes: [])
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.problems == [.noValidCheckpoint])
    }

    @Test func consistencyProofsOfTheSourceAreCheckedBeyondTheServedEntries() async throws {
        var log = try TestLog(count: 11, checkpointSizes: [3, 6, 11])
        // Roots checked against the entries settle consistency: even wrong proofs are not needed.
        let settled = try await AuditVerifier().verify(ProvingSource(base: log.source(), corrupt: true))
        #expect(settled.isIntact, "\(settled.problems)")
        // A log cut back to 8 entries: the checkpoint at 11 can only be related to the one at 6 by a proof.
        let full = log.source()
        log.records.removeLast(3)
        var cut = ProvingSource(base: log.source(), corrupt: false)
        cut.proofLeaves = full.records.map(\.leafHash)
        let good = try await AuditVerifier().verify(cut)
        #expect(good.problems == [.truncated(present: 8, expected: 11)])
        cut.corrupt = true
        let bad = try await AuditVerifier().verify(cut)
        #expect(bad.problems == [.truncated(present: 8, expected: 11), .inconsistentCheckpoints(from: 6, to: 11)])
    }

    @Test func unreadableSourceThrows() async {
        await #expect(throws: AuditLogSourceError("unreachable")) { try await AuditVerifier().verify(FailingSource()) }
    }

    @Test func unreadableCheckpointIsReported() async throws {
        var log = try TestLog(count: 3, checkpointSizes: [3])
        log.checkpoints.append(AuditCheckpointNote(treeSize: 2, note: "not a note"))
        let report = try await AuditVerifier().verify(log.source())
        #expect(report.problems == [.checkpointUnreadable(declaredSize: 2, reason: .malformedNote)])
    }
}
