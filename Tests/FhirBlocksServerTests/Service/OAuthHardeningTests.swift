import ExactJSON
import Foundation
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Testing
import TestSupport

/// Issue 33's OAuth and SMART points on the service (both stores; scripted clock): RFC 7009
/// revocation of refresh tokens, per-address and per-client allowances, anonymous events
/// counted rather than logged, expiry of pending requests and of clients never approved,
/// user-code guessing, no redirect before a request is stored, introspection by the token's
/// own client only, and a code presented by another client used up.
@Suite struct OAuthHardeningTests {
    // MARK: Helpers

    /// `POST /oauth/revoke` with `token` and an optional `token_type_hint`, by the public client `client`.
    static func revoke(_ world: TestWorld, _ token: String, hint: String?, client: String) async -> ServiceResponse {
        await world.revoke(token, publicClient: client, hint: hint)
    }

    /// `POST /oauth/introspect` of `token`, authenticated with `bearer`.
    static func introspect(_ world: TestWorld, _ token: String, with bearer: String) async -> JSONObject {
        world.json(await world.service.introspect(ServiceRequest(method: "POST", path: "/oauth/introspect", headers: ["authorization": "Bearer \(bearer)"],
                                                                 body: TestWorld.form([("token", token)]))))
    }

    /// A fresh approval of `client` by `wallet` (its own `state`, so its own family), exchanged:
    /// the access and refresh tokens.
    static func tokens(_ world: TestWorld, wallet: TestParty, client: String, state: String) async throws -> (access: String, refresh: String) {
        let code = try await world.approvedCode(wallet: wallet, client: client, state: state)
        let response = await world.exchange(client: client, code: code)
        try #require(response.status == 200, "exchange: \(String(decoding: response.body, as: UTF8.self))")
        let body = world.json(response)
        return (try #require(body["access_token"]?.stringValue), try #require(body["refresh_token"]?.stringValue))
    }

    static func auditEntries(_ store: any TrustStore) async throws -> [AuditEntry] {
        try await store.auditRecords(from: 0, limit: 100_000).map { try AuditEntry(canonicalBytes: $0.canonicalBytes) }
    }

    // MARK: 1. RFC 7009: refresh tokens

    /// Whatever the hint says (none, right, wrong, unknown), revoking a refresh token kills it,
    /// the tokens rotated before it and every access token of its approval, and nothing else.
    @Test(arguments: TestBackend.available)
    func revokingARefreshTokenRevokesItsFamily(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.walletWithObservation()
            let client = try await world.registerSmartClient()
            // Another approval of the same client: a family that must survive, and a caller
            // entitled to introspect this client's tokens.
            let bystander = try await Self.tokens(world, wallet: wallet, client: client, state: "bystander")
            for (index, hint) in [nil, "refresh_token", "access_token", "bogus"].enumerated() {
                let first = try await Self.tokens(world, wallet: wallet, client: client, state: "family-\(index)")
                // Rotate once: the family spans both access tokens and the live refresh token.
                let rotated = world.json(await world.refresh(client: client, token: first.refresh))
                let access = try #require(rotated["access_token"]?.stringValue)
                let refresh = try #require(rotated["refresh_token"]?.stringValue)
                #expect(await Self.introspect(world, access, with: bystander.access)["active"] == .bool(true))

                let revoked = await Self.revoke(world, refresh, hint: hint, client: client)
                #expect(revoked.status == 200 && String(decoding: revoked.body, as: UTF8.self) == "{}", "hint \(hint ?? "none")")

                let again = await world.refresh(client: client, token: refresh)
                #expect(again.status == 400 && world.json(again)["error"]?.stringValue == "invalid_grant", "hint \(hint ?? "none")")
                for token in [first.access, access] {
                    #expect(await Self.introspect(world, token, with: bystander.access)["active"] == .bool(false), "hint \(hint ?? "none")")
                    #expect(await world.fhir("GET", "Observation", token: token).status == 401, "hint \(hint ?? "none")")
                }
            }
            // The other family is untouched.
            #expect(await world.fhir("GET", "Observation", token: bystander.access).status == 200)
            #expect(await world.refresh(client: client, token: bystander.refresh).status == 200)
            // An access token revoked under the refresh-token hint is revoked all the same;
            // an unknown token is 200 too.
            let other = try await Self.tokens(world, wallet: wallet, client: client, state: "access-only")
            #expect(await Self.revoke(world, other.access, hint: "refresh_token", client: client).status == 200)
            #expect(await world.fhir("GET", "Observation", token: other.access).status == 401)
            #expect(await Self.revoke(world, "no-such-token", hint: "refresh_token", client: client).status == 200)
            #expect(try await Self.auditEntries(world.store).filter { $0.reason == "refresh-token-revoked" }.count == 4)
        }
    }

    // MARK: 2. Allowances per address and per client; clients never approved expire

    /// One address spending its registration and authorization allowances does not refuse
    /// another address (service level: the address the middleware binds).
    @Test func oneAddressDoesNotShutOutAnother() async throws {
        let world = try await TestWorld.make(.sqlite) {
            $0.registrationRate = RateLimit(perSecond: 1, burst: 3)
            $0.authorizationRate = RateLimit(perSecond: 1, burst: 3)
        }
        try await withTeardown({ await world.close() }) {
            let body = Array(#"{"redirect_uris":["https://app.example/cb"]}"#.utf8)
            func register(from address: String) async -> Int {
                await ClientAddress.$current.withValue(address) {
                    await world.service.registerClient(ServiceRequest(method: "POST", path: "/oauth/register", body: body)).status
                }
            }
            for _ in 0..<3 { #expect(await register(from: "10.0.0.1") == 201) }
            #expect(await register(from: "10.0.0.1") == 429)
            #expect(await register(from: "10.0.0.2") == 201)

            let client = try await world.registerSmartClient()
            let second = try await world.registerSmartClient()
            func authorize(_ client: String, _ state: String, from address: String) async -> ServiceResponse {
                await ClientAddress.$current.withValue(address) {
                    await world.authorize(world.authorizeQuery(client: client, state: state), json: true)
                }
            }
            for index in 0..<3 { #expect(await authorize(client, "a\(index)", from: "10.0.0.1").status == 200) }
            let refused = await authorize(client, "a3", from: "10.0.0.1")
            #expect(refused.status == 429 && !refused.headers.contains { $0.0 == "Location" })
            #expect(world.json(refused)["error"]?.stringValue == "temporarily_unavailable")
            // Another address, another client: served.
            #expect(await authorize(second, "b0", from: "10.0.0.2").status == 200)
            // Per client too: the first client from yet another address has spent its allowance.
            #expect(await authorize(client, "c0", from: "10.0.0.3").status == 429)
            #expect(await authorize(second, "c0", from: "10.0.0.3").status == 200)
        }
    }

    /// A full server forgets the clients registered over a day ago that no wallet approved, and
    /// registers again; clients that were approved, or are younger, are kept.
    @Test(arguments: TestBackend.available)
    func clientsNeverApprovedExpireAndTheCapReopens(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend) { $0.maximumSmartClients = 3 }
        try await withTeardown({ await world.close() }) {
            let wallet = try await world.walletWithObservation()
            let approved = try await world.registerSmartClient()
            let abandoned = try await world.registerSmartClient()
            _ = try await world.approvedCode(wallet: wallet, client: approved)
            world.clock.advance(seconds: 86_401)
            let young = try await world.registerSmartClient()
            #expect(try await world.store.smartClientCount() == 2)   // the abandoned one went with that registration
            let abandonedID = try #require(CsiGuid(abandoned))
            #expect(try await world.store.smartClient(abandonedID) == nil)
            _ = try await world.registerSmartClient()
            // Full (3): nothing stale left, refused.
            let body = Array(#"{"redirect_uris":["https://app.example/cb"]}"#.utf8)
            #expect(await world.service.registerClient(ServiceRequest(method: "POST", path: "/oauth/register", body: body)).status == 429)
            // A day later the two young ones are stale: the cap reopens.
            world.clock.advance(seconds: 86_401)
            #expect(await world.service.registerClient(ServiceRequest(method: "POST", path: "/oauth/register", body: body)).status == 201)
            let approvedID = try #require(CsiGuid(approved))
            let youngID = try #require(CsiGuid(young))
            #expect(try await world.store.smartClient(approvedID) != nil)
            #expect(try await world.store.smartClient(youngID) == nil)
            #expect(try await world.store.smartClientCount() == 2)
        }
    }

    // MARK: 3. Anonymous events are counted; pending requests expire

    /// N registrations, N new `/authorize` requests and N refused decisions of a wallet add no
    /// entry each: they are counted, and written as a few aggregate entries at the flush.
    @Test(arguments: TestBackend.available)
    func anonymousEventsAreCountedNotLogged(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let before = try await world.store.auditCount()
            let count = 8   // within the per-wallet guess burst (10)
            var clients: [String] = []
            for _ in 0..<count { clients.append(try await world.registerSmartClient()) }
            for (index, client) in clients.enumerated() { _ = try await world.userCode(world.authorizeQuery(client: client, state: "s\(index)")) }
            for _ in 0..<count { #expect(try await world.decide(wallet, code: "BCDF-GHJK", .approve).status == 404) }
            // The wallet's own signed requests are still logged where they act (none here).
            #expect(try await world.store.auditCount() == before)
            await world.service.flushRefusals()
            let written = Array(try await Self.auditEntries(world.store).dropFirst(before))
            #expect(written.count == 3)
            #expect(written.allSatisfy { $0.agent == AuditEntry.unverifiedAgent && $0.count == count })
            #expect(Set(written.map(\.type)) == [.clientRegistration, .authorizationRequested, .authorizationDecided])
        }
    }

    /// A dead refresh token or code presented again and again writes one revocation entry,
    /// then only counts.
    @Test(arguments: TestBackend.available)
    func reusingDeadTokensOverAndOverDoesNotGrowTheLog(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.walletWithObservation()
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let first = world.json(await world.exchange(client: client, code: code))
            let rotated = try #require(first["refresh_token"]?.stringValue)
            #expect(await world.refresh(client: client, token: rotated).status == 200)
            for _ in 0..<5 {
                #expect(await world.refresh(client: client, token: rotated).status == 400)
                #expect(await world.exchange(client: client, code: code).status == 400)
            }
            let reasons = try await Self.auditEntries(world.store).compactMap(\.reason)
            #expect(reasons.filter { $0 == "refresh-token-reused" || $0 == "code-reused" }.count == 1)
            await world.service.flushRefusals()
            let counted = try await Self.auditEntries(world.store).filter { $0.agent == AuditEntry.unverifiedAgent && $0.type == .permissionRevoke }
            #expect(counted.map { $0.count ?? 0 }.reduce(0, +) == 9)
        }
    }

    /// A pending request whose wait ended is deleted with the next new request; one still
    /// waiting, and decided ones, are kept.
    @Test(arguments: TestBackend.available)
    func pendingRequestsPastTheirLifetimeAreDeleted(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let client = try await world.registerSmartClient()
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let oldCode = try await world.userCode(world.authorizeQuery(client: client, state: "old"))
            let oldStored = try #require(UserCode.normalize(oldCode))
            let oldID = try #require(try await world.store.smartAuthorization(userCode: oldStored)?.id)
            let declined = try await world.userCode(world.authorizeQuery(client: client, state: "declined"))
            #expect(try await world.decide(wallet, code: declined, .decline).status == 200)
            world.clock.advance(seconds: 601)
            _ = try await world.userCode(world.authorizeQuery(client: client, state: "new"))
            #expect(try await world.store.smartAuthorization(id: oldID) == nil)
            let declinedStored = try #require(UserCode.normalize(declined))
            #expect(try await world.store.smartAuthorization(userCode: declinedStored)?.status == .declined)
            // The same URL again is a new request with a new code, waiting.
            let renewed = await world.authorize(world.authorizeQuery(client: client, state: "old"), json: true)
            #expect(renewed.status == 200 && world.json(renewed)["expires_in"] == .number("600"))
        }
    }

    // MARK: 4. User codes

    /// Decided (by this wallet or another), expired and unknown codes get the same status and
    /// body; wrong guesses are limited per address across wallets, and from everyone together.
    @Test func guessesAreLimitedPerAddressAndAnsweredAlike() async throws {
        let world = try await TestWorld.make(.sqlite) { $0.decisionGuessRate = RateLimit(perSecond: 1, burst: 2) }
        try await withTeardown({ await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let other = try await world.register(.wallet("w2", firstName: "B"))
            let client = try await world.registerSmartClient()
            let code = try await world.userCode(world.authorizeQuery(client: client))
            #expect(try await world.decide(other, code: code, .approve).status == 200)
            func decide(_ party: TestParty, _ typed: String, from address: String) async throws -> ServiceResponse {
                let body = try world.signed(DecideAuthorizationRequest(envelope: world.envelope(party), userCode: typed, decision: .approve,
                                                                       scope: "", endTime: ""), by: party)
                return await ClientAddress.$current.withValue(address) { await world.smoac("permission/decideAuthorization", body: body) }
            }
            let decidedByAnother = try await decide(wallet, code, from: "10.0.0.1")
            let unknown = try await decide(wallet, "BCDF-GHJK", from: "10.0.0.2")
            #expect(decidedByAnother.status == 404 && unknown.status == 404)
            #expect(decidedByAnother.body == unknown.body)
            // Fresh wallets do not buy more guesses from one address.
            let fresh = [try await world.register(.wallet("x1", firstName: "X")), try await world.register(.wallet("x2", firstName: "Y"))]
            #expect(try await decide(fresh[0], "CCCC-DDDD", from: "10.0.0.9").status == 404)
            #expect(try await decide(fresh[1], "CCCC-DDDF", from: "10.0.0.9").status == 404)
            let limited = try await decide(try await world.register(.wallet("x3", firstName: "Z")), "CCCC-DDDG", from: "10.0.0.9")
            #expect(limited.status == 429)
            // From everyone together: at most ten times one caller's allowance (burst 20 here),
            // however many wallets and addresses (4 were counted so far).
            var statuses: [Int] = []
            for index in 0..<20 {
                let guesser = try await world.register(.wallet("g\(index)", firstName: "G"))
                statuses.append(try await decide(guesser, "DDDD-FFF\(["B", "C", "D", "F", "G"][index % 5])", from: "10.1.0.\(index)").status)
            }
            #expect(statuses.filter { $0 == 404 }.count == 16 && statuses.filter { $0 == 429 }.count == 4)
            // A code that waits is still decided.
            let waiting = try await world.userCode(world.authorizeQuery(client: client, state: "w"))
            #expect(try await decide(wallet, waiting, from: "10.0.0.9").status == 200)
        }
    }

    // MARK: 5. No redirect before a request is stored

    /// Every error of an `/authorize` request (the registered client and redirect URI
    /// notwithstanding) is shown, never redirected: HTML, or JSON when asked.
    @Test(arguments: TestBackend.available)
    func requestErrorsAreShownNotRedirected(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let client = try await world.registerSmartClient(redirects: ["https://evil.example/phish"])
            let cases: [(String, String)] = [
                (world.authorizeQuery(client: client, redirect: "https://evil.example/phish", responseType: "token"), "unsupported_response_type"),
                (world.authorizeQuery(client: client, redirect: "https://evil.example/phish", responseType: "code id_token"), "unsupported_response_type"),
                (world.authorizeQuery(client: client, redirect: "https://evil.example/phish", method: "plain"), "invalid_request"),
                (world.authorizeQuery(client: client, redirect: "https://evil.example/phish", aud: "https://elsewhere.example/fhir"), "invalid_request"),
                (world.authorizeQuery(client: client, redirect: "https://evil.example/phish", scope: " "), "invalid_scope"),
                (world.authorizeQuery(client: client, redirect: "https://evil.example/other"), "invalid_redirect_uri"),
            ]
            for (query, error) in cases {
                let page = await world.authorize(query)
                #expect(page.status == 400 && page.contentType.hasPrefix("text/html"), "\(query)")
                #expect(!page.headers.contains { $0.0 == "Location" }, "\(query)")
                let json = await world.authorize(query, json: true)
                #expect(json.status == 400 && world.json(json)["error"]?.stringValue == error, "\(query)")
                #expect(!json.headers.contains { $0.0 == "Location" })
            }
        }
    }

    // MARK: 6. Introspection

    /// Only the client a token was issued to, or an auditor, learns about it.
    @Test(arguments: TestBackend.available)
    func onlyTheTokensClientOrAnAuditorIntrospectsIt(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.walletWithObservation()
            let first = try await world.registerSmartClient()
            let second = try await world.registerSmartClient()
            let mine = try await Self.tokens(world, wallet: wallet, client: first, state: "1")
            let same = try await Self.tokens(world, wallet: wallet, client: first, state: "2")
            let theirs = try await Self.tokens(world, wallet: wallet, client: second, state: "3")
            #expect(await Self.introspect(world, mine.access, with: same.access)["active"] == .bool(true))
            let stranger = await Self.introspect(world, mine.access, with: theirs.access)
            #expect(stranger["active"] == .bool(false) && stranger["client_id"] == nil && stranger["patient"] == nil)
            // The wallet's own token (another client) learns nothing either.
            let walletToken = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.rs conf/V"))["access_token"]?.stringValue)
            #expect(await Self.introspect(world, mine.access, with: walletToken)["active"] == .bool(false))

            // An auditor the server lists does.
            let auditor = try await world.register(.app("auditor"))
            #expect(try await world.grant(from: wallet, to: [auditor], resource: "Observation", sensitivity: []).status == 200)
            let restarted = TrustService(store: world.store, configuration: ServerConfiguration(publicURL: TestWorld.base, auditors: [auditor.csi]),
                                         auditKey: world.service.auditKey, clock: world.clock.trustClock)
            try await restarted.start()
            let auditorWorld = TestWorld(service: restarted, store: world.store, clock: world.clock, backend: world.backend)
            let auditorToken = try #require(auditorWorld.json(try await auditorWorld.clientCredentials(auditor, scope: PermissionScope.auditorScopeText,
                                                                                                       patient: auditor))["access_token"]?.stringValue)
            let audited = await Self.introspect(auditorWorld, mine.access, with: auditorToken)
            #expect(audited["active"] == .bool(true) && audited["client_id"]?.stringValue == first)
        }
    }

    // MARK: 7. A code presented by another client is used up

    @Test(arguments: TestBackend.available)
    func aCodePresentedByAnotherClientIsUsedUp(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.walletWithObservation()
            let client = try await world.registerSmartClient()
            let other = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let wrong = await world.exchange(client: other, code: code)
            #expect(wrong.status == 400 && world.json(wrong)["error"]?.stringValue == "invalid_grant")
            let right = await world.exchange(client: client, code: code)
            #expect(right.status == 400 && world.json(right)["error"]?.stringValue == "invalid_grant")
            #expect(try await world.store.smartAuthorization(codeHash: AccessToken.hash(of: code))?.status == .refused)
        }
    }
}
