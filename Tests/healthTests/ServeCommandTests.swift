import AsyncHTTPClient
import FHIRCore
import FhirBlocks
import FhirBlocksClient
import FhirBlocksPostgres
import Foundation
@testable import health
import HTTPTestSupport
import TestSupport
import NIOCore
import NIOHTTP1
import Testing

/// `health serve` as a process: the embedded default, a SIGKILL in the middle of a write load
/// (no acknowledged grant or audit entry may be lost, and the restarted log must extend the old
/// one), and a clean stop on SIGTERM.
@Suite(.serialized) struct ServeCommandTests {
    /// A running `health serve`.
    struct Server {
        let process: ChildProcess
        let url: String

        static func start(_ runner: CommandRunner, database: String? = nil, port: Int = 0, arguments extra: [String] = []) async throws -> Server {
            var arguments = ["serve", "--port", String(port), "--data-dir", runner.folder.appendingPathComponent("data").path, "--log-level", "error"]
            if let database { arguments += ["--database", database] }
            arguments += extra
            let (process, output, error) = try runner.launch(arguments)
            let reader = LineReader(output)
            let line = await reader.next() ?? ""
            guard line.hasPrefix("listening on ") else {
                process.terminate()
                let finished = await reader.finish(process: process, error: error)
                throw StartFailure(port: port, firstLine: line, error: finished.error)
            }
            return Server(process: process, url: String(line.dropFirst("listening on ".count)))
        }

        /// Starts the server on a port that was free a moment ago; when another test took that
        /// port in between (the server says the address is in use), tries again with another.
        /// `prepare` is told each port before the server starts on it.
        static func startOnFreePort(_ runner: CommandRunner, arguments extra: [String] = [],
                                    prepare: @Sendable (Int) async -> Void = { _ in }) async throws -> (server: Server, port: Int) {
            var attempt = 0
            while true {
                attempt += 1
                let port = try ServeHealthCardsTests.freePort()
                await prepare(port)
                do {
                    return (try await start(runner, port: port, arguments: extra), port)
                } catch let failure as StartFailure where failure.addressInUse && attempt < 5 {
                    continue
                }
            }
        }
    }

    /// `health serve` ended before printing its first line.
    struct StartFailure: Error, CustomStringConvertible {
        let port: Int
        let firstLine: String
        let error: String

        /// It could not listen because the port was taken.
        var addressInUse: Bool { error.localizedCaseInsensitiveContains("address already in use") }

        var description: String { "health serve did not start on port \(port): \(firstLine) \(error)" }
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func send(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil, contentType: String = "application/json") async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: contentType)
        }
        let response = try await HTTPExchange.client.execute(request, timeout: .seconds(300))
        return (Int(response.status.code), Array(try await response.body.collect(upTo: 8 << 20).readableBytesView))
    }

    static func object(_ bytes: [UInt8]) -> JSONObject { (try? JSONParser.parse(bytes))?.objectValue ?? JSONObject() }

    static func envelope(_ csi: CsiGuid, cipherField: SMOACEnvelope.CipherField = .cipher) -> SMOACEnvelope {
        var generator = SystemRandomNumberGenerator()
        return SMOACEnvelope(cipherField: cipherField, csiGuid: csi.rawValue,
                             dateTime: Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)).wireText,
                             nonce: ProtocolNonce.random(using: &generator), signature: "")
    }

    static func register(_ url: String, key: CsiSigningKey, applicationClass: String) async throws -> CsiGuid {
        let guidText = object(try await send(.GET, "\(url)/util/getGloballyUniqueIdentifier").1)["guid"]?.stringValue ?? ""
        guard let csi = CsiGuid(guidText) else { throw TestFailure("no GUID") }
        var request = CsiRegistrationRequest(applicationClass: applicationClass, envelope: envelope(csi, cipherField: .cipherSpec), deviceId: "device-1",
                                             publicClaims: PublicClaim.legacyEmptyClaims, publicKey: key.publicKey.spkiBase64)
        try RequestSigner.sign(&request, with: key)
        let (status, body) = try await send(.POST, "\(url)/csi/requestCsiRegistration", body: request.jsonBytes)
        guard status == 200 else { throw TestFailure("registration: \(status) \(String(decoding: body, as: UTF8.self))") }
        return csi
    }

    static func grant(_ url: String, wallet: CsiGuid, key: CsiSigningKey, to grantee: CsiGuid) async throws -> [String]? {
        let now = Date().timeIntervalSince1970
        var request = WritePermissionRequest(
            envelope: envelope(wallet),
            permission: PermissionGrantBody(startTime: Timestamp(secondsSince1970: Int64(now) - 60).wireText,
                                            endTime: Timestamp(secondsSince1970: Int64(now) + 86400).wireText,
                                            grantees: [grantee.rawValue],
                                            heartScope: HeartScope(accessType: "read", confidentialityScope: "N", permissionType: "patient",
                                                                   resourceScope: "Observation", sensitivityScope: [])))
        try RequestSigner.sign(&request, with: key)
        let (status, body) = try await send(.POST, "\(url)/permission/writePermission", body: request.jsonBytes)
        guard status == 200 else { return nil }
        return object(body)["permissionIds"]?.arrayValue?.compactMap(\.stringValue)
    }

    /// The embedded default, and PostgreSQL when `OPENHEALTHKIT_POSTGRES_URL` names a server.
    static var backends: [String] {
        ProcessInfo.processInfo.environment["OPENHEALTHKIT_POSTGRES_URL"].map { $0.isEmpty ? ["sqlite"] : ["sqlite", "postgres"] } ?? ["sqlite"]
    }

    static func database(for backend: String) async throws -> String? {
        guard backend == "postgres", let admin = ProcessInfo.processInfo.environment["OPENHEALTHKIT_POSTGRES_URL"] else { return nil }
        let url = try PostgresURL(admin)
        let name = "k_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await PostgresDatabaseAdmin.createDatabase(name, adminURL: url, timeout: .seconds(120))
        return url.with(database: name).text
    }

    /// Drops the PostgreSQL database a test made (``database(for:)``), its sessions disconnected; nil does nothing.
    static func drop(_ database: String?) async {
        guard let database, let admin = ProcessInfo.processInfo.environment["OPENHEALTHKIT_POSTGRES_URL"],
              let url = try? PostgresURL(database), let name = url.database, let adminURL = try? PostgresURL(admin) else { return }
        try? await PostgresDatabaseAdmin.dropDatabase(name, adminURL: adminURL, timeout: .seconds(120))
    }

    @Test(arguments: backends)
    func sigkillUnderLoadLosesNothingAcknowledged(backend: String) async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let database = try await Self.database(for: backend)
        try await withTeardown({ await Self.drop(database) }) {
            var server = try await Server.start(runner, database: database)
            let walletKey = CsiSigningKey.generate()
            let wallet = try await Self.register(server.url, key: walletKey, applicationClass: "org.fhirblocks.csa")
            var apps: [CsiGuid] = []
            for _ in 0..<4 { apps.append(try await Self.register(server.url, key: .generate(), applicationClass: "org.fhirblocks.dapp")) }
            let before = try await Self.send(.GET, "\(server.url)/audit/checkpoint")
            #expect(before.0 == 200)
            let oldCheckpoint = try SignedCheckpoint(text: String(decoding: before.1, as: UTF8.self))

            // Four writers grant as fast as they can; the server is killed after 40 acknowledgements.
            let url = server.url
            let pid = server.process.processIdentifier
            // The server is killed by the first client to see 40 acknowledged grants: under load,
            // with grants in flight, and without waiting on the wall clock.
            let acknowledgements = Inbox<Void>()
            let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
                for app in apps {
                    group.addTask {
                        var mine: [String] = []
                        for _ in 0..<200 {
                            do {
                                guard let ids = try await Self.grant(url, wallet: wallet, key: walletKey, to: app) else { break }
                                mine += ids
                                if acknowledgements.appendCounting(()) == 40 { kill(pid, SIGKILL) }
                            } catch {
                                break // the server is gone
                            }
                        }
                        return mine
                    }
                }
                var all: [String] = []
                for try await ids in group { all += ids }
                return all
            }
            server.process.waitUntilExit()
            #expect(server.process.terminationReason == .uncaughtSignal)
            #expect(acknowledged.count >= 4, "too few grants before the kill to mean anything: \(acknowledged.count)")

            // Restart on the same data.
            server = try await Server.start(runner, database: database)
            defer { server.process.terminate() }
            var listing = FetchPermissionsGrantedByMeRequest(envelope: Self.envelope(wallet))
            try RequestSigner.sign(&listing, with: walletKey)
            let listed = Self.object(try await Self.send(.POST, "\(server.url)/permission/fetchPermissionsPreviouslyGrantedByMe", body: listing.jsonBytes).1)
            let stored = Set(listed["permissions"]?.arrayValue?.compactMap { $0.objectValue?["permissionId"]?.stringValue } ?? [])
            #expect(Set(acknowledged).isSubset(of: stored), "lost grants: \(Set(acknowledged).subtracting(stored).count)")

            // Every acknowledged grant has its audit entry (read by the wallet, whose entries they
            // are: anonymously the log serves leaf hashes only), and the new log extends the old one.
            let after = try SignedCheckpoint(text: String(decoding: try await Self.send(.GET, "\(server.url)/audit/checkpoint").1, as: UTF8.self))
            let client = try FhirBlocksClient(baseURL: server.url, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
            let identity = CsiIdentity(csiGuid: wallet, key: walletKey, deviceId: "serve-test", applicationClass: "org.fhirblocks.csa")
            var audited: Set<String> = []
            var withheld = 0
            do {
                let token = try await CsiSession(client: client, identity: identity).clientCredentialsToken(scope: "patient/*.rs", patient: wallet)
                let anonymous = try await AuditClient(client: client).entries(from: 0, count: 10)
                withheld = anonymous.records.filter { $0.entry == nil }.count
                let reader = AuditClient(client: client, accessToken: token.accessToken)
                var from = 0
                while from < after.checkpoint.treeSize {
                    let page = try await reader.entries(from: from, count: 1000)
                    if page.records.isEmpty { break }
                    for record in page.records {
                        guard let bytes = record.entry, let parsed = try? AuditEntry(canonicalBytes: bytes), parsed.type == .permissionGrant else { continue }
                        audited.formUnion(parsed.permissionIDs)
                    }
                    from += page.records.count
                }
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
            #expect(withheld == 10)
            #expect(Set(acknowledged).isSubset(of: audited))
            let consistency = "\(server.url)/audit/proof/consistency?from=\(oldCheckpoint.checkpoint.treeSize)&to=\(after.checkpoint.treeSize)"
            let proof = Self.object(try await Self.send(.GET, consistency).1)
            let hashes = proof["hashes"]?.arrayValue?.compactMap { $0.stringValue.flatMap(MerkleHash.init(hex:)) } ?? []
            #expect(throws: Never.self) {
                try MerkleTree.verifyConsistency(oldSize: oldCheckpoint.checkpoint.treeSize, newSize: after.checkpoint.treeSize,
                                                 oldRoot: oldCheckpoint.checkpoint.rootHash, newRoot: after.checkpoint.rootHash, proof: hashes)
            }
        }
    }

    @Test func compatRefusesPlainHTTPBeyondLoopback() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let result = try await runner.run(["serve", "--mode", "compat", "--host", "0.0.0.0", "--port", "0",
                                           "--data-dir", runner.folder.appendingPathComponent("data").path])
        #expect(result.status == 2 && result.error.contains("compat mode is served only on loopback or behind TLS"), "\(result.error)")
    }

    @Test("With nobody reading its standard output (`health serve | head -1` after the line), the server serves on and stops cleanly")
    func outputClosedIsNoCrash() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        // The listening line cannot be written, so the port is read from the server's log on
        // standard error.
        let (process, _, error) = try runner.launch(["serve", "--port", "0", "--data-dir", runner.folder.appendingPathComponent("data").path,
                                                     "--log-level", "info"], outputClosed: true)
        defer { process.terminate() }
        let log = LineReader(error)
        var port: Int?
        while port == nil, let line = await log.next() {
            if let range = line.range(of: "listening on 127.0.0.1:") { port = Int(line[range.upperBound...].prefix { $0.isNumber }) }
        }
        let url = "http://127.0.0.1:\(try #require(port, "no listening address in the log"))"
        for _ in 0..<3 { #expect(try await Self.send(.GET, "\(url)/util/ping").0 == 200) }
        #expect(process.isRunning)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "status \(process.terminationStatus)")
    }

    @Test("--export-downloads N sets the server's cap on export files sent at once (6 by default); 0 or less is refused")
    func exportDownloadsOption() async throws {
        #expect(try ServeCommand.parse(["--export-downloads", "1"]).serverConfiguration().maximumExportDownloads == 1)
        #expect(try ServeCommand.parse(["--export-downloads", "40"]).serverConfiguration().maximumExportDownloads == 40)
        #expect(try ServeCommand.parse([]).serverConfiguration().maximumExportDownloads == 6)
        let runner = CommandRunner()
        defer { runner.remove() }
        for value in ["0", "-3"] {
            let result = try await runner.run(["serve", "--port", "0", "--export-downloads=\(value)",
                                               "--data-dir", runner.folder.appendingPathComponent("data").path])
            #expect(result.status == 2 && result.error.contains("--export-downloads must be at least 1"), "\(value): \(result.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: runner.folder.appendingPathComponent("data").path), "a refused start opens no store")
    }

    @Test func sigtermStopsCleanly() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let server = try await Server.start(runner)
        #expect(try await Self.send(.GET, "\(server.url)/util/ping").0 == 200)
        // The embedded default keeps its files in the data folder, the key readable by its owner only.
        let key = runner.folder.appendingPathComponent("data/audit-key.pem").path
        let permissions = (try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        #expect(permissions == 0o600)
        server.process.terminate()
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
    }
}
