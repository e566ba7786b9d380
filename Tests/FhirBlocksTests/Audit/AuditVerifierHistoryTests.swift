import FhirBlocks
import Testing

/// `AuditVerifier` given the checkpoint an earlier run accepted (`health audit verify
/// --checkpoint-file`) and witnesses whose cosignature it requires (`--witness-key`).
@Suite struct AuditVerifierHistoryTests {
    static func checkpoint(_ log: TestLog, _ note: Int) throws -> Checkpoint {
        try SignedCheckpoint(text: log.checkpoints[note].note).checkpoint
    }

    @Test func aLogThatExtendsThePreviousCheckpointPasses() async throws {
        let log = try TestLog(count: 10, checkpointSizes: [5, 10])
        let previous = try Self.checkpoint(log, 0)
        let report = try await AuditVerifier(previousCheckpoint: previous).verify(ProvingSource(base: log.source(), corrupt: false))
        #expect(report.isIntact, "\(report.problems)")
        // The same checkpoint again is no change.
        let same = try await AuditVerifier(previousCheckpoint: try Self.checkpoint(log, 1)).verify(log.source())
        #expect(same.isIntact, "\(same.problems)")
    }

    @Test func aLogRolledBackBelowThePreviousCheckpointIsRefused() async throws {
        let full = try TestLog(count: 10, checkpointSizes: [5, 10])
        var rolledBack = full
        rolledBack.records = Array(full.records.prefix(5))
        rolledBack.checkpoints = [full.checkpoints[0]]
        let report = try await AuditVerifier(previousCheckpoint: try Self.checkpoint(full, 1)).verify(rolledBack.source())
        #expect(report.problems == [.rolledBack(previousSize: 10, latestSize: 5)])
        #expect(report.problems[0].description.contains("rolled back"))
    }

    /// The server answers with another history signed by the same key: at the same size (another
    /// root), beyond it with entries that no longer give the earlier root, or with honest entries
    /// but a checkpoint and consistency proof of the other history (a tampered answer).
    @Test func aForkedLogIsRefused() async throws {
        let key = CsiSigningKey.generate()
        let seen = try TestLog(count: 10, checkpointSizes: [7, 10], key: key)
        let fork = try TestLog(count: 14, checkpointSizes: [10, 14], key: key)
        let sameSize = try await AuditVerifier(previousCheckpoint: try Self.checkpoint(seen, 1))
            .verify(ProvingSource(base: fork.source(), corrupt: false))
        #expect(sameSize.problems.contains(.forkedFromPrevious(previousSize: 10, latestSize: 14)))
        let beyond = try await AuditVerifier(previousCheckpoint: try Self.checkpoint(seen, 0)).verify(fork.source())
        #expect(beyond.problems == [.forkedFromPrevious(previousSize: 7, latestSize: 14)])

        var tampered = seen.source()
        tampered.checkpoints = fork.checkpoints
        let answer = ProvingSource(base: tampered, corrupt: false, proofLeaves: fork.records.map(\.leafHash))
        let report = try await AuditVerifier(previousCheckpoint: try Self.checkpoint(seen, 0)).verify(answer)
        #expect(report.problems.contains(.forkedFromPrevious(previousSize: 7, latestSize: 14)))
        #expect(report.problems.contains { $0.description.contains("forked") })
    }

    @Test func aRequiredWitnessMustHaveCosigned() async throws {
        var log = try TestLog(count: 6, checkpointSizes: [3, 6])
        let witness = try NoteSigningKey.generate(name: "witness.test/w1")
        let other = try NoteSigningKey.generate(name: "witness.test/w2")
        let signed = try SignedCheckpoint(text: log.checkpoints[0].note)
        log.checkpoints[0].note = signed.adding([try witness.cosignatureLine(for: signed.checkpoint, time: 1_800_000_500)]).text
        let report = try await AuditVerifier(witnessKeys: [witness.cosignerKey]).verify(log.source())
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.cosignedSizes == ["witness.test/w1": 3])
        let missing = try await AuditVerifier(witnessKeys: [witness.cosignerKey, other.cosignerKey]).verify(log.source())
        #expect(missing.problems == [.missingCosignature(witness: "witness.test/w2")])
    }
}
