import ArgumentParser
import FhirBlocks
import FhirBlocksDeployment
import FhirBlocksServer
import FhirBlocksStore
import Foundation
import Logging
import Metrics
import NIOSSL

/// `health serve`: the FhirBlocks trust server (SMOAC, VACA, OAuth, a protected FHIR endpoint,
/// the audit log) on 127.0.0.1. With no flags everything is kept in `./health-data/`.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the FhirBlocks trust server (stops cleanly on Ctrl-C or SIGTERM).",
        discussion: """
            Storage is SQLite in DATA-DIR/fhirblocks.sqlite unless --database names another SQLite file, a data \
            folder, or a PostgreSQL server (postgres://user:password@host:port/database). The audit log's signing key is DATA-DIR/audit-key.pem (0600), \
            created on first start; so is the SMART Health Cards issuer key of $health-cards-issue (--card-key, default \
            DATA-DIR/card-issuer-key.json, a private JWK), published at /.well-known/jwks.json. Cards need an https public URL \
            (their iss): serve TLS yourself with --tls-cert and --tls-key (PEM files; the public URL then defaults to \
            https://HOST:PORT), or give --public-url https://… for a TLS proxy in front. A card vouches for its data, so the \
            server signs only resources written by the identities listed with --card-source (a lab's or clinic's registered \
            client), or targeted by a Provenance one of them wrote; never what the patient's wallet or another app wrote. \
            Without --card-source it signs nothing. The first line on standard output is "listening on <URL>".
            """)

    @Option(help: "The address to bind.") var host = "127.0.0.1"
    @Option(help: "The port (0 picks a free one).") var port = 8080
    @Option(name: .customLong("data-dir"), help: "Where the SQLite database and the audit key live.") var dataDirectory = "./health-data"
    @Option(help: ArgumentHelp("A postgres:// URL, or another SQLite file or data folder, instead of DATA-DIR/fhirblocks.sqlite.",
                               valueName: "FILE|DIR|URL"))
    var database: String?
    @Option(help: "strict (default) or compat (accepts the legacy FhirBlocks clients' quirks and audits them).") var mode = "strict"
    @Option(name: .customLong("public-url"), help: "The base URL clients use (default http://HOST:PORT, https with --tls-cert).") var publicURL: String?
    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (server certificate first; with --tls-key).",
                                                              valueName: "PEM"))
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "PEM")) var tlsKey: String?
    @Option(name: .customLong("card-key"), help: ArgumentHelp("The health card issuer key (default DATA-DIR/card-issuer-key.json).", valueName: "PATH"))
    var cardKey: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(name: .customLong("checkpoint-every"), help: "Sign a checkpoint after this many audit entries.") var checkpointEvery = 64
    @Option(name: .customLong("auditor"), help: ArgumentHelp("A registered client that may read every audit entry (repeatable).", valueName: "CSI"))
    var auditors: [String] = []
    @Option(name: .customLong("card-source"),
            help: ArgumentHelp("A registered client whose writes health cards may vouch for (repeatable; none: no cards are signed).",
                               valueName: "CSI"))
    var cardSources: [String] = []
    @Option(name: .customLong("rate-per-address"), help: "Requests per second one IP address may send (bursts of 5×).")
    var ratePerAddress: Double = 200
    @Option(name: .customLong("rate-per-identity"), help: "Signed requests and assertions per second one csiGuid may send (bursts of 10×).")
    var ratePerIdentity: Double = 100
    @Option(name: .customLong("idle-timeout"), help: "Close a connection idle (or with an unfinished request header) this many seconds.")
    var idleTimeout = ConnectionLimits.default.idleTimeoutSeconds
    @Option(name: .customLong("search-time-budget"),
            help: ArgumentHelp("Stop a FHIR search's database statement after this many seconds and answer 503 (0: no limit).",
                               valueName: "SECONDS"))
    var searchTimeBudget: Double = 10
    @Option(name: .customLong("export-retention"), help: "Keep Bulk Data export jobs and their files this many hours (default 24).")
    var exportRetentionHours: Double = 24
    @Option(name: .customLong("export-downloads"), help: "Send at most this many Bulk Data export files at once (default 6; more get 503).")
    var exportDownloads = 6
    @Option(name: .customLong("max-connections"), help: "Open connections in all.") var maximumConnections = ConnectionLimits.default.maximumConnections
    @Option(name: .customLong("max-connections-per-address"), help: "Open connections from one IP address.")
    var maximumConnectionsPerAddress = ConnectionLimits.default.maximumConnectionsPerAddress

    /// The server's configuration from the options (`--mode`, `--public-url`, the limits); refuses values out of range.
    func serverConfiguration() throws -> ServerConfiguration {
        guard let protocolMode = ProtocolMode(rawValue: mode) else { throw UsageError("--mode must be strict or compat") }
        var auditorGuids: Set<CsiGuid> = []
        for text in auditors {
            guard let csi = CsiGuid(text) else { throw UsageError("--auditor must be a csiGuid (a 36-character UUID)") }
            auditorGuids.insert(csi)
        }
        var cardSourceGuids: Set<CsiGuid> = []
        for text in cardSources {
            guard let csi = CsiGuid(text) else { throw UsageError("--card-source must be a csiGuid (a 36-character UUID)") }
            cardSourceGuids.insert(csi)
        }
        guard ratePerAddress >= 1, ratePerIdentity >= 1, ratePerAddress.isFinite, ratePerIdentity.isFinite else {
            throw UsageError("--rate-per-address and --rate-per-identity must be at least 1")
        }
        var configuration = ServerConfiguration(mode: protocolMode, publicURL: publicURL, checkpointEvery: checkpointEvery, auditors: auditorGuids,
                                                rateLimitPerAddress: RateLimit(perSecond: ratePerAddress, burst: ratePerAddress * 5),
                                                rateLimitPerIdentity: RateLimit(perSecond: ratePerIdentity, burst: ratePerIdentity * 10))
        configuration.cardSources = cardSourceGuids
        guard searchTimeBudget >= 0, searchTimeBudget <= 86_400 else { throw UsageError("--search-time-budget must be 0…86400 seconds") }
        configuration.searchTimeBudget = searchTimeBudget > 0 ? .milliseconds(Int64((searchTimeBudget * 1000).rounded(.up))) : nil
        guard exportRetentionHours > 0, exportRetentionHours <= 24 * 365 else {
            throw UsageError("--export-retention must be more than 0 and at most 8760 hours")
        }
        configuration.exportRetentionSeconds = Int64((exportRetentionHours * 3600).rounded(.up))
        guard exportDownloads > 0 else { throw UsageError("--export-downloads must be at least 1") }
        configuration.maximumExportDownloads = exportDownloads
        return configuration
    }

    func run() async throws {
        // A server outlives whoever reads its output (`health serve | head -1`): a write to a closed pipe is an error
        // it ignores, never the signal that ends it (SwiftNIO ignores SIGPIPE only on Linux, once it opens a socket).
        signal(SIGPIPE, SIG_IGN)
        let configuration = try serverConfiguration()
        let protocolMode = configuration.mode
        guard let level = Logger.Level(rawValue: logLevel) else { throw UsageError("--log-level: unknown level \(logLevel)") }
        guard (0...65535).contains(port) else { throw UsageError("--port must be 0…65535") }
        guard idleTimeout > 0, idleTimeout.isFinite else { throw UsageError("--idle-timeout must be a positive number of seconds") }
        guard maximumConnections > 0, maximumConnectionsPerAddress > 0 else {
            throw UsageError("--max-connections and --max-connections-per-address must be positive")
        }
        let tls = try tlsConfiguration()
        if tls == nil, let problem = configuration.transportProblem(host: host) { throw UsageError(problem) }
        let limits = ConnectionLimits(idleTimeoutSeconds: idleTimeout, maximumConnections: maximumConnections,
                                      maximumConnectionsPerAddress: maximumConnectionsPerAddress)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "fhirblocks")
        let metrics = ServerMetrics()
        MetricsSystem.bootstrap(metrics.factory)

        var storage: TrustStoreLocation?
        if let database {
            do { storage = try TrustStoreLocation(parsing: database) } catch { throw UsageError("--database: \(error)") }
        }
        let deployment: TrustServerDeployment
        do {
            deployment = try await TrustServerDeployment.open(
                dataDirectory: dataDirectory, storage: storage,
                configuration: configuration, cardIssuerKeyPath: cardKey,
                logger: logger, metrics: metrics)
        } catch {
            throw UsageError("\(error)")
        }
        let service = deployment.service
        if let unregistered = service.unregisteredAuditors.first {
            await deployment.close()
            throw UsageError("--auditor \(unregistered.rawValue) is not registered: register the auditor first, then list it")
        }
        if let unregistered = service.unregisteredCardSources.first {
            await deployment.close()
            throw UsageError("--card-source \(unregistered.rawValue) is not registered: register the card source first, then list it")
        }
        let host = self.host
        let application = buildApplication(service: service, host: host, port: port, connectionLimits: limits, tls: tls, logger: logger) { bound in
            try? FileHandle.standardOutput.write(contentsOf: Data("listening on \(service.baseURL)\n".utf8))
            logger.info("FhirBlocks server listening", metadata: ["host": "\(host)", "port": "\(bound)", "mode": "\(protocolMode.rawValue)"])
        }
        do {
            try await application.runService()
        } catch {
            await deployment.close()
            throw error
        }
        await deployment.close()
        logger.info("FhirBlocks server stopped")
    }

    /// The TLS configuration of `--tls-cert` and `--tls-key` (nil without them), checked now so
    /// that a bad file stops the start with its option named.
    private func tlsConfiguration() throws -> TLSConfiguration? {
        guard tlsCert != nil || tlsKey != nil else { return nil }
        guard let tlsCert, let tlsKey else { throw UsageError("--tls-cert and --tls-key go together") }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(tlsCert)
        } catch {
            throw UsageError("--tls-cert: '\(tlsCert)' is not a readable PEM certificate chain")
        }
        guard !chain.isEmpty else { throw UsageError("--tls-cert: '\(tlsCert)' holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: tlsKey, format: .pem)
        } catch {
            throw UsageError("--tls-key: '\(tlsKey)' is not a readable PEM private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw UsageError("--tls-key does not match --tls-cert, or they cannot be used: \(error)")
        }
        return configuration
    }
}
