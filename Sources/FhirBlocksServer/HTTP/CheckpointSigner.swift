import ServiceLifecycle

/// Every period, writes the counted refusals of unverified callers (``RefusalTally``) and signs
/// a checkpoint when the audit log grew (the "blocks" of §4.2); both once more when the server
/// shuts down gracefully.
struct CheckpointSigner: Service {
    let service: TrustService
    let periodSeconds: Int

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(max(1, periodSeconds)))
                await service.flushRefusals()
                await service.checkpointIfDue(force: true)
            }
        }
        await service.flushRefusals()
        await service.checkpointIfDue(force: true)
    }
}
