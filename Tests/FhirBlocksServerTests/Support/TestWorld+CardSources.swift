import FhirBlocks
import FhirBlocksServer

extension TestWorld {
    /// The same store, clock and keys served by a new ``TrustService`` that lists `sources` as
    /// its health card sources: what `health serve --card-source` does once the sources have
    /// registered (their csiGuids are the server's to issue, so they are known only then).
    func withCardSources(_ sources: Set<CsiGuid>) async throws -> TestWorld {
        var configuration = service.configuration
        configuration.cardSources = sources
        let restarted = TrustService(store: store, configuration: configuration, auditKey: service.auditKey,
                                     cardIssuerKey: service.cardIssuerKey, clock: clock.trustClock)
        try await restarted.start()
        return TestWorld(service: restarted, store: store, clock: clock, backend: backend)
    }
}
