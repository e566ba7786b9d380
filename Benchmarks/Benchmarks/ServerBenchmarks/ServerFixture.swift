import AsyncHTTPClient
import BenchmarkSupport
import FhirBlocks
import FhirBlocksServer
import FhirBlocksSQLite
import FHIRCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Both servers, started once per process on 127.0.0.1, and a wallet that granted an app
/// Observation reads, with one stored Observation.
actor ServerFixture {
    static let instance = FixtureOnce { try await ServerFixture.start() }

    static func shared() async throws -> ServerFixture { try await instance.get() }

    let helloURL: String
    let fhirBlocksURL: String
    let readToken: String
    let app: (csi: CsiGuid, key: CsiSigningKey)
    /// The FhirBlocks server's metrics (the audit benchmarks read its group commits).
    let metrics: ServerMetrics
    /// Keep-alive connections, up to ``concurrentClients`` of them to one server.
    let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: ServerFixture.concurrentClients)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The clients of the concurrent benchmark.
    static let concurrentClients = 16

    init(helloURL: String, fhirBlocksURL: String, readToken: String, app: (CsiGuid, CsiSigningKey), metrics: ServerMetrics = ServerMetrics()) {
        self.helloURL = helloURL
        self.fhirBlocksURL = fhirBlocksURL
        self.readToken = readToken
        self.app = app
        self.metrics = metrics
    }

    nonisolated func tokenForm() throws -> [UInt8] {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = JWTClaims(iss: app.csi.rawValue, sub: app.csi.rawValue, aud: ["\(fhirBlocksURL)/oauth/token"], exp: now + 120, iat: now,
                               jti: UUID().uuidString, scope: nil, sta: nil, code: nil)
        let assertion = try AssertionBuilder.jws(header: JWTHeader(kid: app.csi.rawValue), claims: claims, key: app.key)
        return FormBody(fields: [(name: "grant_type", value: "client_credentials"), (name: "scope", value: "patient/Observation.rs"),
                                 (name: "client_assertion_type", value: VacaAuthRequest.jwtBearerAssertionType),
                                 (name: "client_assertion", value: assertion)]).encoded()
    }

    nonisolated func get(_ url: String, bearer: String? = nil) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw FixtureError("GET \(url): \(response.status)") }
        return Int(response.status.code)
    }

    /// `clients` tasks each sending `perClient` GETs one after the other; returns the requests
    /// answered per second.
    nonisolated func burst(_ url: String, bearer: String? = nil, clients: Int = ServerFixture.concurrentClients, perClient: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    for _ in 0..<perClient { _ = try await self.get(url, bearer: bearer) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(clients * perClient) / max(seconds, 1e-9)
    }

    nonisolated func post(_ url: String, form: [UInt8]) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(bytes: form))
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw FixtureError("POST \(url): \(response.status)") }
        return Int(response.status.code)
    }

    static func start() async throws -> ServerFixture {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        // The ceiling: Hummingbird hello-world.
        let router = Router()
        router.get("hello") { _, _ in "Hello" }
        let (helloPorts, helloContinuation) = AsyncStream.makeStream(of: Int.self)
        let hello = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                                onServerRunning: { channel in helloContinuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        Task { try await hello.runService() }
        var helloIterator = helloPorts.makeAsyncIterator()
        guard let helloPort = await helloIterator.next() else { throw FixtureError("hello-world did not start") }

        // No rate limits: every request comes from 127.0.0.1, faster than a real client would.
        let unlimited = RateLimit(perSecond: 1_000_000, burst: 1_000_000)
        let metrics = ServerMetrics()
        let (base, _) = try await startFhirBlocks(logger: logger, configuration: ServerConfiguration(rateLimitPerAddress: unlimited,
                                                                                                     rateLimitPerIdentity: unlimited), metrics: metrics)

        // A wallet, an app, a grant, a stored Observation, and a read token.
        let setup = FixtureSetup(base: base)
        let walletKey = CsiSigningKey.generate(), appKey = CsiSigningKey.generate()
        let wallet = try await setup.register(key: walletKey, applicationClass: "org.fhirblocks.csa")
        let app = try await setup.register(key: appKey, applicationClass: "org.fhirblocks.dapp")
        try await setup.grant(wallet: wallet, key: walletKey, to: app)
        let walletToken = try await setup.token(csi: wallet, key: walletKey, scope: "patient/*.cruds conf/V")
        try await setup.put("\(base)/fhir/Observation/o1", token: walletToken,
                            body: #"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"pulse"}}"#)
        let readToken = try await setup.token(csi: app, key: appKey, scope: "patient/Observation.rs")
        try await setup.client.shutdown()
        return ServerFixture(helloURL: "http://127.0.0.1:\(helloPort)/hello", fhirBlocksURL: base, readToken: readToken, app: (app, appKey),
                             metrics: metrics)
    }
}

/// Starts FhirBlocks on SQLite in a temporary folder, on a free loopback port: its base URL and store.
func startFhirBlocks(logger: Logger, configuration: ServerConfiguration = ServerConfiguration(),
                     metrics: ServerMetrics = ServerMetrics()) async throws -> (base: String, store: SQLiteTrustStore) {
    let folder = try ScratchFolder.untilExit("fhirblocks-server").url
    let store = try SQLiteTrustStore(path: folder.appendingPathComponent("trust.sqlite").path)
    try await store.migrate()
    let service = TrustService(store: store, configuration: configuration, auditKey: .generate(), logger: logger, metrics: metrics)
    try await service.start()
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let application = FhirBlocksApplication(service: service, port: 0, logger: logger) { continuation.yield($0) }
    Task { try await application.run() }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw FixtureError("FhirBlocks did not start") }
    return ("http://127.0.0.1:\(port)", store)
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
