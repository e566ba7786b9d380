import ServiceLifecycle

/// Every period, writes the counted refusals of unverified callers (``RefusalTally``) and signs
/// a checkpoint when the audit log grew (the "blocks" of §4.2); both once more when the server
/// shuts down gracefully. Given the committer, which holds the audit log and its refusal tally.
struct CheckpointSigner: Service {
    /// The committer whose refusals are flushed and whose log is checkpointed.
    let committer: ChangeCommitter
    let periodSeconds: Int

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(max(1, periodSeconds)))
                await committer.flushRefusals()
                await committer.checkpointIfDue(force: true)
            }
        }
        await committer.flushRefusals()
        await committer.checkpointIfDue(force: true)
    }
}
