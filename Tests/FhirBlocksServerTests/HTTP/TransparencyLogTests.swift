import ExactJSON
import FhirBlocks
import FhirBlocksClient
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import Logging
import Testing
import TestSupport

/// The audit log as the transparency-log world reads it, from a real server on 127.0.0.1: the
/// C2SP checkpoint at `/audit/checkpoint` (P-256 and Ed25519 signature lines, `no-cache`), the
/// hash tiles at `/audit/tile/…` (full, partial, higher levels; immutable; no entry bundles), and
/// a loopback C2SP witness cosigning it through `AuditWitnessing` (`health audit witness`).
@Suite struct TransparencyLogTests {
    static func get(_ server: RunningServer, _ path: String) async throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        try await HTTPExchange.send(.GET, server.baseURL + path)
    }

    static func header(_ headers: [(String, String)], _ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    static func append(_ world: TestWorld, _ count: Int, from start: Int = 0) async throws {
        for index in start..<(start + count) {
            _ = try await world.service.appendAuditEntry(AuditEntry(type: .registration, recorded: world.now, agent: "tlog-\(index)"))
        }
    }

    /// `/audit/key`: the key name, the origin and the Ed25519 verifier key.
    static func keyDocument(_ server: RunningServer) async throws -> (name: String, origin: String, vkey: NoteVerifierKey) {
        let answer = try await get(server, "/audit/key")
        let object = try #require(try JSONParser.parse(answer.body).objectValue)
        let name = try #require(object["keyName"]?.stringValue)
        let origin = try #require(object["origin"]?.stringValue)
        let vkey = try NoteVerifierKey(text: try #require(object["noteVerifierKey"]?.stringValue))
        return (name, origin, vkey)
    }

    static func checkpoint(_ server: RunningServer) async throws -> SignedCheckpoint {
        let answer = try await get(server, "/audit/checkpoint")
        #expect(answer.status == 200)
        return try SignedCheckpoint(text: String(decoding: answer.body, as: UTF8.self))
    }

    /// Runs `body` with a world holding `entries` audit entries and a server over it.
    static func withServer(_ backend: TestBackend, entries: Int,
                           _ body: @Sendable (TestWorld, RunningServer) async throws -> Void) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            try await append(world, entries)
            let server = try await RunningServer.start(world.service)
            try await withTeardown({ await server.stop() }) { try await body(world, server) }
        }
    }

    @Test(arguments: TestBackend.available)
    func checkpointIsACheckpointSignedWithBothKeys(backend: TestBackend) async throws {
        try await Self.withServer(backend, entries: 300) { world, server in
            let key = try await Self.keyDocument(server)
            // The Ed25519 key is named by the origin, as tlog-checkpoint recommends.
            #expect(key.vkey.name == key.origin && key.vkey.type == NoteVerifierKey.ed25519Type)
            // A schema-less URL, as tlog-checkpoint asks of an origin.
            #expect(!key.origin.contains("://") && key.origin.hasSuffix("/audit"), "\(key.origin)")
            #expect(ChangeCommitter.checkpointOrigin(publicBaseURL: "https://fhir.example.org/") == "fhir.example.org/audit")
            #expect(ChangeCommitter.checkpointOrigin(publicBaseURL: "http://127.0.0.1:8080/base") == "127.0.0.1:8080/base/audit")
            let answer = try await Self.get(server, "/audit/checkpoint")
            #expect(answer.status == 200)
            #expect(Self.header(answer.headers, "Cache-Control") == "no-cache")
            #expect(Self.header(answer.headers, "Content-Type")?.hasPrefix("text/plain") == true)
            let text = String(decoding: answer.body, as: UTF8.self)
            let signed = try SignedCheckpoint(text: text)
            // Origin, decimal size, base64 root, then the timestamp extension line; two signature lines.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[0] == Substring(key.origin) && lines[1] == Substring(String(signed.checkpoint.treeSize)))
            #expect(lines[2] == Substring(signed.checkpoint.rootHash.base64) && lines[3].hasPrefix("timestamp ") && lines[4].isEmpty)
            #expect(signed.signatures.count == 2)
            try signed.verify(key.vkey)
            try signed.verify(keyName: key.name, publicKey: world.service.auditKey.publicKey)
            // The note key is the audit key's: the same key document for the same audit key.
            #expect(try NoteSigningKey(name: key.origin, derivedFrom: world.service.auditKey).verifierKey == key.vkey)
            let size = signed.checkpoint.treeSize
            let records = try await world.store.auditRecords(from: 0, limit: 1000)
            #expect(size >= 300 && size < 512 && records.count >= size)
            let leaves = records.prefix(size).map(\.leafHash)
            #expect(MerkleTree.rootHash(leaves: leaves) == signed.checkpoint.rootHash)
        }
    }

    /// Forced checkpoints asked for while others are signed (each forced one starts while the
    /// previous ones may still be storing theirs) each return, or leave stored, a checkpoint
    /// covering every entry appended before it was asked for.
    @Test(arguments: TestBackend.available)
    func aForcedCheckpointCoversWhatCameBeforeIt(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            try await Self.append(world, 10)
            try await withThrowingTaskGroup(of: (asked: Int, covered: Int).self) { group in
                for round in 0..<24 {
                    try await Self.append(world, 1, from: 10 + round)
                    let asked = try await world.store.auditRecords(from: 0, limit: 1000).count
                    group.addTask {
                        let signed = await world.service.checkpointIfDue(force: true)
                        let stored = try await world.store.latestCheckpoint()
                        return (asked, max(signed?.treeSize ?? 0, stored?.treeSize ?? 0))
                    }
                }
                for try await result in group {
                    #expect(result.covered >= result.asked, "asked at \(result.asked), covered \(result.covered)")
                }
            }
            // Nothing left signing: one more forced checkpoint over an unchanged log signs nothing new.
            let latest = try #require(try await world.store.latestCheckpoint())
            #expect(latest.treeSize == (try await world.store.auditRecords(from: 0, limit: 1000).count))
            #expect(await world.service.checkpointIfDue(force: true) == nil)
        }
    }

    /// A log whose checkpoints were signed with the scheme in the origin (before origins were
    /// schema-less) keeps that origin, so its note key's name and key ID do not change under
    /// its witnesses; a new log, or one of another URL, is schema-less.
    @Test(arguments: TestBackend.available)
    func aLogSignedWithASchemeKeepsItsOrigin(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        try await withTeardown({ await world.close() }) {
            let schemaless = ChangeCommitter.checkpointOrigin(publicBaseURL: "https://fhir.example.org")
            func log() async throws -> AuditLog {
                let log = AuditLog(store: world.store, key: world.service.auditKey, keyName: "fhirblocks-audit", checkpointEvery: 64,
                                   clock: .system, logger: Logger(label: "test"))
                try await log.load()
                return log
            }
            try await Self.append(world, 3)
            let fresh = try await log()
            #expect(fresh.origin(continuing: schemaless) == "fhir.example.org/audit")
            let old = try #require(await fresh.checkpointIfDue(origin: "https://fhir.example.org/audit", force: true))
            #expect(old.note.hasPrefix("https://fhir.example.org/audit\n"))
            let upgraded = try await log()
            #expect(upgraded.origin(continuing: schemaless) == "https://fhir.example.org/audit")
            #expect(upgraded.origin(continuing: "other.example.org/audit") == "other.example.org/audit")
            try await Self.append(world, 1, from: 3)
            let next = try #require(await upgraded.checkpointIfDue(origin: upgraded.origin(continuing: schemaless), force: true))
            #expect(next.note.hasPrefix("https://fhir.example.org/audit\n4\n"))
            // A log whose latest checkpoint is schema-less stays so.
            try await Self.append(world, 1, from: 4)
            _ = try #require(await upgraded.checkpointIfDue(origin: schemaless, force: true))
            #expect(try await log().origin(continuing: schemaless) == schemaless)
        }
    }

    @Test(arguments: TestBackend.available)
    func tilesAreTheTreesHashes(backend: TestBackend) async throws {
        try await Self.withServer(backend, entries: 300) { world, server in
            let size = try await Self.checkpoint(server).checkpoint.treeSize
            let leaves = try await world.store.auditRecords(from: 0, limit: 1000).prefix(size).map(\.leafHash)
            let full = try await Self.get(server, "/audit/tile/0/000")
            #expect(full.status == 200 && full.body.count == 8192)
            #expect(full.body == leaves[0..<256].flatMap(\.bytes))
            #expect(Self.header(full.headers, "Cache-Control") == "public, max-age=31536000, immutable")
            #expect(Self.header(full.headers, "Content-Type") == "application/octet-stream")
            let partial = try await Self.get(server, "/audit/tile/0/001.p/\(size - 256)")
            #expect(partial.status == 200 && partial.body == leaves[256..<size].flatMap(\.bytes))
            let narrower = try await Self.get(server, "/audit/tile/0/001.p/3")
            #expect(narrower.body == leaves[256..<259].flatMap(\.bytes))
            let upper = try await Self.get(server, "/audit/tile/1/000.p/1")
            #expect(upper.status == 200 && upper.body == MerkleTree.rootHash(leaves: leaves[0..<256]).bytes)
            for missing in ["/audit/tile/0/002.p/1", "/audit/tile/1/000", "/audit/tile/2/000.p/1", "/audit/tile/entries/000",
                            "/audit/tile/entries/000.p/5", "/audit/tile/0/0", "/audit/tile/0/000.p/0", "/audit/tile/64/000", "/audit/tile/0/x000/000"] {
                #expect(try await Self.get(server, missing).status == 404, "\(missing)")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func aWitnessCosignsAndTheCheckpointCarriesIt(backend: TestBackend) async throws {
        try await Self.withServer(backend, entries: 20) { world, server in
            let key = try await Self.keyDocument(server)
            let first = try await Self.checkpoint(server).checkpoint
            let witness = try await TestWitness.start(logKey: key.vkey, origin: key.origin)
            try await withTeardown({ await witness.stop() }) {
                let done = try await AuditWitnessing.cosignLatest(store: world.store, witnessURL: witness.url, witnessKey: witness.key.cosignerKey)
                #expect(done.treeSize == first.treeSize && done.oldSize == 0 && done.lines.count == 1)
                let cosigned = try await Self.checkpoint(server)
                #expect(cosigned.checkpoint == first && cosigned.signatures.count == 3)
                #expect(try cosigned.cosignatureTime(by: witness.key.cosignerKey) > 0)
                try cosigned.verify(key.vkey)

                // The log grows: the server signs a checkpoint of the new size (GET /audit/checkpoint signs
                // one) but still serves the cosigned one, whose cosignature a newer checkpoint lacks.
                try await Self.append(world, 10, from: 20)
                let stillCosigned = try await Self.checkpoint(server)
                #expect(stillCosigned.checkpoint == first && stillCosigned.signatures.count == 3)
                let second = try SignedCheckpoint(text: try #require(try await world.store.latestCheckpoint()).note).checkpoint
                #expect(second.treeSize == first.treeSize + 10)
                // The witness holds the old size (409), then takes the proof from it; the new one is served.
                let again = try await AuditWitnessing.cosignLatest(store: world.store, witnessURL: witness.url, witnessKey: witness.key.cosignerKey)
                #expect(again.treeSize == second.treeSize && again.oldSize == first.treeSize)
                #expect(witness.answered == [200, 409, 200])
                #expect(witness.cosigned.size == second.treeSize && witness.cosigned.root == second.rootHash)
                let newer = try await Self.checkpoint(server)
                #expect(newer.checkpoint == second && newer.signatures.count == 3)
                #expect(try newer.cosignatureTime(by: witness.key.cosignerKey) > 0)

                // A verifier that requires the witness finds its cosignature; one that requires another does not.
                let client = try FhirBlocksClient(baseURL: server.baseURL, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
                try await withTeardown({ try? await client.shutdown() }) {
                    let report = try await AuditVerifier(witnessKeys: [witness.key.cosignerKey]).verify(AuditClient(client: client))
                    #expect(report.isIntact, "\(report.problems)")
                    #expect(report.cosignedSizes[witness.key.name] == second.treeSize)
                    let stranger = try NoteSigningKey.generate(name: "witness.test/w9").cosignerKey
                    let missing = try await AuditVerifier(witnessKeys: [stranger]).verify(AuditClient(client: client))
                    #expect(missing.problems == [.missingCosignature(witness: "witness.test/w9")])
                }
            }
        }
    }

    /// The served checkpoint is the newest cosigned one by the store's one-row query
    /// (`latestCosignedCheckpoint`, the checkpoints `health audit witness` stored cosignatures on),
    /// not by reading every stored note: among 400 stored checkpoints, a newer note that carries a
    /// third signature line without having been stored as cosigned is not served.
    @Test(arguments: TestBackend.available)
    func theServedCheckpointComesFromTheCosignedQuery(backend: TestBackend) async throws {
        try await Self.withServer(backend, entries: 20) { world, server in
            let key = try await Self.keyDocument(server)
            let first = try await Self.checkpoint(server)
            let witness = try await TestWitness.start(logKey: key.vkey, origin: key.origin)
            try await withTeardown({ await witness.stop() }) {
                _ = try await AuditWitnessing.cosignLatest(store: world.store, witnessURL: witness.url, witnessKey: witness.key.cosignerKey)
            }
            #expect(try await world.store.latestCosignedCheckpoint()?.treeSize == first.checkpoint.treeSize)
            // 400 more checkpoints, beyond the log's size; the one of size 300 carries another key's line.
            let stranger = try NoteSigningKey.generate(name: "stranger.test/s1")
            var change = TrustChange()
            for size in 21...420 {
                let checkpoint = Checkpoint(origin: key.origin, treeSize: size, rootHash: first.checkpoint.rootHash, timestamp: world.now)
                var note = first
                note.checkpoint = checkpoint
                note.signatures = [try stranger.signatureLine(for: checkpoint.body)]
                if size == 300 { note = note.adding([try stranger.cosignatureLine(for: checkpoint, time: 1_700_000_000)]) }
                change.checkpoints.append(StoredCheckpoint(treeSize: size, note: note.text))
            }
            try await world.store.commit(change)
            #expect(try await world.store.latestCheckpoint()?.treeSize == 420)
            #expect(try await world.store.latestCosignedCheckpoint()?.treeSize == first.checkpoint.treeSize)
            let served = try await Self.checkpoint(server)
            #expect(served.checkpoint == first.checkpoint && served.signatures.count == 3)
            #expect(try served.cosignatureTime(by: witness.key.cosignerKey) > 0)
        }
    }

    /// The first witnessing races a request: the witness reads checkpoint M, a request then
    /// signs and is served N > M (nothing is cosigned yet), and the cosignature is stored on M.
    /// M is not served after N: the served tree never shrinks, and a verifier holding N (the
    /// Sharing page's `IncrementalAuditVerifier`, `AuditVerifier` with the previous checkpoint as
    /// `health audit verify --checkpoint-file` runs it) finds the log intact, not rolled back.
    /// The next witnessing cosigns N, which is then served.
    @Test(arguments: TestBackend.available)
    func aCosignatureStoredOnACheckpointOlderThanOneServedIsNotServed(backend: TestBackend) async throws {
        try await Self.withServer(backend, entries: 20) { world, server in
            let key = try await Self.keyDocument(server)
            let client = try FhirBlocksClient(baseURL: server.baseURL, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
            try await withTeardown({ try? await client.shutdown() }) {
                let incremental = IncrementalAuditVerifier()
                let m = try await Self.checkpoint(server)
                // The witness reads M.
                let read = try #require(try await world.store.latestCheckpoint())
                #expect(read.treeSize == m.checkpoint.treeSize)
                // Another request: the log grows, N is signed and served (no cosigned checkpoint yet).
                try await Self.append(world, 10, from: 20)
                let n = try await Self.checkpoint(server)
                #expect(n.checkpoint.treeSize == m.checkpoint.treeSize + 10 && n.signatures.count == 2)
                #expect(try await incremental.verify(AuditClient(client: client)).isIntact)
                #expect(incremental.verifiedCheckpoint == n.checkpoint)
                // The witness's cosignature is stored on M, as AuditWitnessing stores it.
                let early = try NoteSigningKey.generate(name: "witness.test/early")
                var cosignedM = try SignedCheckpoint(text: read.note)
                cosignedM = cosignedM.adding([try early.cosignatureLine(for: cosignedM.checkpoint, time: 1_700_000_000)])
                var change = TrustChange()
                change.cosignedCheckpoints = [StoredCheckpoint(treeSize: read.treeSize, note: cosignedM.text)]
                try await world.store.commit(change)
                #expect(try await world.store.latestCosignedCheckpoint()?.treeSize == m.checkpoint.treeSize)
                // N (or newer) is still served, never M.
                for _ in 0..<2 {
                    let served = try await Self.checkpoint(server)
                    #expect(served.checkpoint == n.checkpoint && served.signatures.count == 2)
                }
                let again = try await incremental.verify(AuditClient(client: client))
                #expect(again.isIntact, "\(again.problems)")
                #expect(incremental.verifiedCheckpoint == n.checkpoint)
                let fromFile = try await AuditVerifier(previousCheckpoint: n.checkpoint).verify(AuditClient(client: client))
                #expect(fromFile.isIntact, "\(fromFile.problems)")
                // The next witnessing cosigns N, which is served from then on.
                let witness = try await TestWitness.start(logKey: key.vkey, origin: key.origin)
                try await withTeardown({ await witness.stop() }) {
                    let done = try await AuditWitnessing.cosignLatest(store: world.store, witnessURL: witness.url, witnessKey: witness.key.cosignerKey)
                    #expect(done.treeSize == n.checkpoint.treeSize)
                    let witnessed = try await Self.checkpoint(server)
                    #expect(witnessed.checkpoint == n.checkpoint && witnessed.signatures.count == 3)
                    #expect(try witnessed.cosignatureTime(by: witness.key.cosignerKey) > 0)
                }
            }
        }
    }

    /// A witness that holds another history (422), trusts another key (403) or knows another log
    /// (404): nothing is cosigned and the stored checkpoint keeps only the log's own signatures.
    @Test(arguments: TestBackend.available)
    func refusalsOfAWitnessKeepNothing(backend: TestBackend) async throws {
        try await Self.withServer(backend, entries: 12) { world, server in
            let key = try await Self.keyDocument(server)
            let latest = try await Self.checkpoint(server)
            let other = try NoteSigningKey.generate(name: key.vkey.name)
            let witnesses = [
                (try await TestWitness.start(logKey: key.vkey, origin: key.origin, start: (latest.checkpoint.treeSize - 2, MerkleHash.leaf([7]))), "422"),
                (try await TestWitness.start(logKey: other.verifierKey, origin: key.origin), "403"),
                (try await TestWitness.start(logKey: key.vkey, origin: "other.example/log"), "404"),
            ]
            for (witness, status) in witnesses {
                do {
                    _ = try await AuditWitnessing.cosignLatest(store: world.store, witnessURL: witness.url, witnessKey: nil)
                    Issue.record("the witness expected to answer \(status) cosigned")
                } catch {
                    #expect("\(error)".contains("answered \(status)"), "\(error)")
                }
                await witness.stop()
            }
            #expect(try await Self.checkpoint(server).signatures.count == 2)
        }
    }
}

/// Go's `golang.org/x/mod/sumdb/note` and `sumdb/tlog` (Debian's packages), a peer we did not
/// write, open the server's checkpoint with its verifier key, verify the tiles against its root
/// and prove entries and consistency from them; and refuse an altered checkpoint. On every store.
@Suite(.enabled(if: GoPeer.go != nil, Comment(rawValue: GoPeer.why)))
struct TransparencyLogGoPeerTests {
    @Test(arguments: TestBackend.available)
    func goOpensTheCheckpointAndChecksTheTiles(backend: TestBackend) async throws {
        try await TransparencyLogTests.withServer(backend, entries: 300) { world, server in
            let key = try await TransparencyLogTests.keyDocument(server)
            let run = try await GoPeer.run(["-url", server.baseURL, "-vkey", key.vkey.text])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.hasPrefix("ok \(key.origin) "), "\(run.output)")

            // Cosigned by a witness, the checkpoint still opens: note.Open ignores the unknown line.
            let witness = try await TestWitness.start(logKey: key.vkey, origin: key.origin)
            try await withTeardown({ await witness.stop() }) {
                _ = try await AuditWitnessing.cosignLatest(store: world.store, witnessURL: witness.url, witnessKey: witness.key.cosignerKey)
            }
            #expect(try await TransparencyLogTests.checkpoint(server).signatures.count == 3)
            let cosigned = try await GoPeer.run(["-url", server.baseURL, "-vkey", key.vkey.text])
            #expect(cosigned.status == 0, "\(cosigned.output)")

            // The same checkpoint altered (another size), or checked with another key: refused.
            let note = String(decoding: try await TransparencyLogTests.get(server, "/audit/checkpoint").body, as: UTF8.self)
            var lines = note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines[1] = String((Int(lines[1]) ?? 0) + 1)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("tlog-peer-\(UUID().uuidString).note")
            try await withTeardown({ try? FileManager.default.removeItem(at: file) }) {
                try Data(lines.joined(separator: "\n").utf8).write(to: file)
                let altered = try await GoPeer.run(["-vkey", key.vkey.text, "-note", file.path])
                #expect(altered.status == 1 && altered.output.contains("note.Open"), "\(altered.output)")
                try Data(note.utf8).write(to: file)
                let intact = try await GoPeer.run(["-vkey", key.vkey.text, "-note", file.path])
                #expect(intact.status == 0, "\(intact.output)")
                let stranger = try NoteSigningKey.generate(name: key.vkey.name).verifierKey.text
                let wrongKey = try await GoPeer.run(["-vkey", stranger, "-note", file.path])
                #expect(wrongKey.status == 1, "\(wrongKey.output)")
            }
        }
    }
}
