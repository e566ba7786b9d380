import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import FhirBlocks
import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import FHIRCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The Sharing page's audit search at 100 and 10,000 entries by others, with the unpaged search
/// it sent before as the reference at 10,000.
func auditPageBenchmarks(_ configuration: Benchmark.Configuration) {
    for size in ServerPageFixture.sizes {
        Benchmark("Sharing page audit search: the newest 50 by others (\(size.formatted()) entries)", configuration: configuration) { benchmark in
            let fixture = try await ServerPageFixture.shared()
            let wallet = try fixture.wallet(size)
            let url = "\(fixture.base)/fhir/AuditEvent?_count=50&agent%3Anot=\(wallet.csi.rawValue)"
            let first = try await page(url, headers: wallet.headers)
            guard first.components(separatedBy: "\"fullUrl\"").count - 1 == 50 else {
                throw FixtureError("the audit page of the \(size)-entry wallet is not 50 events")
            }
            for _ in benchmark.scaledIterations {
                blackHole(try await page(url, headers: wallet.headers))
            }
        }
    }
    Benchmark("Sharing page audit search reference: every entry, unpaged, as the page read before (10,000 entries)",
              configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)) {
        benchmark in
        let fixture = try await ServerPageFixture.shared()
        let wallet = try fixture.wallet(10_000)
        for _ in benchmark.scaledIterations {
            blackHole(try await page("\(fixture.base)/fhir/AuditEvent", headers: wallet.headers))
        }
    }
}

/// `Patient/$everything` through HTTP, first page and from the middle, beside the store's page.
func everythingPageBenchmarks(_ configuration: Benchmark.Configuration) {
    for size in ServerPageFixture.sizes {
        let label = size.formatted()
        Benchmark("$everything through HTTP: the first 50 (\(label) resources)", configuration: configuration) { benchmark in
            let fixture = try await ServerPageFixture.shared()
            let wallet = try fixture.wallet(size)
            let url = "\(fixture.base)/fhir/Patient/\(wallet.csi.rawValue)/$everything?_count=50"
            try ServerPageFixture.checkFull(try await page(url, headers: wallet.headers))
            for _ in benchmark.scaledIterations {
                blackHole(try await page(url, headers: wallet.headers))
            }
        }
        Benchmark("$everything through HTTP: 50 from the middle by the cursor (\(label) resources)", configuration: configuration) { benchmark in
            let fixture = try await ServerPageFixture.shared()
            let wallet = try fixture.wallet(size)
            let cursor = "\(wallet.middle.type)%2F\(wallet.middle.id)"
            let url = "\(fixture.base)/fhir/Patient/\(wallet.csi.rawValue)/$everything?_count=50&_cursor=\(cursor)"
            try ServerPageFixture.checkFull(try await page(url, headers: wallet.headers))
            for _ in benchmark.scaledIterations {
                blackHole(try await page(url, headers: wallet.headers))
            }
        }
        Benchmark("$everything in the store: 50 from the middle by the cursor, no HTTP (\(label) resources)", configuration: configuration) { benchmark in
            let fixture = try await ServerPageFixture.shared()
            let wallet = try fixture.wallet(size)
            guard try await fixture.store.resources(patient: wallet.csi, after: wallet.middle, limit: 50).count == 50 else {
                throw FixtureError("the store's page of the \(size)-resource compartment is short")
            }
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.store.resources(patient: wallet.csi, after: wallet.middle, limit: 50))
            }
        }
    }
}

/// One FhirBlocks server (SQLite in a temporary folder, 127.0.0.1, no rate limits) with two
/// wallets: one whose compartment holds 100 resources and whose data an app read 100 times (100
/// audit entries by others), one with 10,000 of each. The entries are appended through
/// `TrustService.appendAuditEntry` (the path of a read's entry), the small wallet's first, so the
/// large wallet's 10,000 lie between them and the log's end.
struct ServerPageFixture: Sendable {
    static let sizes = [100, 10_000]
    static let instance = FixtureOnce { try await ServerPageFixture.start() }

    static func shared() async throws -> ServerPageFixture { try await instance.get() }

    struct Wallet: Sendable {
        let csi: CsiGuid
        let headers: [(String, String)]
        /// The (type, id) before the middle of the compartment (25 before it, in (type, id) byte order).
        let middle: (type: String, id: String)
    }

    let base: String
    let store: SQLiteTrustStore
    let wallets: [Int: Wallet]

    func wallet(_ size: Int) throws -> Wallet {
        guard let wallet = wallets[size] else { throw FixtureError("no \(size)-entry wallet") }
        return wallet
    }

    /// A page of 50 resources, not an error or a short page, is measured.
    static func checkFull(_ body: String) throws {
        let count = body.components(separatedBy: "\"fullUrl\"").count - 1
        guard count == 50 else { throw FixtureError("the $everything page holds \(count) resources") }
    }

    static func start() async throws -> ServerPageFixture {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let folder = try ScratchFolder.untilExit("fhirblocks-pages").url
        let store = try SQLiteTrustStore(path: folder.appendingPathComponent("trust.sqlite").path)
        try await store.migrate()
        let unlimited = RateLimit(perSecond: 1_000_000, burst: 1_000_000)
        let service = TrustService(store: store, configuration: ServerConfiguration(rateLimitPerAddress: unlimited, rateLimitPerIdentity: unlimited),
                                   auditKey: .generate(), logger: logger)
        try await service.start()
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = FhirBlocksApplication(service: service, port: 0, logger: logger) { continuation.yield($0) }
        Task { try await application.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureError("FhirBlocks did not start") }
        let base = "http://127.0.0.1:\(port)"

        let appKey = CsiSigningKey.generate()
        let app = try await register(base, key: appKey, applicationClass: "org.fhirblocks.dapp")
        var wallets: [Int: Wallet] = [:]
        let types = ["Condition", "Observation", "Procedure"]
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        for size in sizes {
            let key = CsiSigningKey.generate()
            let csi = try await register(base, key: key, applicationClass: "org.fhirblocks.csa")
            let token = try await Self.token(base, csi: csi, key: key, scope: "patient/*.cruds conf/V")
            // The compartment, written through the store as the FHIR endpoint writes it.
            var change = TrustChange()
            var keys: [(type: String, id: String)] = []
            for index in 0..<size {
                let type = types[index % types.count]
                let id = "r\(index)"
                keys.append((type, id))
                let json = #"{"resourceType":"\#(type)","id":"\#(id)","status":"final","meta":{"versionId":"1","lastUpdated":"\#(now.wireText)"}}"#
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: type, id: id, patient: csi, versionID: 1,
                                                                                     lastUpdated: now, json: Array(json.utf8))))
                if change.resources.count == 5_000 {
                    try await store.commit(change)
                    change = TrustChange()
                }
            }
            if !change.resources.isEmpty { try await store.commit(change) }
            keys.sort { first, second in
                first.type == second.type ? Array(first.id.utf8).lexicographicallyPrecedes(second.id.utf8)
                    : Array(first.type.utf8).lexicographicallyPrecedes(second.type.utf8)
            }
            // The app's reads of the wallet's data, 16 at a time (the group commit's path).
            let read = keys
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        for index in stride(from: task, to: size, by: 16) {
                            let entry = AuditEntry(type: .fhirAccess, recorded: Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)),
                                                   outcome: .success, agent: app.rawValue, patient: csi.rawValue, permissionIDs: ["perm-bench"],
                                                   tokenID: "tok-bench", resources: ["\(read[index].type)/\(read[index].id)"], scope: "patient/*.rs")
                            _ = try await service.appendAuditEntry(entry)
                        }
                    }
                }
                try await group.waitForAll()
            }
            wallets[size] = Wallet(csi: csi, headers: [("Authorization", "Bearer \(token)")], middle: keys[size / 2 - 25])
        }
        return ServerPageFixture(base: base, store: store, wallets: wallets)
    }

    // MARK: Setup requests (not timed)

    static func send(_ base: String, _ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, contentType: String = "application/json") async throws
        -> JSONObject {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: contentType)
        }
        let response = try await pageClient.execute(request, timeout: .seconds(60))
        let bytes = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        guard (200..<300).contains(response.status.code) else { throw FixtureError("\(path): \(response.status) \(String(decoding: bytes, as: UTF8.self))") }
        return (try? JSONParser.parse(bytes))?.objectValue ?? JSONObject()
    }

    static func envelope(_ csi: CsiGuid, cipherField: SMOACEnvelope.CipherField = .cipher) -> SMOACEnvelope {
        var generator = SystemRandomNumberGenerator()
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        return SMOACEnvelope(cipherField: cipherField, csiGuid: csi.rawValue, dateTime: now.wireText, nonce: ProtocolNonce.random(using: &generator),
                             signature: "")
    }

    static func register(_ base: String, key: CsiSigningKey, applicationClass: String) async throws -> CsiGuid {
        guard let csi = CsiGuid(try await send(base, .GET,
                                               "/util/getGloballyUniqueIdentifier")["guid"]?.stringValue ?? "") else { throw FixtureError("no GUID") }
        var request = CsiRegistrationRequest(applicationClass: applicationClass, envelope: envelope(csi, cipherField: .cipherSpec), deviceId: "bench-device",
                                             publicClaims: PublicClaim.legacyEmptyClaims, publicKey: key.publicKey.spkiBase64)
        try RequestSigner.sign(&request, with: key)
        _ = try await send(base, .POST, "/csi/requestCsiRegistration", body: request.jsonBytes)
        return csi
    }

    static func token(_ base: String, csi: CsiGuid, key: CsiSigningKey, scope: String) async throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        // Valid for the whole run (the benchmarks reuse it).
        let claims = JWTClaims(iss: csi.rawValue, sub: csi.rawValue, aud: ["\(base)/oauth/token"], exp: now + 120, iat: now, jti: UUID().uuidString,
                               scope: nil, sta: nil, code: nil)
        let assertion = try AssertionBuilder.jws(header: JWTHeader(kid: csi.rawValue), claims: claims, key: key)
        let form = FormBody(fields: [(name: "grant_type", value: "client_credentials"), (name: "scope", value: scope),
                                     (name: "client_assertion_type", value: VacaAuthRequest.jwtBearerAssertionType),
                                     (name: "client_assertion", value: assertion)]).encoded()
        guard let token = try await send(base, .POST, "/oauth/token", body: form,
                                         contentType: "application/x-www-form-urlencoded")["access_token"]?.stringValue else {
            throw FixtureError("no token")
        }
        return token
    }
}
