import Hummingbird
import Logging
import NIOCore

/// Builds the FhirBlocks server as a Hummingbird 2 application over `service`: the routes of
/// `docs/fhirblocks-http-api.md` (one controller per concern on router groups, the bearer
/// token resolved by middleware into the typed request context), per-request metrics, logs and
/// rate limits, the connection limits and idle timeout, and the periodic checkpoint signer as a
/// service of the application. `health serve`, the tests and the benchmarks all build it here.
///
/// - Parameters:
///   - service: The started service the routes call.
///   - host: Where to listen.
///   - port: The port (0: any free port; `onListening` receives the bound one).
///   - checkpointPeriodSeconds: How often refusals are flushed and a checkpoint signed when the log grew.
///   - connectionLimits: The idle timeout and the caps on open connections.
///   - logger: The logger.
///   - onListening: Called with the bound port once the server listens.
/// - Returns: The application (call `runService()` on it, or add it to a service group).
public func buildApplication(service: TrustService, host: String = "127.0.0.1", port: Int = 8080, checkpointPeriodSeconds: Int = 10,
                             connectionLimits: ConnectionLimits = .default, logger: Logger = Logger(label: "fhirblocks"),
                             onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
    let router = FhirBlocksRouter.make(service: service, logger: logger)
    let signer = CheckpointSigner(service: service, periodSeconds: checkpointPeriodSeconds)
    let refused = service.metrics.connectionsRefused
    let admission = ConnectionAdmission(limits: connectionLimits) { refused.increment() }
    let idleTimeout = TimeAmount.nanoseconds(Int64(connectionLimits.idleTimeoutSeconds * 1_000_000_000))
    return Application(router: router,
                       server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionAdmissionHandler(admission: admission)],
                                                           idleTimeout: idleTimeout)),
                       configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fhirblocks"),
                       services: [signer],
                       onServerRunning: { channel in
                           let bound = channel.localAddress?.port ?? 0
                           service.setBoundAddress(host: host, port: bound)
                           await onListening(bound)
                       },
                       logger: logger)
}
