import ExactJSON
import Foundation
import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Testing
import TestSupport

/// SMART App Launch standalone with PKCE on the service (both stores): dynamic registration,
/// `/authorize` waiting for the wallet's signed decision, the code exchange, rotating refresh
/// tokens, and every refusal path. The clock is scripted: no sleeps.
@Suite struct SmartLaunchTests {
    /// A wallet with one Observation, ready to approve.
    private static func walletWithData(_ world: TestWorld) async throws -> TestParty {
        try await world.walletWithObservation()
    }

    @Test(arguments: TestBackend.available)
    func standaloneLaunchWithWalletApproval(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let query = world.authorizeQuery(client: client)

            // The page: the app, the scopes, the code; the same URL as JSON gives the same code.
            let page = await world.authorize(query)
            #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Test app") && html.contains("patient/Observation.rs") && html.contains("http-equiv=\"refresh\""))
            let polled = await world.authorize(query, json: true)
            let code = try #require(world.json(polled)["user_code"]?.stringValue)
            #expect(html.contains(code))
            #expect(world.json(polled)["interval"] == .number("5") && world.json(polled)["expires_in"] == .number("600"))

            // The wallet approves only Observation reads (and offline access) for a week.
            let until = world.now.adding(seconds: 7 * 86_400)
            let decision = try await world.decide(wallet, code: code.lowercased(), .approve, scope: "patient/Observation.rs offline_access", until: until)
            #expect(decision.status == 200, "\(String(decoding: decision.body, as: UTF8.self))")
            #expect(world.json(decision)["status"]?.stringValue == "approved")
            #expect(world.json(decision)["endTime"]?.stringValue == until.wireText)

            // Loading the page again redirects to the app with the code and the state.
            let redirect = await world.authorize(query)
            #expect(redirect.status == 302)
            let parameters = try TestWorld.redirectParameters(redirect)
            #expect(parameters["state"] == "st-1" && parameters["error"] == nil)
            let authorizationCode = try #require(parameters["code"])

            let token = await world.exchange(client: client, code: authorizationCode)
            #expect(token.status == 200, "\(String(decoding: token.body, as: UTF8.self))")
            let body = world.json(token)
            #expect(body["token_type"]?.stringValue == "Bearer")
            #expect(body["patient"]?.stringValue == wallet.csi.rawValue)
            #expect(body["expires_in"] == .number("300"))
            let scope = try #require(body["scope"]?.stringValue)
            #expect(scope.contains("patient/Observation.rs") && scope.contains("offline_access") && !scope.contains("launch/patient"))
            let accessToken = try #require(body["access_token"]?.stringValue)
            let refreshToken = try #require(body["refresh_token"]?.stringValue)

            // The token reads the patient's Observations, and nothing it was not granted.
            let search = await world.fhir("GET", "Observation", token: accessToken)
            #expect(search.status == 200 && String(decoding: search.body, as: UTF8.self).contains("\"o1\""))
            #expect(await world.fhir("GET", "Condition", token: accessToken).status == 403)

            // Refresh rotates: a new pair; the old refresh token is dead.
            world.clock.advance(seconds: 400)
            #expect(await world.fhir("GET", "Observation", token: accessToken).status == 401)
            let refreshed = await world.refresh(client: client, token: refreshToken)
            #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
            let newAccess = try #require(world.json(refreshed)["access_token"]?.stringValue)
            let newRefresh = try #require(world.json(refreshed)["refresh_token"]?.stringValue)
            #expect(newRefresh != refreshToken)
            #expect(await world.fhir("GET", "Observation", token: newAccess).status == 200)

            // Every step is in the audit log (the anonymous ones counted, at the next flush).
            await world.service.flushRefusals()
            let types = try await Self.auditTypes(world)
            for type in [AuditEventType.clientRegistration, .authorizationRequested, .authorizationDecided, .permissionGrant, .codeIssued,
                         .tokenIssued, .tokenRefreshed] {
                #expect(types.contains(type), "\(type)")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func confidentialAsymmetricClient(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let key = CsiSigningKey.generate()
            let client = try await world.registerConfidentialClient(key: key)
            let assertionType = ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType)
            func exchange(_ code: String, assertion: String?) async -> ServiceResponse {
                var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestWorld.redirect), ("code_verifier", TestWorld.verifier)]
                if let assertion { fields += [assertionType, ("client_assertion", assertion)] } else { fields.append(("client_id", client)) }
                return await world.smartToken(fields)
            }
            // Without its assertion, or with one signed by another key: invalid_client.
            let first = try await world.approvedCode(wallet: wallet, client: client)
            let bare = await exchange(first, assertion: nil)
            #expect(bare.status == 401 && world.json(bare)["error"]?.stringValue == "invalid_client")
            #expect(await exchange(first, assertion: try world.clientAssertion(client: client, key: .generate())).status == 401)
            // With it (and the PKCE verifier, which SMART 2.0 asks of every client): tokens.
            let token = await exchange(first, assertion: try world.clientAssertion(client: client, key: key))
            #expect(token.status == 200, "\(String(decoding: token.body, as: UTF8.self))")
            let refreshToken = try #require(world.json(token)["refresh_token"]?.stringValue)
            // Refreshing authenticates too: with a fresh assertion, yes; with client_id alone, no.
            let refreshed = await world.smartToken([("grant_type", "refresh_token"), ("refresh_token", refreshToken), assertionType,
                                                    ("client_assertion", try world.clientAssertion(client: client, key: key))])
            #expect(refreshed.status == 200)
            #expect(await world.refresh(client: client, token: try #require(world.json(refreshed)["refresh_token"]?.stringValue)).status == 401)
            // A public client may not present an assertion.
            let publicClient = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: publicClient, state: "p")
            let withAssertion = await world.smartToken([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestWorld.redirect),
                                                        ("code_verifier", TestWorld.verifier), assertionType,
                                                        ("client_assertion", try world.clientAssertion(client: publicClient, key: key))])
            #expect(withAssertion.status == 401)
        }
    }

    @Test(arguments: TestBackend.available)
    func reusedRefreshTokenRevokesTheFamily(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let first = world.json(await world.exchange(client: client, code: code))
            let refreshToken = try #require(first["refresh_token"]?.stringValue)
            let second = world.json(await world.refresh(client: client, token: refreshToken))
            let liveAccess = try #require(second["access_token"]?.stringValue)
            let liveRefresh = try #require(second["refresh_token"]?.stringValue)
            // The rotated token again: refused, and everything issued from the approval dies.
            let replay = await world.refresh(client: client, token: refreshToken)
            #expect(replay.status == 400 && world.json(replay)["error"]?.stringValue == "invalid_grant")
            #expect(await world.fhir("GET", "Observation", token: liveAccess).status == 401)
            #expect(await world.refresh(client: client, token: liveRefresh).status == 400)
        }
    }

    @Test(arguments: TestBackend.available)
    func refreshAfterRevocationIsRefused(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let token = world.json(await world.exchange(client: client, code: code))
            let access = try #require(token["access_token"]?.stringValue)
            let refreshToken = try #require(token["refresh_token"]?.stringValue)
            // The wallet revokes the app (deletePermission names the client id like any grantee).
            let clientCsi = try #require(CsiGuid(client))
            let revoke = DeletePermissionRequest(envelope: world.envelope(wallet), permissionedGuidBeingDeleted: clientCsi.rawValue)
            #expect(await world.smoac("permission/deletePermission", body: try world.signed(revoke, by: wallet)).status == 200)
            #expect(await world.fhir("GET", "Observation", token: access).status == 401)
            let refused = await world.refresh(client: client, token: refreshToken)
            #expect(refused.status == 400 && world.json(refused)["error"]?.stringValue == "invalid_grant")
        }
    }

    @Test(arguments: TestBackend.available)
    func refreshTokenDiesWithTheWindow(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client, until: world.now.adding(seconds: 3_600))
            let token = world.json(await world.exchange(client: client, code: code))
            let refreshToken = try #require(token["refresh_token"]?.stringValue)
            world.clock.advance(seconds: 3_600)
            #expect(await world.refresh(client: client, token: refreshToken).status == 400)
        }
    }

    @Test(arguments: TestBackend.available)
    func wrongVerifierKillsTheCode(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let wrong = await world.exchange(client: client, code: code, verifier: String(repeating: "x", count: 64))
            #expect(wrong.status == 400 && world.json(wrong)["error"]?.stringValue == "invalid_grant")
            // The code is dead afterwards, even with the right verifier.
            #expect(await world.exchange(client: client, code: code).status == 400)
            // No verifier at all is refused the same way.
            let other = try await world.approvedCode(wallet: wallet, client: client, state: "st-2")
            let missing = await world.smartToken([("grant_type", "authorization_code"), ("client_id", client), ("code", other),
                                                  ("redirect_uri", TestWorld.redirect)])
            #expect(missing.status == 400)
        }
    }

    @Test(arguments: TestBackend.available)
    func reusedCodeRevokesItsTokens(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let first = await world.exchange(client: client, code: code)
            let access = try #require(world.json(first)["access_token"]?.stringValue)
            let refreshToken = try #require(world.json(first)["refresh_token"]?.stringValue)
            #expect(await world.fhir("GET", "Observation", token: access).status == 200)
            let again = await world.exchange(client: client, code: code)
            #expect(again.status == 400 && world.json(again)["error"]?.stringValue == "invalid_grant")
            #expect(await world.fhir("GET", "Observation", token: access).status == 401)
            #expect(await world.refresh(client: client, token: refreshToken).status == 400)
            #expect(try await Self.auditReasons(world).contains("code-reused"))
        }
    }

    @Test(arguments: TestBackend.available)
    func codeBoundToClientRedirectAndLifetime(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient(redirects: [TestWorld.redirect, "http://127.0.0.1:9/cb"])
            let otherClient = try await world.registerSmartClient()
            // Another redirect URI than the request's (even one registered): refused.
            let code = try await world.approvedCode(wallet: wallet, client: client)
            #expect(await world.exchange(client: client, code: code, redirect: "http://127.0.0.1:9/cb").status == 400)
            // Another client: refused.
            let second = try await world.approvedCode(wallet: wallet, client: client, state: "st-2")
            #expect(await world.exchange(client: otherClient, code: second).status == 400)
            // An unknown client: invalid_client.
            let unknown = await world.exchange(client: "00000000-0000-4000-8000-000000000001", code: second)
            #expect(unknown.status == 401 && world.json(unknown)["error"]?.stringValue == "invalid_client")
            // Expired: codes live 60 s.
            let third = try await world.approvedCode(wallet: wallet, client: client, state: "st-3")
            world.clock.advance(seconds: 61)
            #expect(await world.exchange(client: client, code: third).status == 400)
        }
    }

    @Test(arguments: TestBackend.available)
    func declinedApprovalRedirectsWithAccessDenied(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let client = try await world.registerSmartClient()
            let query = world.authorizeQuery(client: client, state: "s&t=1")
            let code = try await world.userCode(query)
            #expect(try await world.decide(wallet, code: code, .decline).status == 200)
            let redirect = await world.authorize(query)
            #expect(redirect.status == 302)
            let parameters = try TestWorld.redirectParameters(redirect)
            #expect(parameters["error"] == "access_denied" && parameters["state"] == "s&t=1" && parameters["code"] == nil)
            // Decided: a second decision is refused.
            #expect(try await world.decide(wallet, code: code, .approve).status == 404)
        }
    }

    @Test(arguments: TestBackend.available)
    func decisionRefusals(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await Self.walletWithData(world)
            let other = try await world.register(.wallet("w2", firstName: "Bob"))
            let app = try await world.register(.app("a"))
            let client = try await world.registerSmartClient()
            // Unknown code, malformed code.
            #expect(try await world.decide(wallet, code: "BCDF-GHJK", .approve).status == 404)
            #expect(try await world.decide(wallet, code: "nope", .approve).status == 404)
            let query = world.authorizeQuery(client: client)
            let code = try await world.userCode(query)
            // Only a wallet decides.
            #expect(try await world.decide(app, code: code, .approve).status == 403)
            // Nothing of the request chosen.
            let nothing = try await world.decide(wallet, code: code, .approve, scope: "patient/Condition.rs")
            #expect(nothing.status == 400 && world.json(nothing)["error"]?.stringValue == "invalid_scope")
            // A window that already ended.
            #expect(try await world.decide(wallet, code: code, .approve, until: world.now.adding(seconds: -1)).status == 400)
            // Another wallet decided it: answered like an unknown code.
            #expect(try await world.decide(other, code: code, .approve).status == 200)
            #expect(try await world.decide(wallet, code: code, .approve).status == 404)
            // Expired before anyone answered: refused, and the page sends the app back.
            let late = world.authorizeQuery(client: client, state: "late")
            let lateCode = try await world.userCode(late)
            world.clock.advance(seconds: 601)
            #expect(try await world.decide(wallet, code: lateCode, .approve).status == 404)
            #expect(try TestWorld.redirectParameters(await world.authorize(late))["error"] == "access_denied")
            #expect(try await Self.auditTypes(world).contains(.authorizationDecided))
        }
    }

    @Test func guessingCodesIsSlowedDown() async throws {
        let world = try await TestWorld.make(.sqlite) { $0.decisionGuessRate = RateLimit(perSecond: 1, burst: 3) }
        try await withTeardown({ await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            for typed in ["BCDF-GHJK", "nope", "CCCC-DDDD"] {
                #expect(try await world.decide(wallet, code: typed, .approve).status == 404)
            }
            let limited = try await world.decide(wallet, code: "DDDD-FFFF", .approve)
            #expect(limited.status == 429 && limited.headers.contains { $0.0 == "Retry-After" })
            // A code that waits is still decided: only guesses are slowed down.
            let client = try await world.registerSmartClient()
            let code = try await world.userCode(world.authorizeQuery(client: client))
            #expect(try await world.decide(wallet, code: code, .approve).status == 200)
            world.clock.advance(seconds: 1)
            #expect(try await world.decide(wallet, code: "DDDD-FFFF", .approve).status == 404)
        }
    }

    @Test func openingAuthorizationsIsRateLimited() async throws {
        let world = try await TestWorld.make(.sqlite) { $0.authorizationRate = RateLimit(perSecond: 1, burst: 2) }
        try await withTeardown({ await world.close() }) {
            let client = try await world.registerSmartClient()
            _ = try await world.userCode(world.authorizeQuery(client: client, state: "1"))
            _ = try await world.userCode(world.authorizeQuery(client: client, state: "2"))
            // Reloading a waiting one is free; a third new one waits for the allowance.
            _ = try await world.userCode(world.authorizeQuery(client: client, state: "1"))
            let refused = await world.authorize(world.authorizeQuery(client: client, state: "3"), json: true)
            #expect(refused.status == 429 && world.json(refused)["error"]?.stringValue == "temporarily_unavailable")
            #expect(!refused.headers.contains { $0.0 == "Location" })
            world.clock.advance(seconds: 1)
            #expect(await world.authorize(world.authorizeQuery(client: client, state: "3")).status == 200)
        }
    }

    @Test(arguments: TestBackend.available)
    func authorizeRefusals(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let client = try await world.registerSmartClient()
            // Before the redirect URI is known good: a page, never a redirect.
            for query in [world.authorizeQuery(client: "00000000-0000-4000-8000-000000000001"),
                          world.authorizeQuery(client: client, redirect: "https://app.example/other"),
                          world.authorizeQuery(client: client, redirect: TestWorld.redirect + "/"),
                          world.authorizeQuery(client: "not-a-client"), "client_id=%zz"] {
                let response = await world.authorize(query)
                #expect(response.status == 400 && response.contentType.hasPrefix("text/html"))
                #expect(!response.headers.contains { $0.0 == "Location" })
            }
            // After, errors of the request itself: shown too (anyone may register any redirect
            // URI: redirecting them would make the server an open redirector).
            let cases: [(String, String)] = [
                (world.authorizeQuery(client: client, method: "plain"), "invalid_request"),
                (world.authorizeQuery(client: client, method: nil), "invalid_request"),
                (world.authorizeQuery(client: client, aud: "https://elsewhere.example/fhir"), "invalid_request"),
                (world.authorizeQuery(client: client, responseType: "token"), "unsupported_response_type"),
                (world.authorizeQuery(client: client, scope: " "), "invalid_scope"),
            ]
            for (query, error) in cases {
                let response = await world.authorize(query, json: true)
                #expect(response.status == 400 && !response.headers.contains { $0.0 == "Location" })
                #expect(world.json(response)["error"]?.stringValue == error, "\(query)")
            }
            // Anonymous refusals are counted, then written as one entry per reason.
            await world.service.flushRefusals()
            let counted = try await Self.auditEntries(world).filter { $0.type == .authorizationRequested && $0.agent == AuditEntry.unverifiedAgent }
            #expect(counted.first { $0.reason == "invalid_redirect_uri" }?.count == 2)
            #expect(counted.first { $0.reason == "invalid_request" }?.count == 4)
            // A code already handed out: the same URL again is a page.
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            _ = try await world.approvedCode(wallet: wallet, client: client)
            #expect(await world.authorize(world.authorizeQuery(client: client)).status == 400)
        }
    }

    @Test(arguments: TestBackend.available)
    func dynamicRegistrationRefusals(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend) { $0.maximumSmartClients = 2 }
        try await withTeardown({ await world.close() }) {
            func register(_ json: String) async -> ServiceResponse {
                await world.service.registerClient(ServiceRequest(method: "POST", path: "/oauth/register", body: Array(json.utf8)))
            }
            let refusals: [(String, String)] = [
                (#"{"redirect_uris":["http://app.example/cb"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris":["https://app.example/cb#frag"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris":[]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris":["https://user@app.example/cb"]}"#, "invalid_redirect_uri"),
                (#"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}"#, "invalid_client_metadata"),
                (#"{"redirect_uris":["https://app.example/cb"],"grant_types":["client_credentials"]}"#, "invalid_client_metadata"),
                (#"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#, "invalid_client_metadata"),
                (#"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","jwks_uri":"http://app.example/jwks"}"#,
                 "invalid_client_metadata"),
                (#"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt","# +
                 #""jwks":{"keys":[{"kty":"RSA","n":"x","e":"AQAB"}]}}"#, "invalid_client_metadata"),
                (#"{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"none","jwks":{"keys":[]}}"#, "invalid_client_metadata"),
                ("[1]", "invalid_client_metadata"),
                (#"{"redirect_uris":[\#((0..<11).map { "\"https://a.example/\($0)\"" }.joined(separator: ","))]}"#, "invalid_redirect_uri"),
            ]
            for (body, error) in refusals {
                let response = await register(body)
                #expect(response.status == 400 && world.json(response)["error"]?.stringValue == error, "\(body)")
            }
            let ok = await register(#"{"redirect_uris":["http://127.0.0.1:8765/cb","https://app.example/cb"],"client_name":"<b>x</b>"}"#)
            #expect(ok.status == 201 && world.json(ok)["token_endpoint_auth_method"]?.stringValue == "none")
            #expect(await register(#"{"redirect_uris":["http://[::1]:8765/cb"]}"#).status == 201)
            // The server keeps at most maximumSmartClients.
            #expect(await register(#"{"redirect_uris":["https://app.example/cb"]}"#).status == 429)
            // The name is escaped on the page.
            let page = await world.authorize(world.authorizeQuery(client: try #require(world.json(ok)["client_id"]?.stringValue),
                                                                  redirect: "https://app.example/cb"))
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("&lt;b&gt;x&lt;/b&gt;") && !html.contains("<b>x</b>"))
        }
    }

    @Test func discoveryListsStandaloneLaunch() async throws {
        try await TestWorld.with(.sqlite) { world in
            let document = world.json(world.service.smartConfiguration())
            #expect(document["authorization_endpoint"]?.stringValue == "\(TestWorld.base)/oauth/authorize")
            #expect(document["registration_endpoint"]?.stringValue == "\(TestWorld.base)/oauth/register")
            #expect(document["code_challenge_methods_supported"] == .array([.string("S256")]))
            let capabilities = document["capabilities"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for capability in ["launch-standalone", "client-public", "client-confidential-asymmetric", "context-standalone-patient",
                               "permission-v1", "permission-v2", "permission-offline"] {
                #expect(capabilities.contains(capability), "\(capability)")
            }
            let grants = document["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(Set(grants) == ["authorization_code", "client_credentials", "refresh_token"])
        }
    }

    private static func auditEntries(_ world: TestWorld) async throws -> [AuditEntry] {
        try await world.store.auditRecords(from: 0, limit: 10_000).map { try AuditEntry(canonicalBytes: $0.canonicalBytes) }
    }

    private static func auditTypes(_ world: TestWorld) async throws -> Set<AuditEventType> {
        Set(try await auditEntries(world).map(\.type))
    }

    private static func auditReasons(_ world: TestWorld) async throws -> Set<String> {
        Set(try await auditEntries(world).compactMap(\.reason))
    }
}
