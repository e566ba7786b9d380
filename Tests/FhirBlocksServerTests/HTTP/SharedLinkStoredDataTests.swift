import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksClient
@testable import FhirBlocksPostgres
@testable import FhirBlocksServer
@testable import FhirBlocksSQLite
import FhirBlocksStore
import Foundation
import GRDB
import PostgresNIO
import SmartHealthLinks
import Synchronization
import Testing
import TestSupport

/// What the server keeps of a hosted link, read in its own database on each backend, and the
/// races the links specification warns of: the passcode kept only as a scrypt hash, ciphertext
/// altered in the database refused by the receiver, a right and a wrong passcode racing for a
/// link's last attempt, and the viewer's policy for loopback servers.
@Suite("Shared link hosting: what is stored")
struct SharedLinkStoredDataTests {
    typealias Hosting = SharedLinkHostingTests
    typealias Limits = SharedLinkLimitsTests

    /// Every row about link `id` in the link tables, each column as text (blobs as UTF-8 and as
    /// hexadecimal), read in the store's own database outside the server.
    static func storedRows(_ id: String, in store: any TrustStore) async throws -> [String] {
        let tables = ["shared_link": "id", "shared_link_file": "link_id", "shared_link_location": "link_id", "shared_link_access": "link_id"]
        if let sqlite = store as? SQLiteTrustStore {
            return try await sqlite.write { db in
                var texts: [String] = []
                for (table, column) in tables {
                    for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE \(column) = ?", arguments: [id]) {
                        for (name, value) in row {
                            switch value.storage {
                            case .string(let text): texts.append("\(table).\(name)=\(text)")
                            case .blob(let data):
                                texts.append("\(table).\(name)=" + String(decoding: data, as: UTF8.self))
                                texts.append("\(table).\(name)=" + data.map { String(format: "%02x", $0) }.joined())
                            case .int64(let number): texts.append("\(table).\(name)=\(number)")
                            case .double(let number): texts.append("\(table).\(name)=\(number)")
                            case .null: texts.append("\(table).\(name)=NULL")
                            }
                        }
                    }
                }
                return texts
            }
        }
        let postgres = try #require(store as? PostgresTrustStore)
        return try await postgres.withTransaction { connection, logger in
            var texts: [String] = []
            for (table, column) in tables {
                // The whole row as JSON text (bytea columns as \x hexadecimal).
                let sql = "SELECT row_to_json(t)::text FROM \(table) t WHERE t.\(column) = '\(id)'"
                for try await (text) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) {
                    texts.append("\(table)=\(text)")
                }
            }
            return texts
        }
    }

    /// The stored passcode hash of link `id`.
    static func storedHash(_ id: String, in store: any TrustStore) async throws -> String? {
        try await store.sharedLink(id: id)?.passcodeHash
    }

    /// `jwe` with one byte of its ciphertext flipped (still a well-formed JWE).
    static func altered(_ jwe: String) throws -> String {
        var parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 5)
        var ciphertext = try Base64URL.decode(parts[3])
        try #require(!ciphertext.isEmpty)
        ciphertext[ciphertext.count / 2] ^= 0x01
        parts[3] = Base64URL.encode(ciphertext)
        return parts.joined(separator: ".")
    }

    /// The link's AuditEvents (as the wallet reads them): each one's agent and outcome text.
    static func linkAuditEvents(_ setup: Hosting.Setup) async throws -> [(agent: String, outcome: String, reason: String?)] {
        let events = try await setup.wallet.auditEvents().objectValue?["entry"]?.arrayValue ?? []
        return events.compactMap { $0.objectValue?["resource"]?.objectValue }.filter {
            $0["subtype"]?.arrayValue?.first?.objectValue?["code"]?.stringValue == "shared-link-access"
        }.map { event in
            (agent: event["agent"]?.arrayValue?.first?.objectValue?["who"]?.objectValue?["identifier"]?.objectValue?["value"]?.stringValue ?? "",
             outcome: event["outcome"]?.stringValue ?? "", reason: event["outcomeDesc"]?.stringValue)
        }
    }

    // MARK: 8. The passcode is stored as a memory-hard hash

    @Test(arguments: TestBackend.available)
    func thePasscodeIsStoredOnlyAsAnScryptHashThatVerifies(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let passcode = "Tr0ub4dor&3-horse-Ümlaut"
            let files = try Hosting.files([(SHLContentType.fhirJSON, Hosting.summary)], key: SHLink.newKey())
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: files, passcode: passcode, attempts: 5))
            let twin = try await setup.wallet.createLink(SharedLinkRequest(files: files, passcode: passcode, attempts: 5))
            // A wrong guess and an opening: the access log rows are stored too.
            #expect(try await Hosting.manifestRequest(record.manifestURL, passcode: "nope").status == 401)
            #expect(try await Hosting.manifestRequest(record.manifestURL, passcode: passcode).status == 200)

            let rows = try await Self.storedRows(record.id, in: setup.world.store)
            #expect(rows.contains { $0.contains("scrypt$") }, "\(rows)")
            #expect(rows.contains { $0.hasPrefix("shared_link_access") }, "\(rows)")
            // The passcode nowhere: as text, its bytes in hexadecimal, base64url or standard base64,
            // in any case.
            let bytes = Array(passcode.utf8)
            let forms = [passcode, bytes.map { String(format: "%02x", $0) }.joined(), Base64URL.encode(bytes), Base64URL.encodeStandard(bytes),
                         "Tr0ub4dor"]
            for row in rows {
                for form in forms {
                    #expect(!row.lowercased().contains(form.lowercased()), "the stored row \(row) holds the passcode as \(form)")
                }
            }
            // The hash: scrypt with N = 2^14, r = 8, p = 1 (16 MiB per evaluation), a 16-byte salt
            // and a 32-byte derived key; it verifies the passcode and nothing else.
            let hash = try #require(try await Self.storedHash(record.id, in: setup.world.store))
            let parts = hash.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
            #expect(parts.count == 6 && parts[0] == "scrypt" && parts[1] == "14" && parts[2] == "8" && parts[3] == "1", "\(hash)")
            let salt = try Base64URL.decode(parts[4])
            let derived = try Base64URL.decode(parts[5])
            #expect(salt.count == 16 && derived.count == 32)
            let memory: Int = 128 * SharedLinkPasscode.blockSize * (1 << SharedLinkPasscode.logRounds)
            #expect(memory == 16 << 20)
            #expect(await SharedLinkPasscode.matches(passcode, stored: hash))
            #expect(await !SharedLinkPasscode.matches("nope", stored: hash))
            #expect(await !SharedLinkPasscode.matches(passcode + " ", stored: hash))
            // A fresh salt per link: the same passcode hashes differently.
            let other = try #require(try await Self.storedHash(twin.id, in: setup.world.store))
            #expect(other != hash && other.split(separator: "$")[4] != parts[4])
            #expect(await SharedLinkPasscode.matches(passcode, stored: other))
            // A link without a passcode stores no hash.
            let open = try await setup.wallet.createLink(SharedLinkRequest(files: files))
            #expect(try await Self.storedHash(open.id, in: setup.world.store) == nil)
        }
    }

    // MARK: 10. Altered ciphertext

    @Test(arguments: TestBackend.available)
    func ciphertextAlteredInTheDatabaseIsADecryptionFailure(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let key = SHLink.newKey()
            let record = try await setup.wallet.createLink(SharedLinkRequest(files: try Hosting.files([(SHLContentType.fhirJSON, Hosting.summary)],
                                                                                                      key: key)))
            let link = try Hosting.payload(record, key: key)
            // Before: it opens.
            #expect(try await setup.receiver.open(link, recipient: "Dr. Before", now: setup.now).map(\.content) == [Hosting.summary])
            let stored = try #require(try await setup.world.store.sharedLinkFile(id: record.id, position: 0))
            let altered = try Self.altered(stored.jwe)
            #expect(altered != stored.jwe && SharedLinkHost.isDirectJWE(altered))
            try await Limits.execute("UPDATE shared_link_file SET jwe = '\(altered)' WHERE link_id = '\(record.id)' AND position = 0",
                                     in: setup.world.store)
            #expect(try await setup.world.store.sharedLinkFile(id: record.id, position: 0)?.jwe == altered)
            // Embedded in the manifest and fetched from its location alike: the receiver says the
            // file does not decrypt and hands nothing over (there is nothing a caller could store).
            for embeddedLengthMax in [1 << 20, 0] {
                var receiver = setup.receiver
                receiver.embeddedLengthMax = embeddedLengthMax
                let outcome: Result<[SHLReceivedFile], SHLReceiveError>
                do throws(SHLReceiveError) {
                    outcome = .success(try await receiver.open(link, recipient: "Dr. After", now: setup.now))
                } catch {
                    outcome = .failure(error)
                }
                #expect(outcome == .failure(.invalid(.doesNotDecrypt)), "embeddedLengthMax \(embeddedLengthMax)")
            }
            #expect(SHLReceiveError.invalid(.doesNotDecrypt).description.contains("does not decrypt"))
            // The altered file is served as it is stored (the server cannot check what it cannot read).
            let manifest = try SHLManifest(json: try await Hosting.manifestRequest(record.manifestURL, embeddedLengthMax: 1 << 20).body)
            guard case .embedded(let served) = try #require(manifest.files.first).source else {
                Issue.record("expected the file embedded")
                return
            }
            #expect(served == altered)
        }
    }

    // MARK: 12. The right and a wrong passcode race for the last attempt

    /// A link with one attempt left, asked at once with the right passcode and a wrong one, in
    /// several rounds. Whichever request comes first decides: the right passcode opens (and the
    /// wrong guess, evaluated after it, is counted and locks the link), or the wrong guess is
    /// evaluated and locks the link (and the right passcode then gets 404, logged
    /// `refused-locked`). A wrong guess arriving while the right passcode holds the attempt is
    /// never answered as locked: it waits for that verdict (SharedLinkPasscodeGate). What each
    /// request was answered, the access log, the audit entries and the link's state always
    /// agree, and never more than one wrong guess is evaluated.
    @Test(arguments: TestBackend.available)
    func rightAndWrongPasscodesRacingForTheLastAttemptAgreeWithTheLog(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let rounds = 6
            var records: [SharedLinkRecord] = []
            for _ in 0..<rounds {
                records.append(try await setup.wallet.createLink(SharedLinkRequest(files: try Hosting.files([(SHLContentType.fhirJSON, Hosting.summary)],
                                                                                                           key: SHLink.newKey()),
                                                                                   passcode: "right", attempts: 1)))
            }
            for record in records {
                async let right = Hosting.manifestRequest(record.manifestURL, recipient: "Right \(record.id.prefix(6))", passcode: "right")
                async let wrong = Hosting.manifestRequest(record.manifestURL, recipient: "Wrong \(record.id.prefix(6))", passcode: "wrong")
                let (rightAnswer, wrongAnswer) = try await (right, wrong)
                let store = setup.world.store
                let opened = try await Limits.accessCount(record.id, outcome: "opened", in: store)
                let wrongEvaluated = try await Limits.accessCount(record.id, outcome: "wrong-passcode", in: store)
                let locked = try await Limits.accessCount(record.id, outcome: "refused-locked", in: store)
                let left = try #require(try await store.sharedLink(id: record.id)).attemptsLeft
                // Never more wrong guesses evaluated than the limit; two requests, two log rows.
                #expect(wrongEvaluated <= 1)
                #expect(try await Limits.accessCount(record.id, in: store) == 2)
                switch (rightAnswer.status, wrongAnswer.status) {
                case (200, 401):
                    // The right passcode first, then the wrong guess evaluated: the link is locked.
                    #expect(Hosting.remaining(wrongAnswer.body) == 0)
                    #expect(opened == 1 && wrongEvaluated == 1 && locked == 0 && left == 0)
                case (404, 401):
                    // The wrong guess first: evaluated, the link locked; the right passcode refused.
                    #expect(Hosting.remaining(wrongAnswer.body) == 0)
                    #expect(opened == 0 && wrongEvaluated == 1 && locked == 1 && left == 0)
                default:
                    Issue.record("an inconsistent outcome: right \(rightAnswer.status), wrong \(wrongAnswer.status)")
                }
                if rightAnswer.status == 200 {
                    #expect((try? SHLManifest(json: rightAnswer.body))?.files.count == 1)
                }
                // The wallet's list says the same.
                let listed = try #require(try await setup.wallet.links().first { $0.id == record.id })
                #expect(listed.status == (left == 0 ? "locked" : "active") && listed.remainingAttempts == left)
                let outcomes = Dictionary(listed.accesses.map { ($0.recipient, $0.outcome) }, uniquingKeysWith: { first, _ in first })
                #expect(outcomes["Right \(record.id.prefix(6))"] == (rightAnswer.status == 200 ? "opened" : "refused-locked"))
                #expect(outcomes["Wrong \(record.id.prefix(6))"] == "wrong-passcode")
            }
            // The audit entries about the wallet match the access log, request by request.
            let events = try await Self.linkAuditEvents(setup)
            for record in records {
                let listed = try #require(try await setup.wallet.links().first { $0.id == record.id })
                for access in listed.accesses {
                    let matching = events.filter { $0.agent == access.recipient }
                    #expect(matching.count == 1, "\(access.recipient): \(matching)")
                    if access.outcome == "opened" {
                        #expect(matching.first?.outcome == "0" && matching.first?.reason == nil)
                    } else {
                        #expect(matching.first?.outcome != "0" && matching.first?.reason == access.outcome)
                    }
                }
            }
            #expect(events.count == 2 * rounds)
        }
    }

    // MARK: 13. Requests while the last attempt is being evaluated

    /// A link with one attempt left: right passcodes sent at once, and its file location fetched
    /// meanwhile. Each right passcode takes the last attempt while scrypt checks it, so before
    /// SharedLinkPasscodeGate the others read the link as locked and were answered 404 (logged
    /// `refused-locked`), and the location too. Now every request is served, the log holds only
    /// openings, and the link keeps its attempt.
    @Test(arguments: TestBackend.available)
    func requestsArrivingWhileTheLastAttemptIsEvaluatedSeeTheLinkOpen(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let rounds = 3, parallel = 4
            for round in 0..<rounds {
                let record = try await Limits.newLink(setup, passcode: "right", attempts: 1)
                let location = try await Limits.location(record, passcode: "right")
                let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                    for index in 0..<parallel {
                        group.addTask {
                            ("manifest", try await Hosting.manifestRequest(record.manifestURL, recipient: "Dr. \(round)-\(index)", passcode: "right").status)
                        }
                        group.addTask { ("location", try await HTTPExchange.send(.GET, location).status) }
                    }
                    var statuses: [(String, Int)] = []
                    for try await status in group { statuses.append(status) }
                    return statuses
                }
                #expect(statuses.count == 2 * parallel)
                #expect(statuses.allSatisfy { $0.1 == 200 }, "round \(round): \(statuses)")
                let store = setup.world.store
                #expect(try await Limits.accessCount(record.id, outcome: "opened", in: store) == 1 + parallel)
                #expect(try await Limits.accessCount(record.id, in: store) == 1 + parallel)
                #expect(try #require(try await store.sharedLink(id: record.id)).attemptsLeft == 1)
            }
        }
    }

    /// The gate lets one request in at a time per link, and forgets a
    /// link once no one is inside or waiting.
    @Test func theGateRunsOneRequestPerLinkAtATimeAndForgetsIdleLinks() async {
        let gate = SharedLinkPasscodeGate()
        // Per link: how many requests are inside now, the most ever, and how many entered.
        final class Inside: Sendable {
            let links = Mutex<[String: (now: Int, most: Int, entered: Int)]>([:])
        }
        let inside = Inside()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let link = index % 2 == 0 ? "even" : "odd"
                group.addTask {
                    await gate.serialized(link) {
                        inside.links.withLock { links in
                            var entry = links[link] ?? (0, 0, 0)
                            entry.now += 1
                            entry.most = max(entry.most, entry.now)
                            entry.entered += 1
                            links[link] = entry
                        }
                        await Task.yield()
                        inside.links.withLock { $0[link]?.now -= 1 }
                    }
                }
            }
        }
        let links = inside.links.withLock { $0 }
        #expect(links.count == 2)
        for (link, entry) in links {
            #expect(entry.most == 1 && entry.now == 0 && entry.entered == 20, "\(link): \(entry)")
        }
        #expect(gate.linksHeld == 0)
    }

    // MARK: The viewer on loopback

    /// The viewer reaches plain-HTTP links servers on this machine as `127.0.0.1` and
    /// `localhost` only: a bracketed IPv6 source (`http://[::1]:*`) is not valid in a content
    /// security policy (Chromium ignores it with a console error, and would block the requests
    /// anyway), so the script refuses `[::1]` with its own message instead of a policy violation;
    /// the policy and the script allow the same hosts.
    @Test func theViewerPolicyAndScriptAllowTheSameLoopbackHosts() {
        let policy = ViewerController.contentSecurityPolicy
        let connect = policy.split(separator: ";").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("connect-src") } ?? ""
        let sources = connect.split(separator: " ").map(String.init)
        #expect(sources.filter { $0.hasPrefix("http:") }.sorted() == ["http://127.0.0.1:*", "http://localhost:*"], "\(connect)")
        #expect(!policy.contains("["), "\(policy)")
        #expect(ViewerAssets.script.contains(#"url.hostname === "127.0.0.1" || url.hostname === "localhost")"#))
        #expect(!ViewerAssets.script.contains("::1"))
    }
}
