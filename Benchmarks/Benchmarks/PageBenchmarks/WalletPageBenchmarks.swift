import Benchmark
import BenchmarkSupport
import FhirBlocks
import FhirBlocksClient
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import HealthWebApp
import Hummingbird
import Logging
import OpenHealthKit

/// The Sharing page with a wallet (`health ui --identity FILE --server URL`, `GET /sharing` over
/// loopback HTTP with a session) at 100 and at 10,000 audit entries by others: each load reads the
/// wallet's permissions, the newest 50 of others' actions and verifies the audit log from the last
/// verified checkpoint (`IncrementalAuditVerifier`); the first load, which verifies the whole log,
/// is made in the fixture (not timed).
func walletPageBenchmarks(_ configuration: Benchmark.Configuration) {
    for size in WalletPageFixture.sizes {
        Benchmark("Sharing page with a wallet, its audit log verified from the last checkpoint (\(size.formatted()) entries)",
                  configuration: configuration) { benchmark in
            let fixture = try await WalletPageFixture.shared(size)
            for _ in benchmark.scaledIterations {
                blackHole(try await page(fixture.origin + "/sharing", headers: fixture.headers))
            }
        }
    }
}

/// A FhirBlocks server (SQLite in a temporary folder, 127.0.0.1, no rate limits) whose audit log
/// holds `size` reads of one wallet's data by an app (appended through
/// `TrustService.appendAuditEntry`, the path of a read's entry), and `health ui` on 127.0.0.1 over an
/// empty store with that wallet, and a session. One server per size, so the log's length is the size's.
struct WalletPageFixture: Sendable {
    static let sizes = [100, 10_000]
    static let fixtures = [100: FixtureOnce { try await WalletPageFixture.start(100) }, 10_000: FixtureOnce { try await WalletPageFixture.start(10_000) }]

    static func shared(_ size: Int) async throws -> WalletPageFixture {
        guard let once = fixtures[size] else { throw FixtureError("no \(size)-entry wallet fixture") }
        return try await once.get()
    }

    let origin: String
    let headers: [(String, String)]

    /// A page with the log verified and 50 events listed, not an error page, is measured.
    static func check(_ body: String, size: Int) throws {
        let events = body.components(separatedBy: "</code></td><td>").count - 1
        guard body.contains("The audit log verified:"), events == 50 else {
            throw FixtureError("the Sharing page of the \(size)-entry wallet lists \(events) events, verified: \(body.contains("The audit log verified:"))")
        }
    }

    static func start(_ size: Int) async throws -> WalletPageFixture {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let folder = try ScratchFolder.untilExit("wallet-page-\(size)")
        let trust = try SQLiteTrustStore(path: folder.url.appendingPathComponent("trust.sqlite").path)
        try await trust.migrate()
        let unlimited = RateLimit(perSecond: 1_000_000, burst: 1_000_000)
        let service = TrustService(store: trust, configuration: ServerConfiguration(rateLimitPerAddress: unlimited, rateLimitPerIdentity: unlimited),
                                   auditKey: .generate(), logger: logger)
        try await service.start()
        let (serverPorts, serverContinuation) = AsyncStream.makeStream(of: Int.self)
        let server = FhirBlocksApplication(service: service, port: 0, logger: logger) { serverContinuation.yield($0) }
        Task { try await server.run() }
        var serverIterator = serverPorts.makeAsyncIterator()
        guard let serverPort = await serverIterator.next() else { throw FixtureError("FhirBlocks did not start") }
        let base = "http://127.0.0.1:\(serverPort)"

        let client = try FhirBlocksClient(baseURL: base)
        let wallet = try await WalletClient.register(client: client, claims: PatientClaims(dateOfBirth: "1961-01-20", firstName: "Jane", lastName: "Anyperson"))
        let app = try await ServerPageFixture.register(base, key: CsiSigningKey.generate(), applicationClass: "org.fhirblocks.dapp")
        let csi = wallet.identity.csiGuid
        // The app's reads of the wallet's data, 16 at a time (the group commit's path).
        let types = ["Condition", "Observation", "Procedure"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in stride(from: task, to: size, by: 16) {
                        let entry = AuditEntry(type: .fhirAccess, recorded: Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)),
                                               outcome: .success, agent: app.rawValue, patient: csi.rawValue, permissionIDs: ["perm-bench"],
                                               tokenID: "tok-bench", resources: ["\(types[index % types.count])/r\(index)"], scope: "patient/*.rs")
                        _ = try await service.appendAuditEntry(entry)
                    }
                }
            }
            try await group.waitForAll()
        }

        let store = try BenchmarkStore.open(in: try ScratchFolder.untilExit("wallet-page-store-\(size)"))
        let webApp = try HealthWebApp(store: store, wallet: SharingWallet(client: client, identity: wallet.identity))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = webApp.application(port: 0) { continuation.yield($0) }
        Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureError("health ui did not start") }
        let start = try await fetch(webApp.startURL(port: port))
        guard let cookie = start.headers.first(where: { $0.0.lowercased() == "set-cookie" })?.1.split(separator: ";").first else {
            throw FixtureError("no session cookie: \(start.status)")
        }
        let fixture = WalletPageFixture(origin: "http://127.0.0.1:\(port)", headers: [("Cookie", String(cookie))])
        // The first load verifies the whole log (not timed; its time is printed).
        let first = ContinuousClock.now
        try check(try await page(fixture.origin + "/sharing", headers: fixture.headers), size: size)
        let firstLoad = ContinuousClock.now - first
        FileHandle.standardError.write(Data("Sharing page with a wallet (\(size) entries): first load, the whole log verified: \(firstLoad)\n".utf8))
        try check(try await page(fixture.origin + "/sharing", headers: fixture.headers), size: size)
        return fixture
    }
}
