import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// Builds the FhirBlocks server as a Hummingbird 2 application over `service`: the routes of
/// `docs/fhirblocks-http-api.md` (one controller per concern on router groups, the bearer
/// token resolved by middleware into the typed request context), per-request metrics, logs and
/// rate limits, the connection limits and idle timeout, and the periodic checkpoint signer and the
/// sweeper of expired export jobs (`ExportSweeper`) as services of the application. `health
/// serve`, the tests and the benchmarks all build it here.
///
/// - Parameters:
///   - service: The started service the routes call.
///   - host: Where to listen.
///   - port: The port (0: any free port; `onListening` receives the bound one).
///   - checkpointPeriodSeconds: How often refusals are flushed and a checkpoint signed when the log grew.
///   - connectionLimits: The idle timeout and the caps on open connections.
///   - tls: When given, the server speaks HTTPS (HummingbirdTLS) with this configuration, and
///     its base URL (without a configured public URL) is `https://HOST:PORT`.
///   - logger: The logger.
///   - onListening: Called with the bound port once the server listens.
/// - Returns: The application (call `runService()` on it, or add it to a service group).
public func buildApplication(service: TrustService, host: String = "127.0.0.1", port: Int = 8080, checkpointPeriodSeconds: Int = 10,
                             connectionLimits: ConnectionLimits = .default, tls: TLSConfiguration? = nil, logger: Logger = Logger(label: "fhirblocks"),
                             onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
    let router = FhirBlocksRouter.make(service: service, logger: logger)
    let signer = CheckpointSigner(committer: service.committer, periodSeconds: checkpointPeriodSeconds)
    let sweeper = ExportSweeper(store: service.store, clock: service.clock,
                                periodSeconds: ExportSweeper.periodSeconds(retentionSeconds: service.configuration.exportRetentionSeconds), logger: logger)
    let refused = service.metrics.connectionsRefused
    let admission = ConnectionAdmission(limits: connectionLimits) { refused.increment() }
    let idleTimeout = TimeAmount(.seconds(connectionLimits.idleTimeoutSeconds))
    let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [ConnectionAdmissionHandler(admission: admission)],
                                                             idleTimeout: idleTimeout))
    var server = http1
    if let tls {
        // `.tls` only wraps the builder (its TLS context is made when the server starts); an
        // error it reports is raised there, never replaced by plain HTTP.
        do {
            server = try .tls(http1, tlsConfiguration: tls)
        } catch {
            server = HTTPServerBuilder { _ in throw error }
        }
    }
    let scheme = tls == nil ? "http" : "https"
    return Application(router: router,
                       server: server,
                       configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "fhirblocks"),
                       services: [signer, sweeper],
                       onServerRunning: { channel in
                           let bound = channel.localAddress?.port ?? 0
                           service.setBoundAddress(host: host, port: bound, scheme: scheme)
                           await onListening(bound)
                       },
                       logger: logger)
}
