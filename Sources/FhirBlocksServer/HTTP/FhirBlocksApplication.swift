import FhirBlocks
import FhirBlocksStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The FhirBlocks server as a Hummingbird 2 application: the routes of
/// `docs/fhirblocks-http-api.md` over a ``TrustService``, request size limits, connection
/// limits and an idle timeout (``ConnectionLimits``), per-request metrics and logs, a periodic checkpoint signer, and graceful shutdown on SIGINT/SIGTERM
/// through swift-service-lifecycle (`runService()`).
public struct FhirBlocksApplication: Sendable {
    /// The service the routes call.
    public let service: TrustService
    /// Where to listen (127.0.0.1 by default).
    public var host: String
    /// The port (0: any free port; ``onListening`` receives the bound one).
    public var port: Int
    /// How often a checkpoint is signed when the log grew (seconds).
    public var checkpointPeriodSeconds: Int
    /// The idle timeout and the caps on open connections.
    public var connectionLimits: ConnectionLimits
    /// The logger.
    public var logger: Logger
    /// Called with the bound port once the server listens.
    public var onListening: @Sendable (Int) async -> Void

    /// Creates the application.
    public init(service: TrustService, host: String = "127.0.0.1", port: Int = 8080, checkpointPeriodSeconds: Int = 10,
                connectionLimits: ConnectionLimits = .default,
                logger: Logger = Logger(label: "fhirblocks"), onListening: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.service = service
        self.host = host
        self.port = port
        self.checkpointPeriodSeconds = checkpointPeriodSeconds
        self.connectionLimits = connectionLimits
        self.logger = logger
        self.onListening = onListening
    }

    /// The Hummingbird application (call `runService()` on it, or add it to a service group):
    /// ``buildApplication(service:host:port:checkpointPeriodSeconds:connectionLimits:tls:logger:onListening:)``
    /// with these settings.
    public func makeApplication() -> some ApplicationProtocol {
        buildApplication(service: service, host: host, port: port, checkpointPeriodSeconds: checkpointPeriodSeconds,
                         connectionLimits: connectionLimits, logger: logger, onListening: onListening)
    }

    /// Runs until SIGINT or SIGTERM, then drains in-flight requests and returns. Refuses to
    /// serve compat mode as plain HTTP beyond loopback (``ServerConfiguration/transportProblem(host:)``).
    public func run() async throws {
        if let problem = service.configuration.transportProblem(host: host) { throw TransportRefused(reason: problem) }
        try await makeApplication().runService()
    }

    /// Why ``run()`` would not serve: the configuration's transport problem.
    public struct TransportRefused: Error, CustomStringConvertible {
        /// The reason, for the operator.
        public let reason: String
        public var description: String { reason }
    }
}
