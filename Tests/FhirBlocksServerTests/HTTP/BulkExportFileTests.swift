import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOHTTP1
import Testing
import TestSupport

/// Where Bulk Data export files are kept, over real HTTP on 127.0.0.1: a SQLite store writes
/// them to disk beside its database (`exports/{job}/{Type}.ndjson`, folders 0700, files 0600,
/// no bytes in the database), PostgreSQL keeps them in the database; on both, a second server on
/// the same database answers the status and serves the same bytes, a restarted server serves
/// them, and cancelling or retention deletes them (on disk too, with any folder left without a
/// job). Then who may kick off what: the system level for the server's auditors only, and every
/// refusal (no token, no reading system/ or patient/ scope, Groups of another client's patients).
@Suite struct BulkExportFileTests {
    /// How many Observations the file test exports: more than one chunk (``BulkExportRunner/chunkSize``; a page of
    /// lines kept whole is one chunk) and a few pieces of a download (``ExportFilePiece/readSize``).
    static let observationCount = 7_000

    /// An Observation of about 400 bytes (a note of `noteLength` characters and about 140 more).
    static func observation(_ index: Int, noteLength: Int = 260) -> [UInt8] {
        let note = String(repeating: "n", count: noteLength)
        return Array(#"{"resourceType":"Observation","id":"o\#(index)","status":"final","code":{"text":"reading \#(index)"},"note":[{"text":"\#(note)"}]}"#
            .utf8)
    }

    /// The export folder of a SQLite store, nil for PostgreSQL.
    static func exportsFolder(_ store: any TrustStore) -> String? {
        guard let sqlite = store as? SQLiteTrustStore else { return nil }
        return URL(fileURLWithPath: sqlite.path).deletingLastPathComponent().appendingPathComponent("exports").path
    }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// Kicks off `Patient/$export` on `server`, polls `poller` until the manifest, and downloads its one Observation file from `server`.
    /// Stores ``observationCount`` Observations of a new wallet, which grants them to a new backend
    /// app; returns both and that app's access token (`patient/Observation.rs`).
    static func grantedToken(_ world: TestWorld, noteLength: Int = 260) async throws -> (wallet: TestParty, app: TestParty, token: String) {
        let wallet = try await world.register(.wallet("w1", firstName: "A"))
        let app = try await world.register(.app("backend"))
        var change = TrustChange()
        for index in 0..<observationCount {
            change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "o\(index)", patient: wallet.csi, versionID: 1,
                                                                                 lastUpdated: world.now, json: observation(index, noteLength: noteLength))))
        }
        try await world.store.commit(change)
        #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", sensitivity: []).status == 200)
        let response = try await world.clientCredentials(app, scope: "patient/Observation.rs", patient: wallet)
        return (wallet, app, try #require(world.json(response)["access_token"]?.stringValue))
    }

    static func export(_ server: RunningServer, polledOn poller: RunningServer, token: String) async throws
        -> (location: String, manifest: JSONObject, url: String, bytes: [UInt8]) {
        let kickoff = try await BulkExportTests.send(server, .GET, "/fhir/Patient/$export?_type=Observation", token: token,
                                                     headers: BulkExportTests.kickoffHeaders)
        try #require(kickoff.status == 202, "\(String(decoding: kickoff.body, as: UTF8.self))")
        let location = try #require(BulkExportTests.header(kickoff, "Content-Location"))
        let manifest = try await BulkExportTests.manifest(poller, location, token: token)
        let outputs = try #require(manifest["output"]?.arrayValue)
        try #require(outputs.count == 1 && outputs[0]["type"] == .string("Observation"))
        #expect(outputs[0]["count"] == .number(String(observationCount)))
        let url = try #require(outputs[0]["url"]?.stringValue)
        let file = try await BulkExportTests.send(server, .GET, url, token: token)
        try #require(file.status == 200)
        return (location, manifest, url, file.body)
    }

    @Test(arguments: TestBackend.available)
    func filesAreKeptWhereEveryServerFindsThemAndSurviveARestart(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let first = try await RunningServer.start(world.service)
        let twin = try await world.twin()
        let second = try await RunningServer.start(twin.service)
        var restarted: (world: TestWorld, server: RunningServer)?
        var firstStopped = false
        try await withTeardown({
            await second.stop()
            await twin.close()
            if let restarted {
                await restarted.server.stop()
                await restarted.world.close()
            }
            if !firstStopped {
                await first.stop()
                await world.close()
            }
        }) {
            let (wallet, app, token) = try await Self.grantedToken(world)

            // Kicked off on one server, polled on the other (same database), downloaded from both: the same bytes.
            let (location, manifest, url, bytes) = try await Self.export(first, polledOn: second, token: token)
            let lines = bytes.split(separator: UInt8(ascii: "\n"))
            #expect(lines.count == Self.observationCount && bytes.last == UInt8(ascii: "\n"))
            #expect(Set(lines.map { Array($0) }) == Set((0..<Self.observationCount).map { Self.observation($0) }))
            #expect(try await BulkExportTests.send(second, .GET, url, token: token).body == bytes)
            let jobID = String(location.split(separator: "/").last ?? "")
            let output = try #require(try await world.store.exportOutputs(id: jobID).first)
            #expect(output.type == "Observation" && output.count == Self.observationCount && output.chunks > 1, "\(output)")

            if let folder = Self.exportsFolder(world.store) {
                // SQLite: the file on disk, owner-only; the database holds the line counts, not the bytes.
                let file = folder + "/\(jobID)/Observation.ndjson"
                #expect(FileManager.default.contents(atPath: file).map(Array.init) == bytes)
                #expect(Self.mode(file) == 0o600 && Self.mode(folder + "/\(jobID)") == 0o700 && Self.mode(folder) == 0o700)
                #expect(try await world.store.exportChunk(id: jobID, type: "Observation", sequence: 0) == [])
            } else {
                // PostgreSQL: the chunks in the database, the file their concatenation.
                var stored: [UInt8] = []
                for sequence in 0..<output.chunks {
                    stored += try #require(try await world.store.exportChunk(id: jobID, type: "Observation", sequence: sequence))
                }
                #expect(stored == bytes)
            }

            // A restart: the first server stops and its store closes; a new one on the same database serves the job.
            await first.stop()
            await world.close()
            firstStopped = true
            let again = try await world.twin()
            let againServer = try await RunningServer.start(again.service)
            restarted = (again, againServer)
            #expect(try await BulkExportTests.manifest(againServer, location, token: token) == manifest)
            #expect(try await BulkExportTests.send(againServer, .GET, url, token: token).body == bytes)

            // Cancel: the job and its files are gone, for every server.
            #expect(try await BulkExportTests.send(againServer, .DELETE, location, token: token).status == 202)
            #expect(try await BulkExportTests.send(second, .GET, location, token: token).status == 404)
            #expect(try await BulkExportTests.send(second, .GET, url, token: token).status == 404)
            #expect(try await again.store.exportOutputs(id: jobID).isEmpty)
            if let folder = Self.exportsFolder(again.store) { #expect(!FileManager.default.fileExists(atPath: folder + "/\(jobID)")) }

            // Retention: an expired job's files go at the next kick-off, with a folder no job owns.
            let (expiring, _, _, _) = try await Self.export(againServer, polledOn: againServer, token: token)
            let expiringID = String(expiring.split(separator: "/").last ?? "")
            let stray = Self.exportsFolder(again.store).map { $0 + "/stray0123" }
            if let stray {
                try FileManager.default.createDirectory(atPath: stray, withIntermediateDirectories: false)
                #expect(FileManager.default.createFile(atPath: stray + "/Observation.ndjson", contents: Data("{}\n".utf8)))
                #expect(FileManager.default.fileExists(atPath: Self.exportsFolder(again.store).map { $0 + "/\(expiringID)" } ?? ""))
            }
            world.clock.advance(seconds: world.service.configuration.exportRetentionSeconds + 1)
            let fresh = try #require(world.json(try await again.clientCredentials(app, scope: "patient/Observation.rs", patient: wallet))["access_token"]?
                .stringValue)
            #expect(try await BulkExportTests.send(againServer, .GET, expiring, token: fresh).status == 404)
            let next = try await BulkExportTests.send(againServer, .GET, "/fhir/Patient/$export?_type=Patient", token: fresh,
                                                      headers: BulkExportTests.kickoffHeaders)
            #expect(next.status == 202)
            #expect(try await again.store.exportJob(id: expiringID) == nil)
            #expect(try await again.store.exportOutputs(id: expiringID).isEmpty)
            if let folder = Self.exportsFolder(again.store), let stray {
                #expect(!FileManager.default.fileExists(atPath: folder + "/\(expiringID)"))
                #expect(!FileManager.default.fileExists(atPath: stray))
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func theSystemLevelExportIsTheAuditorsOnly(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        var auditing: RunningServer?
        try await withTeardown({
            if let auditing { await auditing.stop() }
            await server.stop()
            await world.close()
        }) {
            let (wallets, _) = try await BackendServicesTests.seed(world)
            let auditorKey = try BackendTestKey.es384("a1"), plainKey = try BackendTestKey.es256("p1")
            func keySet(_ key: BackendTestKey) -> [String: JSONValue] {
                ["jwks": .object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk]))]))]
            }
            let auditor = try await BackendServicesTests.register(server, keySet(auditorKey))
            let plain = try await BackendServicesTests.register(server, keySet(plainKey))
            for client in [auditor, plain] {
                var party = TestParty.app("backend")
                party.csi = client
                for wallet in wallets.prefix(2) {
                    #expect(try await world.grant(from: wallet, to: [party], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
                }
            }
            // A server on the same database and clock that lists the auditor.
            var configuration = world.service.configuration
            configuration.auditors = [auditor]
            let service = TrustService(store: world.store, configuration: configuration, auditKey: world.service.auditKey, clock: world.clock.trustClock)
            try await service.start()
            let auditingServer = try await RunningServer.start(service)
            auditing = auditingServer
            let audience = TestWorld.base + "/oauth/token"
            func token(_ key: BackendTestKey, _ client: CsiGuid) async throws -> String {
                let answer = try await BackendServicesTests.token(auditingServer, key.assertion(client: client, audience: audience, now: world.now),
                                                                  scope: "system/*.rs")
                try #require(answer.status == 200, "\(answer)")
                return try #require(answer.json["access_token"]?.stringValue)
            }
            let auditorToken = try await token(auditorKey, auditor), plainToken = try await token(plainKey, plain)

            let auditBefore = try await world.store.auditCount()
            let kickoff = try await BulkExportTests.send(auditingServer, .GET, "/fhir/$export", token: auditorToken, headers: BulkExportTests.kickoffHeaders)
            try #require(kickoff.status == 202, "\(String(decoding: kickoff.body, as: UTF8.self))")
            let manifest = try await BulkExportTests.manifest(auditingServer, try #require(BulkExportTests.header(kickoff, "Content-Location")),
                                                              token: auditorToken)
            #expect(manifest["request"]?.stringValue?.hasSuffix("/fhir/$export") == true)
            #expect(try await BulkExportTests.download(auditingServer, manifest, token: auditorToken) == ["Observation/obs-1", "Observation/obs-2"])
            // One audit entry per patient exported, naming the auditor.
            let entries = try await world.store.auditRecords(from: auditBefore, limit: 100).compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }
                .filter { $0.reason?.hasPrefix("bulk-export") == true }
            #expect(entries.count == 2 && entries.allSatisfy { $0.agent == auditor.rawValue })

            // Refused to a client the server does not list, on either server, and to the auditor where it is not listed.
            #expect(try await BulkExportTests.send(auditingServer, .GET, "/fhir/$export", token: plainToken, headers: BulkExportTests.kickoffHeaders)
                .status == 403)
            #expect(try await BulkExportTests.send(auditingServer, .GET, "/fhir/%24export", token: plainToken, headers: BulkExportTests.kickoffHeaders)
                .status == 403)
            #expect(try await BulkExportTests.send(server, .GET, "/fhir/$export", token: auditorToken, headers: BulkExportTests.kickoffHeaders)
                .status == 403)
            // The client that is no auditor still exports its patients.
            #expect(try await BulkExportTests.send(auditingServer, .GET, "/fhir/Patient/$export", token: plainToken, headers: BulkExportTests.kickoffHeaders)
                .status == 202)
        }
    }

    @Test(arguments: TestBackend.available)
    func everyKickoffRefusal(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({
            await server.stop()
            await world.close()
        }) {
            let (wallets, other) = try await BackendServicesTests.seed(world)
            let app = try await world.register(.app("backend"))
            for wallet in wallets.prefix(2) {
                #expect(try await world.grant(from: wallet, to: [app], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            }
            #expect(try await world.grant(from: wallets[2], to: [other], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            let appAnswer = try await world.clientCredentials(app, scope: "patient/Observation.rs", patient: wallets[0])
            let appToken = try #require(world.json(appAnswer)["access_token"]?.stringValue)
            let otherToken = try #require(world.json(try await world.clientCredentials(other, scope: "patient/Observation.rs", patient: wallets[2]))[
                "access_token"]?.stringValue)

            // No token, or one the server never issued: 401 on every kick-off.
            for path in ["/fhir/Patient/$export", "/fhir/$export", "/fhir/Group/0123456789abcdef/$export", "/fhir/Patient/%24export"] {
                #expect(try await BulkExportTests.send(server, .GET, path, token: nil, headers: BulkExportTests.kickoffHeaders).status == 401, "\(path)")
                #expect(try await BulkExportTests.send(server, .GET, path, token: "not-a-token", headers: BulkExportTests.kickoffHeaders).status == 401,
                        "\(path)")
            }

            // A token without a system/ or patient/ scope that reads: 403.
            let writeOnly = try await world.clientCredentials(wallets[0], scope: "patient/Observation.cu")
            try #require(writeOnly.status == 200, "\(String(decoding: writeOnly.body, as: UTF8.self))")
            let writeOnlyToken = try #require(world.json(writeOnly)["access_token"]?.stringValue)
            #expect(world.json(writeOnly)["scope"]?.stringValue?.contains(".r") != true)
            let refused = try await BulkExportTests.send(server, .GET, "/fhir/Patient/$export", token: writeOnlyToken, headers: BulkExportTests.kickoffHeaders)
            #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("scope"))
            for (scope, allowed) in [("system/*.rs", true), ("system/Observation.read", true), ("patient/Observation.rs conf/N", true),
                                     ("patient/*.cruds", true), ("system/AuditEvent.rs", true), ("user/Observation.rs", false),
                                     ("patient/Observation.cud", false), ("system/*.write", false), ("openid fhirUser launch", false),
                                     ("conf/V", false), ("", false)] {
                #expect(BulkExportController.allowsExport(scope: scope) == allowed, "\(scope)")
            }

            // Groups of another client's patients: refused when created (only theirs, or mixed), nothing stored;
            // another client's Group is not exported.
            func postGroup(_ members: [TestParty], token: String) async throws -> Int {
                let list = members.map { #"{"entity":{"reference":"Patient/\#($0.csi.rawValue)"}}"# }.joined(separator: ",")
                let body = #"{"resourceType":"Group","type":"person","actual":true,"member":[\#(list)]}"#
                return try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group", headers: [("Authorization", "Bearer \(token)"),
                                                                                                   ("Content-Type", "application/fhir+json")],
                                                   body: Array(body.utf8)).status
            }
            #expect(try await postGroup([wallets[2]], token: appToken) == 403)
            #expect(try await postGroup([wallets[0], wallets[2]], token: appToken) == 403)
            let othersGroup = try await HTTPExchange.send(
                .POST, server.baseURL + "/fhir/Group", headers: [("Authorization", "Bearer \(otherToken)"), ("Content-Type", "application/fhir+json")],
                body: Array(#"{"resourceType":"Group","member":[{"entity":{"reference":"Patient/\#(wallets[2].csi.rawValue)"}}]}"#.utf8))
            try #require(othersGroup.status == 201)
            let othersID = try #require(try JSONParser.parse(othersGroup.body)["id"]?.stringValue)
            let groupRefusal = try await BulkExportTests.send(server, .GET, "/fhir/Group/\(othersID)/$export", token: appToken,
                                                              headers: BulkExportTests.kickoffHeaders)
            #expect(groupRefusal.status == 403)
        }
    }

    /// A download the client leaves after its first bytes (a receive buffer of 4 KiB, so the
    /// server is still sending, then a reset) leaves the server well: the file closed again (SQLite:
    /// no descriptor of the process left on it), and the same server then sends the whole file,
    /// byte for byte, as the store's pieces (each at most `ExportFilePiece.readSize`) hold it.
    @Test(arguments: TestBackend.available)
    func aDownloadTheClientLeavesEarlyLeavesTheServerWell(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({
            await server.stop()
            await world.close()
        }) {
            let token = try await Self.grantedToken(world).token
            let (location, _, url, bytes) = try await Self.export(server, polledOn: server, token: token)
            #expect(bytes.count > 2 * (1 << 20))
            let jobID = String(location.split(separator: "/").last ?? "")
            let path = url.hasPrefix(TestWorld.base) ? String(url.dropFirst(TestWorld.base.count)) : url

            for _ in 0..<3 {
                let head = try await Self.leaveEarly(port: server.port, path: path, token: token)
                #expect(head.hasPrefix("HTTP/1.1 200"), "\(head.prefix(80))")
            }
            if let folder = Self.exportsFolder(world.store) {
                // Each abandoned download's file is closed once the server sees the client gone.
                var open = Self.openDescriptors(under: folder + "/\(jobID)/")
                for _ in 0..<500 where open > 0 {
                    try await Task.sleep(for: .milliseconds(20))
                    open = Self.openDescriptors(under: folder + "/\(jobID)/")
                }
                #expect(open == 0)
            }
            let again = try await BulkExportTests.send(server, .GET, url, token: token)
            #expect(again.status == 200 && again.body == bytes)
            #expect(try await BulkExportTests.send(server, .GET, location, token: token).status == 200)

            // The store's pieces, in arrays: the same bytes, none larger than one read.
            let output = try #require(try await world.store.exportOutputs(id: jobID).first)
            var pieces: [[UInt8]] = []
            try await world.store.sendExportFile(id: jobID, output: output) { (piece: [UInt8]) in pieces.append(piece) }
            #expect(pieces.flatMap { $0 } == bytes)
            #expect(pieces.count > 1 && pieces.allSatisfy { !$0.isEmpty })
            if Self.exportsFolder(world.store) != nil { #expect(pieces.allSatisfy { $0.count <= [UInt8].readSize }) }
        }
    }

    /// A server sends at most `maximumExportDownloads` files at once (here 2). Two downloads whose
    /// client stops reading once it has the answer's head (a receive buffer of 4 KiB, and the
    /// file, about 13 MB, larger than the most the kernel's send buffer may grow to with 4 MiB
    /// more: the server is still sending, held in its write) hold both places, so a third is refused
    /// at once: 503, `Retry-After` and an OperationOutcome (`throttled`). The two then read on,
    /// each the whole file byte for byte; once the first has ended a new download is sent whole
    /// while the second is still held, and once both have, another.
    @Test(arguments: TestBackend.available)
    func downloadsPastTheCapAreRefusedUntilOneEnds(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, configure: { $0.maximumExportDownloads = 2 })
        // The held downloads stall on purpose: the server's idle timer (30 s by default) ends a stalled connection and
        // gives its place back, which on a loaded machine came before the third download was asked for.
        let server = try await RunningServer.start(world.service, connectionLimits: ConnectionLimits(idleTimeoutSeconds: 3_600))
        try await withTeardown({
            await server.stop()
            await world.close()
        }) {
            #expect(world.service.configuration.maximumExportDownloads == 2)
            let token = try await Self.grantedToken(world, noteLength: 1_800).token
            let (_, _, url, bytes) = try await Self.export(server, polledOn: server, token: token)
            try #require(bytes.count > Self.largestSendBuffer() + 4 * (1 << 20), "the file must not fit in the server's buffers")
            let path = url.hasPrefix(TestWorld.base) ? String(url.dropFirst(TestWorld.base.count)) : url

            let first = try await HeldDownload.start(port: server.port, path: path, token: token)
            defer { first.close() }
            let second = try await HeldDownload.start(port: server.port, path: path, token: token)
            defer { second.close() }
            #expect(first.status == 200 && second.status == 200)

            let refused = try await BulkExportTests.send(server, .GET, url, token: token)
            #expect(refused.status == 503)
            #expect(BulkExportTests.header(refused, "Retry-After") == String(BulkExportController.downloadRetryAfterSeconds))
            let outcome = try? JSONParser.parse(refused.body).objectValue
            #expect(outcome?["resourceType"] == .string("OperationOutcome"))
            #expect(outcome?["issue"]?.arrayValue?.first?["code"] == .string("throttled"), "\(String(decoding: refused.body, as: UTF8.self))")

            #expect(try await first.readToEnd() == bytes)
            let meanwhile = try await BulkExportTests.send(server, .GET, url, token: token)
            #expect(meanwhile.status == 200 && meanwhile.body == bytes)
            #expect(try await second.readToEnd() == bytes)
            let after = try await BulkExportTests.send(server, .GET, url, token: token)
            #expect(after.status == 200 && after.body == bytes)
        }
    }

    /// The most a TCP socket's send buffer may grow to (the last of Linux's `tcp_wmem`; 4 MiB if unread).
    static func largestSendBuffer() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 4 << 20
    }

    /// How many of this process's open descriptors are on files under `prefix` (Linux `/proc/self/fd`).
    static func openDescriptors(under prefix: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.count(where: { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name))?.hasPrefix(prefix) == true
        })
    }

    /// GETs `path` over a socket whose receive buffer is 4 KiB, reads the first 16 KiB of the
    /// answer, and closes the connection with a reset (the server is still sending); the bytes read, as text.
    static func leaveEarly(port: Int, path: String, token: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { () throws -> String in
                    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    guard descriptor >= 0 else { throw TestSkip("socket: \(errno)") }
                    defer { close(descriptor) }
                    var size: Int32 = 4_096
                    _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                    guard LoopbackSocket.connect(descriptor, port: port) else { throw TestSkip("connect: \(errno)") }
                    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
                    guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                        throw TestSkip("send: \(errno)")
                    }
                    var received: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4_096)
                    while received.count < 16_384 {
                        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                        if count <= 0 { break }
                        received += buffer[0..<count]
                    }
                    // Closed at once with a reset: the server's next writes fail.
                    var reset = linger(l_onoff: 1, l_linger: 0)
                    _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
                    return String(decoding: received, as: UTF8.self)
                })
            }
        }
    }
}

/// A GET over a plain socket (a receive buffer of 4 KiB) that its test reads at its own pace:
/// ``start(port:path:token:)`` reads the answer's head and stops reading (the server, still
/// sending, holds the download open), ``readToEnd()`` reads the rest of the body (chunked or of
/// a `Content-Length`). Its blocking calls run on a dispatch queue, never on Swift's pool.
struct HeldDownload: Sendable {
    let descriptor: Int32
    /// The answer's status.
    let status: Int
    /// Its header lines, lowercased.
    let headers: [String]
    /// The body's bytes read with the head.
    let early: [UInt8]

    static func start(port: Int, path: String, token: String) async throws -> HeldDownload {
        try await Self.offPool {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestSkip("socket: \(errno)") }
            var size: Int32 = 4_096
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            // A server that stops sending fails the test after a minute instead of hanging it.
            var timeout = timeval(tv_sec: Self.receiveTimeoutSeconds, tv_usec: 0)
            guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
                Glibc.close(descriptor)
                throw TestSkip("setsockopt SO_RCVTIMEO: \(errno)")
            }
            guard LoopbackSocket.connect(descriptor, port: port) else {
                Glibc.close(descriptor)
                throw TestSkip("connect: \(errno)")
            }
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
            guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
                Glibc.close(descriptor)
                throw TestSkip("send: \(errno)")
            }
            var received: [UInt8] = []
            let end = Array("\r\n\r\n".utf8)
            while true {
                if let range = received.firstRange(of: end) {
                    let lines = String(decoding: received[..<range.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                    let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
                    return HeldDownload(descriptor: descriptor, status: status, headers: lines.dropFirst().map { $0.lowercased() },
                                        early: Array(received[range.upperBound...]))
                }
                let more: [UInt8]?
                do { more = try receive(descriptor) } catch {
                    Glibc.close(descriptor)
                    throw error
                }
                guard let more else {
                    Glibc.close(descriptor)
                    throw HeldDownloadError(reason: "the connection ended before the answer's head")
                }
                received += more
            }
        }
    }

    /// Reads the rest of the body and returns all of it (chunks joined); leaves the connection open.
    func readToEnd() async throws -> [UInt8] {
        try await Self.offPool { [self] in
            var input = early
            var position = 0
            func need(_ count: Int) throws {
                while input.count - position < count {
                    guard let more = try Self.receive(descriptor) else { throw HeldDownloadError(reason: "the connection ended inside the body") }
                    input += more
                }
            }
            func line() throws -> String {
                while true {
                    if let range = input[position...].firstRange(of: Array("\r\n".utf8)) {
                        defer { position = range.upperBound }
                        return String(decoding: input[position..<range.lowerBound], as: UTF8.self)
                    }
                    try need(input.count - position + 1)
                }
            }
            if let length = headers.first(where: { $0.hasPrefix("content-length:") }).flatMap({ Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }) {
                try need(length)
                return Array(input[position..<(position + length)])
            }
            guard headers.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) else {
                throw HeldDownloadError(reason: "neither chunked nor of a length")
            }
            var body: [UInt8] = []
            while true {
                let sizeText = try line().split(separator: ";").first.map(String.init) ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw HeldDownloadError(reason: "a chunk size \(sizeText.prefix(20))")
                }
                if size == 0 {
                    while try !line().isEmpty {}
                    return body
                }
                try need(size + 2)
                body += input[position..<(position + size)]
                position += size
                guard try line().isEmpty else { throw HeldDownloadError(reason: "a chunk not ended by CRLF") }
                // Let go of what was read.
                input.removeFirst(position)
                position = 0
            }
        }
    }

    func close() {
        _ = Glibc.close(descriptor)
    }

    /// How long a read waits for the server's next bytes (`SO_RCVTIMEO`) before the test fails.
    static let receiveTimeoutSeconds = 60

    /// Up to 64 KiB more of the answer; nil when the connection ended or failed.
    /// - Throws: ``HeldDownloadError`` when no byte came for ``receiveTimeoutSeconds``.
    static func receive(_ descriptor: Int32) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[0..<count]) }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw HeldDownloadError(reason: "the server sent nothing for \(receiveTimeoutSeconds) s")
            }
            return nil
        }
    }

    private static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

struct HeldDownloadError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
