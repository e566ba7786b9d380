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
import Testing
import TestSupport

/// The limits and invariants of the hosted SMART Health Links, on each backend: the 128-character
/// manifest URL (a typed refusal when the public URL is too long), one transaction for a
/// request's access log row and its audit entry, openings never pushed out of the access log by
/// refusals, every link listed page by page, file locations that stop with their link, the
/// polling limiter's bounds, and the public endpoints' headers on every answer.
@Suite("Shared link hosting: limits and invariants")
struct SharedLinkLimitsTests {
    typealias Hosting = SharedLinkHostingTests

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `statements` on the store's own database (a bulk fill, a trigger), outside the
    /// server, in one transaction.
    static func execute(_ statements: String..., in store: any TrustStore) async throws {
        try await execute(statements, in: store)
    }

    static func execute(_ statements: [String], in store: any TrustStore) async throws {
        if let sqlite = store as? SQLiteTrustStore {
            try await sqlite.write { db in
                for sql in statements { try db.execute(sql: sql) }
            }
        } else {
            let postgres = try #require(store as? PostgresTrustStore)
            try await postgres.withTransaction { connection, logger in
                for sql in statements { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
            }
        }
    }

    /// A trigger that refuses every insert into `table` (an `ABORT` in SQLite, an exception in
    /// PostgreSQL), and the statements that remove it.
    static func failingInserts(into table: String, backend: TestBackend) -> (create: [String], drop: [String]) {
        switch backend {
        case .sqlite:
            (["CREATE TRIGGER fail_\(table) BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"],
             ["DROP TRIGGER fail_\(table)"])
        case .postgres:
            (["CREATE FUNCTION fail_\(table)() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql",
              "CREATE TRIGGER fail_\(table) BEFORE INSERT ON \(table) FOR EACH ROW EXECUTE FUNCTION fail_\(table)()"],
             ["DROP TRIGGER fail_\(table) ON \(table)", "DROP FUNCTION fail_\(table)()"])
        }
    }

    static func count(_ sql: String, in store: any TrustStore) async throws -> Int {
        if let sqlite = store as? SQLiteTrustStore {
            return try await sqlite.write { db in try Int.fetchOne(db, sql: sql) ?? -1 }
        }
        let postgres = try #require(store as? PostgresTrustStore)
        return try await postgres.withTransaction { connection, logger in
            var total = -1
            for try await (value) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int64.self) { total = Int(value) }
            return total
        }
    }

    static func accessCount(_ id: String, outcome: String? = nil, in store: any TrustStore) async throws -> Int {
        let kind = outcome.map { " AND outcome = '\($0)'" } ?? ""
        return try await count("SELECT COUNT(*) FROM shared_link_access WHERE link_id = '\(id)'\(kind)", in: store)
    }

    static func header(_ headers: [(String, String)], _ name: String) -> String? { Hosting.header(headers, name) }

    /// Whether an answer carries the public link endpoints' headers.
    static func hasPublicHeaders(_ headers: [(String, String)]) -> Bool {
        header(headers, "Access-Control-Allow-Origin") == "*" && header(headers, "Cache-Control") == "no-store"
    }

    static func newLink(_ setup: Hosting.Setup, passcode: String? = nil, attempts: Int? = nil, expiresIn: TimeInterval? = nil,
                        longTerm: Bool = false) async throws -> SharedLinkRecord {
        try await setup.wallet.createLink(SharedLinkRequest(files: try Hosting.files([(SHLContentType.fhirJSON, Hosting.summary)], key: SHLink.newKey()),
                                                            passcode: passcode, attempts: attempts,
                                                            expires: expiresIn.map { setup.now.addingTimeInterval($0) }, longTerm: longTerm))
    }

    /// The location of the manifest's first file (none embedded).
    static func location(_ record: SharedLinkRecord, passcode: String? = nil) async throws -> String {
        let manifest = try SHLManifest(json: try await Hosting.manifestRequest(record.manifestURL, passcode: passcode).body)
        guard case .location(let url) = try #require(manifest.files.first).source else { throw Failure(description: "no location") }
        return url
    }

    // MARK: 1. The manifest URL's length

    @Test(arguments: TestBackend.available)
    func aPublicURLThatMakesManifestURLsLongerThan128CharactersRefusesToCreateLinks(backend: TestBackend) async throws {
        let jwe = try SHLFile.encrypt(Hosting.summary, contentType: SHLContentType.fhirJSON, key: SHLink.newKey())
        let body = Array(#"{"files":[{"contentType":"application/fhir+json","jwe":"\#(jwe)"}]}"#.utf8)
        // 80 characters of public URL: a manifest URL of exactly 128 is accepted; 81 is refused.
        for length in [80, 81] {
            let publicURL = "https://links.example/" + String(repeating: "p", count: length - 22)
            let world = try await TestWorld.make(backend, publicURL: publicURL)
            try await withTeardown({ await world.close() }) {
                let wallet = try await world.register(.wallet("links-\(length)", firstName: "Ana"))
                let tokenAnswer = try await world.clientCredentials(wallet, scope: WalletClient.ownerScope, patient: wallet,
                                                                    audience: publicURL + "/oauth/token")
                let token = try #require(world.json(tokenAnswer)["access_token"]?.stringValue, "\(String(decoding: tokenAnswer.body, as: UTF8.self))")
                let authorization = ("Authorization", "Bearer \(token)")
                let answer = await world.router.send("POST", "/shl-links", headers: [authorization, ("Content-Type", "application/json")], body: body)
                let object = world.json(answer)
                if length == 80 {
                    #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
                    #expect(object["manifestURL"]?.stringValue?.count == 128)
                } else {
                    #expect(answer.status == 409)
                    #expect(object["error"]?.stringValue == WalletClient.publicURLTooLongError)
                    let words = object["error_description"]?.stringValue ?? ""
                    #expect(words.contains("would have 129 characters") && words.contains("at most 80 characters") && words.contains("(this one has 81)"),
                            "\(words)")
                    // Nothing was stored.
                    let listed = await world.router.send("GET", "/shl-links", headers: [authorization])
                    #expect(world.json(listed)["links"]?.arrayValue?.isEmpty == true)
                    // The client recognises the refusal by its type.
                    let error = FhirBlocksClientError.http(endpoint: "shl-links", status: answer.status, error: object["error"]?.stringValue,
                                                           errorDescription: words)
                    #expect(error.isPublicURLTooLong)
                    #expect(!FhirBlocksClientError.http(endpoint: "shl-links", status: 400, error: "invalid_request", errorDescription: nil).isPublicURLTooLong)
                }
            }
        }
    }

    // MARK: 4. The access log row and the audit entry: one transaction

    @Test(arguments: TestBackend.available)
    func aRequestsAccessLogRowAndAuditEntryAreStoredTogetherOrNotAtAll(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let store = setup.world.store
            let record = try await Self.newLink(setup, passcode: "right")
            #expect(try await Hosting.manifestRequest(record.manifestURL, passcode: "right").status == 200)
            await setup.world.service.finishAuditWrites()
            let audit = try await store.auditCount()
            #expect(try await Self.accessCount(record.id, in: store) == 1)
            // The access log refuses the row: the audit entry is rolled back with it (500, with
            // the public headers).
            for table in ["shared_link_access", "audit_entry"] {
                let trigger = Self.failingInserts(into: table, backend: backend)
                try await Self.execute(trigger.create, in: store)
                let failed = try await Hosting.manifestRequest(record.manifestURL, passcode: "right")
                #expect(failed.status == 500, "\(table)")
                #expect(Self.hasPublicHeaders(failed.headers), "\(table): \(failed.headers)")
                // A refusal is still answered; its record fails alike, both parts.
                let refused = try await Hosting.manifestRequest(record.manifestURL, recipient: "Mallory", passcode: "nope")
                #expect(refused.status == 401, "\(table)")
                await setup.world.service.finishAuditWrites()
                #expect(try await store.auditCount() == audit, "\(table): no audit entry without its access row")
                #expect(try await Self.accessCount(record.id, in: store) == 1, "\(table): no access row without its audit entry")
                try await Self.execute(trigger.drop, in: store)
            }
            // Both stored once the database takes them again.
            #expect(try await Hosting.manifestRequest(record.manifestURL, passcode: "right").status == 200)
            await setup.world.service.finishAuditWrites()
            #expect(try await store.auditCount() == audit + 1)
            #expect(try await Self.accessCount(record.id, in: store) == 2)
            let entries = try await store.auditRecords(from: audit, limit: 1)
            let entry = try AuditEntry(canonicalBytes: try #require(entries.first).canonicalBytes)
            #expect(entry.type == .sharedLinkAccess && entry.agent == "Dr. Who" && entry.outcome == .success)
        }
    }

    // MARK: 6. Refusals never push openings out of the access log

    @Test(arguments: TestBackend.available)
    func refusalsNeverPushOpeningsOutOfTheAccessLog(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let store = setup.world.store
            let record = try await Self.newLink(setup, passcode: "right", attempts: 1_000)
            #expect(try await Hosting.manifestRequest(record.manifestURL, recipient: "Dr. Lee", passcode: "right").status == 200)
            #expect(try await Hosting.manifestRequest(record.manifestURL, recipient: "Dr. Kim", passcode: "right").status == 200)
            // 1,200 refusals already in the log (written straight into the database), then one
            // more through the server: the refusals are cut to 1,000, the two openings stay.
            try await Self.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
                INSERT INTO shared_link_access (id, link_id, recipient, at, outcome)
                SELECT 'r' || (100000 + i), '\(record.id)', 'Mallory', \(setup.world.now.millisecondsSince1970) + i, 'wrong-passcode' FROM n
                """, in: store)
            #expect(try await Self.accessCount(record.id, in: store) == 1_202)
            try await setup.advance(seconds: 5)
            #expect(try await Hosting.manifestRequest(record.manifestURL, recipient: "Eve", passcode: "wrong").status == 401)
            #expect(try await Self.accessCount(record.id, outcome: "opened", in: store) == 2)
            #expect(try await Self.accessCount(record.id, in: store) == 2 + LinkSQL.refusalLogLimit)
            // The owner's list shows the openings beside the latest refusals.
            let listed = try #require(try await setup.wallet.links().first)
            #expect(Set(listed.accesses.filter(\.opened).map(\.recipient)) == ["Dr. Lee", "Dr. Kim"])
            #expect(listed.accesses.filter { !$0.opened }.count == SharedLinkHost.accessesListed)
            #expect(listed.accesses.first?.recipient == "Eve" && listed.accesses.first?.outcome == "wrong-passcode")
            #expect(listed.accesses.map(\.at) == listed.accesses.map(\.at).sorted(by: >))
            // Openings have their own cap: beyond it, the oldest openings go, refusals stay.
            try await Self.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100)
                INSERT INTO shared_link_access (id, link_id, recipient, at, outcome)
                SELECT 'o' || (100000 + i), '\(record.id)', 'Clinic', \(setup.world.now.millisecondsSince1970) + i, 'opened' FROM n
                """, in: store)
            try await setup.advance(seconds: 5)
            #expect(try await Hosting.manifestRequest(record.manifestURL, recipient: "Dr. Lee", passcode: "right").status == 200)
            #expect(try await Self.accessCount(record.id, outcome: "opened", in: store) == LinkSQL.openedLogLimit)
            #expect(try await Self.accessCount(record.id, in: store) == LinkSQL.openedLogLimit + LinkSQL.refusalLogLimit)
        }
    }

    // MARK: 8. Every link listed, page by page

    @Test(arguments: TestBackend.available)
    func everyLinkIsListedPageByPage(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let store = setup.world.store
            let newest = try await Self.newLink(setup)
            let owner = try #require(try await store.sharedLink(id: newest.id)).owner
            // 1,200 older links straight into the database, three to a millisecond (the id breaks ties).
            let created = setup.world.now.millisecondsSince1970 - 100_000
            try await Self.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
                INSERT INTO shared_link (id, owner, flags, label, expires_at, created_at, updated_at, passcode_hash, attempts_left, revoked_at)
                SELECT '\(String(repeating: "A", count: 36))' || (1000000 + i), '\(owner.rawValue)', '', NULL, NULL,
                       \(created) + i / 3, \(created) + i / 3, NULL, NULL, NULL FROM n
                """, in: store)
            let first = try await setup.wallet.linksPage()
            #expect(first.links.count == SharedLinkHost.maximumListed && first.links.first?.id == newest.id)
            let cursor = try #require(first.next)
            let second = try await setup.wallet.linksPage(cursor: cursor)
            #expect(second.links.count == SharedLinkHost.maximumListed && second.next != nil)
            let all = try await setup.wallet.links()
            #expect(all.count == 1_201)
            #expect(Set(all.map(\.id)).count == 1_201)
            #expect(Array(all.prefix(1_000)) == first.links + second.links)
            // Newest first: by creation time, then id.
            #expect(zip(all, all.dropFirst()).allSatisfy { ($0.created, $0.id) >= ($1.created, $1.id) })
            // The store pages alike from any link.
            let page = try await store.sharedLinks(owner: owner, limit: 10,
                                                   after: SharedLinkListPosition(after: try #require(try await store.sharedLink(id: all[600].id))))
            #expect(page.map(\.id) == all[601..<611].map(\.id))
            // A cursor the server did not write is refused.
            let token = try await setup.wallet.token().accessToken
            for bad in ["x", "1.short", "-1.\(newest.id)", "12345678901234567890.\(newest.id)", "\(created).\(newest.id).1"] {
                let answer = try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl-links?cursor=" + bad,
                                                         headers: [("Authorization", "Bearer \(token)")])
                #expect(answer.status == 400, "\(bad)")
            }
            #expect(SharedLinkHost.position(cursor: SharedLinkHost.cursor(SharedLinkListPosition(createdAt: setup.world.now, id: newest.id)))
                    == SharedLinkListPosition(createdAt: setup.world.now, id: newest.id))
        }
    }

    // MARK: 9. File locations stop with their link

    @Test(arguments: TestBackend.available)
    func aFileLocationIsNotFoundOnceItsLinkIsLockedRevokedOrExpired(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            // Locked: the location was handed out with the right passcode, then the wrong ones used the budget up.
            let locked = try await Self.newLink(setup, passcode: "right", attempts: 2)
            let lockedURL = try await Self.location(locked, passcode: "right")
            #expect(try await HTTPExchange.send(.GET, lockedURL).status == 200)
            for _ in 0..<2 { #expect(try await Hosting.manifestRequest(locked.manifestURL, passcode: "wrong").status == 401) }
            let lockedAnswer = try await HTTPExchange.send(.GET, lockedURL)
            #expect(lockedAnswer.status == 404 && Self.hasPublicHeaders(lockedAnswer.headers))
            // Revoked.
            let revoked = try await Self.newLink(setup)
            let revokedURL = try await Self.location(revoked)
            #expect(try await HTTPExchange.send(.GET, revokedURL).status == 200)
            try await setup.wallet.revokeLink(id: revoked.id)
            #expect(try await HTTPExchange.send(.GET, revokedURL).status == 404)
            // Expired: the link ends ten minutes in, well within the location's hour.
            let expiring = try await Self.newLink(setup, expiresIn: 600)
            let expiringURL = try await Self.location(expiring)
            try await setup.advance(seconds: 599)
            #expect(try await HTTPExchange.send(.GET, expiringURL).status == 200)
            try await setup.advance(seconds: 1)
            #expect(try await HTTPExchange.send(.GET, expiringURL).status == 404)
            // The same 404 as an unknown location's.
            let unknown = try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl/file/" + SHLink.newManifestID())
            #expect(try await HTTPExchange.send(.GET, expiringURL).body == unknown.body)
        }
    }

    // MARK: 7. The public endpoints' headers on every answer

    @Test(arguments: TestBackend.available)
    func refusalsOfThePublicEndpointsCarryCORSAndNoStore(backend: TestBackend) async throws {
        try await Hosting.with(backend) { setup in
            let record = try await Self.newLink(setup, longTerm: true)
            // 413: the body limit, before the handler.
            let huge = try await HTTPExchange.send(.POST, record.manifestURL, headers: [("Content-Type", "application/json")],
                                                   body: Array(repeating: UInt8(ascii: " "), count: 20_000))
            #expect(huge.status == 413 && Self.hasPublicHeaders(huge.headers), "\(huge.headers)")
            // 429: a long-term link polled too fast.
            #expect(try await Hosting.manifestRequest(record.manifestURL).status == 200)
            let tooFast = try await Hosting.manifestRequest(record.manifestURL)
            #expect(tooFast.status == 429 && Self.hasPublicHeaders(tooFast.headers) && Self.header(tooFast.headers, "Retry-After") == "60")
            #expect(Self.header(tooFast.headers, "Access-Control-Expose-Headers")?.contains("Retry-After") == true)
            // A path under /shl that no route serves.
            let stray = try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl/a/b/c")
            #expect(stray.status == 404 && Self.hasPublicHeaders(stray.headers))
            // The wallet's management endpoints are not public: no open CORS there.
            let management = try await HTTPExchange.send(.GET, setup.server.baseURL + "/shl-links")
            #expect(management.status == 401 && Self.header(management.headers, "Access-Control-Allow-Origin") == nil)
        }
        // 429: the per-address rate limit, which answers before any route.
        let world = try await TestWorld.make(.sqlite, configure: { $0.rateLimitPerAddress = RateLimit(perSecond: 1, burst: 2) })
        try await withTeardown({ await world.close() }) {
            let path = "/shl/" + SHLink.newManifestID()
            let body = SHLManifestRequest(recipient: "Dr. Who").json
            for _ in 0..<2 { #expect(await world.router.send("POST", path, headers: [("Content-Type", "application/json")], body: body).status == 404) }
            let limited = await world.router.send("POST", path, headers: [("Content-Type", "application/json")], body: body)
            #expect(limited.status == 429 && Self.hasPublicHeaders(limited.headers) && Self.header(limited.headers, "Retry-After") != nil,
                    "\(limited.headers)")
        }
    }

    // MARK: 5. The polling limiter

    @Test func thePollLimiterHoldsPerRecipientAndPerLink() {
        let limiter = SharedLinkPollLimiter(intervalSeconds: 60, recipientsPerLink: 3, maximumLinks: 100)
        let start = Timestamp(secondsSince1970: 1_800_000_000)
        #expect(limiter.reserve(link: "a", recipient: "r1", now: start) == .allowed)
        #expect(limiter.reserve(link: "a", recipient: "r1", now: start) == .wait(seconds: 60))
        #expect(limiter.reserve(link: "a", recipient: "r1", now: start.adding(seconds: 59)) == .wait(seconds: 1))
        #expect(limiter.reserve(link: "a", recipient: "r1", now: start.adding(milliseconds: 59_001)) == .wait(seconds: 1))
        #expect(limiter.reserve(link: "a", recipient: "r1", now: start.adding(seconds: 60)) == .allowed)
        // Three recipients a minute per link: a fourth name (or a new name per request) waits
        // until the oldest poll ends; another link is not held back.
        let later = start.adding(seconds: 100)
        #expect(limiter.reserve(link: "b", recipient: "x1", now: later) == .allowed)
        #expect(limiter.reserve(link: "b", recipient: "x2", now: later.adding(seconds: 10)) == .allowed)
        #expect(limiter.reserve(link: "b", recipient: "x3", now: later.adding(seconds: 20)) == .allowed)
        #expect(limiter.reserve(link: "b", recipient: "x4", now: later.adding(seconds: 30)) == .wait(seconds: 30))
        #expect(limiter.reserve(link: "c", recipient: "x4", now: later.adding(seconds: 30)) == .allowed)
        #expect(limiter.reserve(link: "b", recipient: "x4", now: later.adding(seconds: 60)) == .allowed)
        #expect(limiter.recipientCount(link: "b") == 3)
        // A poll given back (the request was refused) lets the recipient try again at once.
        #expect(limiter.reserve(link: "d", recipient: "y", now: later) == .allowed)
        limiter.cancel(link: "d", recipient: "y", at: later)
        #expect(limiter.reserve(link: "d", recipient: "y", now: later) == .allowed)
        // A clock that went back waits at most the interval.
        #expect(limiter.reserve(link: "d", recipient: "y", now: later.adding(seconds: -30)) == .wait(seconds: 60))
    }

    @Test func thePollLimiterKeepsABoundedNumberOfLinksAndEvictsTheStalest() {
        let limiter = SharedLinkPollLimiter(intervalSeconds: 60, recipientsPerLink: 2, maximumLinks: 4)
        let start = Timestamp(secondsSince1970: 1_800_000_000)
        for index in 0..<4 { #expect(limiter.reserve(link: "l\(index)", recipient: "r", now: start.adding(seconds: Int64(index))) == .allowed) }
        #expect(limiter.linkCount == 4)
        // A fifth link while all four still hold someone back: the one polled longest ago goes.
        #expect(limiter.reserve(link: "l4", recipient: "r", now: start.adding(seconds: 10)) == .allowed)
        #expect(limiter.linkCount == 4)
        #expect(limiter.recipientCount(link: "l0") == 0 && limiter.recipientCount(link: "l1") == 1)
        // The limit still holds for the links kept.
        #expect(limiter.reserve(link: "l1", recipient: "r", now: start.adding(seconds: 11)) == .wait(seconds: 50))
        // Later, every expired link is dropped at once when room is needed.
        #expect(limiter.reserve(link: "l5", recipient: "r", now: start.adding(seconds: 200)) == .allowed)
        #expect(limiter.linkCount == 1)
        // Many links and many names: never more than the caps.
        for index in 0..<1_000 {
            _ = limiter.reserve(link: "m\(index % 50)", recipient: "n\(index)", now: start.adding(seconds: 300 + Int64(index / 100)))
        }
        #expect(limiter.linkCount <= 4)
        #expect((0..<50).allSatisfy { limiter.recipientCount(link: "m\($0)") <= 2 })
        // Expired recipients are dropped when their link is looked at.
        #expect(limiter.reserve(link: "m49", recipient: "fresh", now: start.adding(seconds: 1_000)) == .allowed)
        #expect(limiter.recipientCount(link: "m49") == 1)
    }
}
