import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// The SMART checks of the Inferno SMART App Launch and ONC (g)(10) kits, over real HTTP on
/// 127.0.0.1, on SQLite and PostgreSQL: token answers (refusals included) never cached;
/// `plain` PKCE neither advertised nor accepted; RFC 7009 revocation of an access token;
/// introspection's fields, and only for the token's own client; refresh with a narrower scope
/// (a wider one refused); `private_key_jwt` with RS384 and ES384 key sets for user-facing
/// apps; CORS for the registered redirect URIs' origins only; the cap on backend clients.
@Suite struct SmartCertificationChecksTests {
    static let appOrigin = "https://app.example"

    // MARK: Helpers

    /// A world, its server on 127.0.0.1, a wallet holding `Observation/o1` and `Condition/c1`.
    static func with(_ backend: TestBackend, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
                     _ body: (TestWorld, RunningServer, TestParty) async throws -> Void) async throws {
        let world = try await TestWorld.make(backend, configure: configure)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.walletWithObservation()
            let token = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            let condition = #"{"resourceType":"Condition","id":"c1","code":{"text":"asthma"},"subject":{"reference":"Patient/\#(wallet.csi.rawValue)"}}"#
            let put = await world.fhir("PUT", "Condition/c1", token: token, body: Array(condition.utf8))
            try #require(put.status == 201, "\(String(decoding: put.body, as: UTF8.self))")
            try await body(world, server, wallet)
        }
    }

    static func post(_ server: RunningServer, _ path: String, _ fields: [(String, String)], headers: [(String, String)] = [])
        async throws -> (status: Int, headers: [(String, String)], json: JSONObject) {
        let response = try await HTTPExchange.send(.POST, server.baseURL + path,
                                                   headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: TestWorld.form(fields))
        return (response.status, response.headers, (try? JSONParser.parse(response.body))?.objectValue ?? JSONObject())
    }

    static func get(_ server: RunningServer, _ path: String, token: String? = nil, headers: [(String, String)] = [])
        async throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        try await HTTPExchange.send(.GET, server.baseURL + path, headers: (token.map { [("Authorization", "Bearer \($0)")] } ?? []) + headers)
    }

    static func header(_ name: String, _ headers: [(String, String)]) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    /// An approval of `scope` for `client` exchanged over HTTP: the access and refresh tokens.
    static func tokens(_ world: TestWorld, _ server: RunningServer, wallet: TestParty, client: String, state: String,
                       scope: String = "launch/patient patient/Observation.rs offline_access") async throws -> (access: String, refresh: String) {
        let code = try await world.approvedCode(wallet: wallet, client: client, scope: scope, state: state)
        let answer = try await post(server, "/oauth/token", [("grant_type", "authorization_code"), ("client_id", client), ("code", code),
                                                             ("redirect_uri", TestWorld.redirect), ("code_verifier", TestWorld.verifier)])
        try #require(answer.status == 200, "exchange: \(JSONValue.object(answer.json))")
        return (try #require(answer.json["access_token"]?.stringValue), try #require(answer.json["refresh_token"]?.stringValue))
    }

    static func introspect(_ server: RunningServer, _ token: String, with bearer: String) async throws -> JSONObject {
        try await post(server, "/oauth/introspect", [("token", token)], headers: [("Authorization", "Bearer \(bearer)")]).json
    }

    // MARK: 1. Token answers are never cached

    @Test(arguments: TestBackend.available)
    func tokenAnswersAndRefusalsAreNeverCached(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, wallet in
            let client = try await world.registerSmartClient()
            let code = try await world.approvedCode(wallet: wallet, client: client)
            let exchange: [(String, String)] = [("grant_type", "authorization_code"), ("client_id", client), ("code", code),
                                                ("redirect_uri", TestWorld.redirect), ("code_verifier", TestWorld.verifier)]
            let issued = try await Self.post(server, "/oauth/token", exchange)
            let refreshToken = try #require(issued.json["refresh_token"]?.stringValue)
            let refreshed = try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", client),
                                                                         ("refresh_token", refreshToken)])
            #expect(issued.status == 200 && refreshed.status == 200)
            let refusals = [
                try await Self.post(server, "/oauth/token", exchange),   // the code again
                try await Self.post(server, "/oauth/token", [("grant_type", "password")]),
                try await Self.post(server, "/oauth/token", []),
                try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", "nope")]),
            ]
            for answer in [issued, refreshed] + refusals {
                #expect(Self.header("Cache-Control", answer.headers) == ["no-store"], "\(answer.status) \(JSONValue.object(answer.json))")
                #expect(Self.header("Pragma", answer.headers) == ["no-cache"], "\(answer.status) \(JSONValue.object(answer.json))")
            }
            #expect(refusals.allSatisfy { $0.status == 400 && $0.json["error"] != nil })
        }
    }

    // MARK: 2. PKCE plain

    @Test(arguments: TestBackend.available)
    func plainPKCEIsNeitherAdvertisedNorAccepted(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, _ in
            for path in ["/.well-known/smart-configuration", "/fhir/.well-known/smart-configuration"] {
                let configuration = try JSONParser.parse(try await Self.get(server, path).body)
                #expect(configuration["code_challenge_methods_supported"] == .array([.string("S256")]))
                let capabilities = configuration["capabilities"]?.arrayValue ?? []
                #expect(capabilities.contains(.string("client-confidential-asymmetric")) && capabilities.contains(.string("client-public")))
                #expect(configuration["token_endpoint_auth_methods_supported"]?.arrayValue?.contains(.string("private_key_jwt")) == true)
            }
            let client = try await world.registerSmartClient()
            // `plain`: the challenge is the verifier itself.
            var fields = FormBody.parseOrEmpty(world.authorizeQuery(client: client, method: "plain"))
            fields.removeAll { $0.0 == "code_challenge" }
            fields.append(("code_challenge", TestWorld.verifier))
            for method in ["plain", "PLAIN"] {
                let query = String(decoding: TestWorld.form(fields.map { $0.0 == "code_challenge_method" ? ($0.0, method) : $0 }), as: UTF8.self)
                let answer = try await Self.get(server, "/oauth/authorize?" + query, headers: [("Accept", "application/json")])
                #expect(answer.status == 400 && Self.header("Location", answer.headers).isEmpty)
                #expect((try? JSONParser.parse(answer.body))?["error"] == .string("invalid_request"))
            }
        }
    }

    // MARK: 3. Revocation (RFC 7009) and 4. introspection

    @Test(arguments: TestBackend.available)
    func revokedTokensAreRefusedAndIntrospectedInactive(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, wallet in
            let client = try await world.registerSmartClient()
            let other = try await world.registerSmartClient(name: "Other app")
            let bystander = try await Self.tokens(world, server, wallet: wallet, client: client, state: "bystander")
            let stranger = try await Self.tokens(world, server, wallet: wallet, client: other, state: "stranger")
            let family = try await Self.tokens(world, server, wallet: wallet, client: client, state: "family")

            // Introspection by the token's own client: every field the kits read.
            let described = try await Self.introspect(server, family.access, with: bystander.access)
            #expect(described["active"] == .bool(true))
            #expect(described["client_id"] == .string(client))
            #expect(described["patient"] == .string(wallet.csi.rawValue))
            #expect(described["scope"]?.stringValue?.split(separator: " ").contains("patient/Observation.rs") == true)
            let exp = try #require(described["exp"]?.doubleValue)
            #expect(exp > Double(world.now.secondsSince1970) && exp <= Double(world.now.secondsSince1970 + 300))
            // Another client learns nothing; without a token, 401.
            #expect(try await Self.introspect(server, family.access, with: stranger.access) == JSONObject(members: [JSONMember("active", .bool(false))]))
            let anonymous = try await Self.post(server, "/oauth/introspect", [("token", family.access)])
            #expect(anonymous.status == 401)

            // RFC 7009 §2.1: without client authentication, 401 invalid_client; another client's
            // request is refused (400 unauthorized_client) and revokes nothing.
            let anonymousRevocation = try await Self.post(server, "/oauth/revoke", [("token", family.access)])
            #expect(anonymousRevocation.status == 401 && anonymousRevocation.json["error"] == .string("invalid_client"))
            #expect(try await Self.post(server, "/oauth/revoke", [("token", family.access), ("client_id", "no-such-client")]).status == 401)
            for token in [family.access, family.refresh] {
                let refused = try await Self.post(server, "/oauth/revoke", [("token", token), ("client_id", other)])
                #expect(refused.status == 400 && refused.json["error"] == .string("unauthorized_client"))
            }
            // An unknown token, whoever asks: 200 (§2.2).
            #expect(try await Self.post(server, "/oauth/revoke", [("token", "no-such-token"), ("client_id", other)]).status == 200)
            #expect(try await Self.get(server, "/fhir/Observation/o1", token: family.access).status == 200)
            #expect(try await Self.introspect(server, family.access, with: bystander.access)["active"] == .bool(true))

            // The access token revoked: refused at the FHIR endpoint, inactive; its refresh token
            // and the other approval still work.
            let revoked = try await Self.post(server, "/oauth/revoke", [("token", family.access), ("token_type_hint", "access_token"),
                                                                                ("client_id", client)])
            #expect(revoked.status == 200)
            #expect(try await Self.get(server, "/fhir/Observation/o1", token: family.access).status == 401)
            #expect(try await Self.get(server, "/fhir/Observation", token: family.access).status == 401)
            #expect(try await Self.introspect(server, family.access, with: bystander.access)["active"] == .bool(false))
            #expect(try await Self.get(server, "/fhir/Observation/o1", token: bystander.access).status == 200)
            // Revoking it again, or an unknown token: 200 all the same.
            #expect(try await Self.post(server, "/oauth/revoke", [("token", family.access), ("client_id", client)]).status == 200)
            #expect(try await Self.post(server, "/oauth/revoke", [("token", "no-such-token"), ("client_id", client)]).status == 200)

            // The refresh token revoked: refused (invalid_grant), and the family's tokens with it.
            let rotated = try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", client),
                                                                       ("refresh_token", family.refresh)])
            let rotatedAccess = try #require(rotated.json["access_token"]?.stringValue)
            let rotatedRefresh = try #require(rotated.json["refresh_token"]?.stringValue)
            #expect(try await Self.post(server, "/oauth/revoke", [("token", rotatedRefresh), ("token_type_hint", "refresh_token"),
                                                                                 ("client_id", client)]).status == 200)
            let refused = try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", client),
                                                                       ("refresh_token", rotatedRefresh)])
            #expect(refused.status == 400 && refused.json["error"] == .string("invalid_grant"))
            #expect(try await Self.get(server, "/fhir/Observation/o1", token: rotatedAccess).status == 401)
            #expect(try await Self.introspect(server, rotatedAccess, with: bystander.access)["active"] == .bool(false))
        }
    }

    // MARK: 5. Refresh with a narrower scope

    @Test(arguments: TestBackend.available)
    func refreshNarrowsTheScopeAndRefusesAWiderOne(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, wallet in
            let client = try await world.registerSmartClient()
            let granted = try await Self.tokens(world, server, wallet: wallet, client: client, state: "narrow",
                                                scope: "launch/patient patient/Observation.rs patient/Condition.rs offline_access")
            #expect(try await Self.get(server, "/fhir/Condition/c1", token: granted.access).status == 200)
            func refresh(_ token: String, scope: String?) async throws -> (status: Int, headers: [(String, String)], json: JSONObject) {
                try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", token)]
                                        + (scope.map { [("scope", $0)] } ?? []))
            }
            // Wider, or unreadable: invalid_scope, and the refresh token is still good.
            for wider in ["patient/*.rs", "patient/Observation.cruds", "patient/Patient.rs", "user/Observation.rs", "patient/Observation.rs sens/PSY",
                          "patient/Observation.rs openid", "patient/Observation.dus", "launch/patient"] {
                let refused = try await refresh(granted.refresh, scope: wider)
                #expect(refused.status == 400 && refused.json["error"] == .string("invalid_scope"), "\(wider): \(JSONValue.object(refused.json))")
            }
            // Narrower: the access token has only that scope.
            let narrowed = try await refresh(granted.refresh, scope: "patient/Observation.rs")
            try #require(narrowed.status == 200, "\(JSONValue.object(narrowed.json))")
            #expect(narrowed.json["scope"]?.stringValue?.split(separator: " ").filter { $0.hasPrefix("patient/") } == ["patient/Observation.rs"])
            let narrow = try #require(narrowed.json["access_token"]?.stringValue)
            #expect(try await Self.get(server, "/fhir/Observation/o1", token: narrow).status == 200)
            #expect(try await Self.get(server, "/fhir/Condition/c1", token: narrow).status == 403)
            let described = try await Self.introspect(server, narrow, with: narrow)
            #expect(described["scope"]?.stringValue?.contains("Condition") == false)
            // The refresh token keeps the whole scope: without `scope`, Condition again.
            let next = try #require(narrowed.json["refresh_token"]?.stringValue)
            let whole = try await refresh(next, scope: nil)
            try #require(whole.status == 200)
            #expect(try await Self.get(server, "/fhir/Condition/c1", token: try #require(whole.json["access_token"]?.stringValue)).status == 200)
            // A granular scope narrows too: o1 has no laboratory category.
            let last = try #require(whole.json["refresh_token"]?.stringValue)
            let granular = try await refresh(last, scope: "patient/Observation.rs?category=laboratory")
            try #require(granular.status == 200, "\(JSONValue.object(granular.json))")
            #expect(try await Self.get(server, "/fhir/Observation/o1", token: try #require(granular.json["access_token"]?.stringValue)).status == 404)
            // A used refresh token with a narrower scope is still a reuse.
            let reused = try await refresh(granted.refresh, scope: "patient/Observation.rs")
            #expect(reused.status == 400 && reused.json["error"] == .string("invalid_grant"))
        }
    }

    // MARK: 6. SMART v2 granular scopes

    static func observation(_ id: String, category: String?) -> [UInt8] {
        let categories = category.map {
            #","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"\#($0)"}]}]"#
        } ?? ""
        return Array(#"{"resourceType":"Observation","id":"\#(id)","status":"final"\#(categories),"code":{"text":"\#(id)"}}"#.utf8)
    }

    @Test(arguments: TestBackend.available)
    func aGranularScopeLimitsReadSearchAndExportToItsCategory(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, wallet in
            let owner = try #require(world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
            for (id, category) in [("lab-1", "laboratory"), ("lab-2", "laboratory"), ("vital-1", "vital-signs")] {
                #expect(await world.fhir("PUT", "Observation/\(id)", token: owner, body: Self.observation(id, category: category)).status == 201)
            }
            let client = try await world.registerSmartClient()
            let granted = try await Self.tokens(world, server, wallet: wallet, client: client, state: "granular",
                                                scope: "launch/patient patient/Observation.rs?category=laboratory patient/Condition.rs offline_access")
            let described = try await Self.introspect(server, granted.access, with: granted.access)
            #expect(described["scope"]?.stringValue?.split(separator: " ").contains("patient/Observation.rs?category=laboratory") == true,
                    "\(JSONValue.object(described))")
            // Read: the laboratory Observations; another category, or none, is hidden as an absent one is.
            #expect(try await Self.get(server, "/fhir/Observation/lab-1", token: granted.access).status == 200)
            for hidden in ["vital-1", "o1", "absent"] {
                let answer = try await Self.get(server, "/fhir/Observation/\(hidden)", token: granted.access)
                #expect(answer.status == 404, "\(hidden)")
            }
            #expect(try await Self.get(server, "/fhir/Condition/c1", token: granted.access).status == 200)
            // Search: only the laboratory ones, with a true total; asking for another category finds nothing.
            func ids(_ query: String) async throws -> (ids: [String], total: JSONValue?) {
                let answer = try await Self.get(server, "/fhir/Observation" + query, token: granted.access)
                try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
                let bundle = try JSONParser.parse(answer.body)
                let ids = (bundle["entry"]?.arrayValue ?? []).compactMap { $0["resource"]?["id"]?.stringValue }.sorted()
                return (ids, bundle["total"])
            }
            let all = try await ids("")
            #expect(all.ids == ["lab-1", "lab-2"] && all.total == .number("2"), "\(all)")
            #expect(try await ids("?category=vital-signs").ids.isEmpty)
            #expect(try await ids("?_id=vital-1").ids.isEmpty)
            #expect(try await ids("?category=laboratory&_count=1").ids.count == 1)
            // A granular scope on a parameter the server cannot match hides everything of the type.
            let odd = try await Self.tokens(world, server, wallet: wallet, client: client, state: "odd",
                                            scope: "launch/patient patient/Observation.rs?subject=x offline_access")
            #expect(try await Self.get(server, "/fhir/Observation/lab-1", token: odd.access).status == 404)

            // Export: a backend client asking for the laboratory category exports only it.
            let key = try BackendTestKey.es384("granular")
            let backendClient = try await BackendServicesTests.register(server, ["jwks": .object(JSONObject(members: [JSONMember("keys", .array([key.jwk]))]))])
            var party = TestParty.app("granular-backend")
            party.csi = backendClient
            #expect(try await world.grant(from: wallet, to: [party], resource: "Observation", confidentiality: "V", sensitivity: []).status == 200)
            let assertion = try key.assertion(client: backendClient, audience: TestWorld.base + "/oauth/token", now: world.now)
            let backendToken = try await BackendServicesTests.token(server, assertion, scope: "system/Observation.rs?category=laboratory")
            try #require(backendToken.status == 200, "\(backendToken)")
            let token = try #require(backendToken.json["access_token"]?.stringValue)
            let kickoff = try await BulkExportTests.send(server, .GET, "/fhir/Patient/$export?_type=Observation", token: token,
                                                         headers: BulkExportTests.kickoffHeaders)
            try #require(kickoff.status == 202, "\(String(decoding: kickoff.body, as: UTF8.self))")
            let location = try #require(BulkExportTests.header(kickoff, "Content-Location"))
            let manifest = try await BulkExportTests.manifest(server, location, token: token)
            #expect(try await BulkExportTests.download(server, manifest, token: token) == ["Observation/lab-1", "Observation/lab-2"])
        }
    }

    /// Granular queries from random text: parsing never fails hard, what parses prints back to
    /// itself, a filtered grant survives the store's encoding, and matching reads tokens as a
    /// search does.
    @Test func granularQueriesParseRoundTripAndMatch() throws {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ab_-=&,|:%?9 ")
        for _ in 0..<5_000 {
            let text = String((0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a" })
            guard let filter = ScopeFilter(text) else { continue }
            #expect(ScopeFilter(filter.description) == filter && filter.description == text, "\(text)")
            let scope = PermissionScope(permissionType: .patient, resource: .type("Observation"), access: [.read, .search],
                                        confidentialityCeiling: .N, sensitivities: .none, filter: filter)
            #expect(try PermissionScope(storageText: scope.storageText) == scope, "\(text)")
        }
        let lab = try JSONParser.parse(Self.observation("x", category: "laboratory"))
        let system = "http://terminology.hl7.org/CodeSystem/observation-category"
        for (query, matches) in [("category=laboratory", true), ("category=\(system)|laboratory", true), ("category=other|laboratory", false),
                                 ("category=vital-signs,laboratory", true), ("category=vital-signs", false), ("category=laboratory&status=final", true),
                                 ("category=laboratory&status=amended", false), ("subject=x", false), ("nonsense=1", false)] {
            #expect(GranularScopes.matches(try #require(ScopeFilter(query)), resource: lab, type: "Observation") == matches, "\(query)")
        }
    }

    // MARK: 7. client-confidential-asymmetric for user-facing apps

    @Test(arguments: TestBackend.available)
    func appsAuthenticateWithRS384AndES384KeySets(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, wallet in
            let audience = TestWorld.base + "/oauth/token"
            for key in [try BackendTestKey.rs384("app-rsa"), try BackendTestKey.es384("app-ec")] {
                var object = JSONObject()
                object.append("redirect_uris", strings: [TestWorld.redirect])
                object.append("token_endpoint_auth_method", "private_key_jwt")
                object.append("jwks", .object(JSONObject(members: [JSONMember("keys", .array([key.jwk]))])))
                let registered = try await HTTPExchange.send(.POST, server.baseURL + "/oauth/register", headers: [("Content-Type", "application/json")],
                                                             body: JSONWriter.serialize(.object(object)))
                try #require(registered.status == 201, "\(String(decoding: registered.body, as: UTF8.self))")
                let answer = try JSONParser.parse(registered.body)
                #expect(answer["token_endpoint_auth_method"] == .string("private_key_jwt"))
                let clientText = try #require(answer["client_id"]?.stringValue)
                let client = try #require(CsiGuid(clientText))
                let code = try await world.approvedCode(wallet: wallet, client: clientText, state: key.alg)
                let exchange: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", TestWorld.redirect),
                                                    ("code_verifier", TestWorld.verifier)]
                let assertionType = ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType)
                // Without its assertion, with another key's, or with a wrong audience: invalid_client
                // (the client is refused before the code is looked at).
                let other = try BackendTestKey.es384(key.kid)
                let otherKeys = try other.assertion(client: client, audience: audience, now: world.now)
                let wrongAudience = try key.assertion(client: client, audience: TestWorld.base + "/vaca/access", now: world.now)
                let refusals: [[(String, String)]] = [[("client_id", clientText)], [assertionType, ("client_assertion", otherKeys)],
                                                      [assertionType, ("client_assertion", wrongAudience)]]
                for refusedFields in refusals {
                    let refused = try await Self.post(server, "/oauth/token", exchange + refusedFields)
                    #expect(refused.status == 401 && refused.json["error"] == .string("invalid_client"), "\(key.alg): \(JSONValue.object(refused.json))")
                }
                let signed = try key.assertion(client: client, audience: audience, now: world.now)
                let issued = try await Self.post(server, "/oauth/token", exchange + [assertionType, ("client_assertion", signed)])
                try #require(issued.status == 200, "\(key.alg): \(JSONValue.object(issued.json))")
                let access = try #require(issued.json["access_token"]?.stringValue)
                #expect(try await Self.get(server, "/fhir/Observation/o1", token: access).status == 200)
                // Refresh with a fresh assertion; the app is no backend service.
                let refreshToken = try #require(issued.json["refresh_token"]?.stringValue)
                let again = try key.assertion(client: client, audience: audience, now: world.now)
                let refreshed = try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken), assertionType,
                                                                             ("client_assertion", again)])
                #expect(refreshed.status == 200, "\(JSONValue.object(refreshed.json))")
                let backendAssertion = try key.assertion(client: client, audience: audience, now: world.now)
                let backendRefused = try await BackendServicesTests.token(server, backendAssertion, scope: "system/*.rs")
                #expect(backendRefused.status == 401 && backendRefused.error == "invalid_client", "\(backendRefused)")
            }
        }
    }

    // MARK: 8. CORS

    @Test(arguments: TestBackend.available)
    func corsAllowsTheRegisteredRedirectOriginsOnly(backend: TestBackend) async throws {
        try await Self.with(backend) { world, server, wallet in
            let client = try await world.registerSmartClient()
            let access = try await Self.tokens(world, server, wallet: wallet, client: client, state: "cors").access
            let stranger = "https://evil.example"
            for path in ["/fhir/Observation", "/fhir/Observation/o1", "/oauth/token", "/oauth/introspect", "/oauth/revoke", "/fhir/metadata"] {
                let preflight = try await HTTPExchange.send(.OPTIONS, server.baseURL + path, headers: [
                    ("Origin", Self.appOrigin), ("Access-Control-Request-Method", path.hasPrefix("/oauth") ? "POST" : "GET"),
                    ("Access-Control-Request-Headers", "authorization, content-type"),
                ])
                #expect(preflight.status == 204, "\(path)")
                #expect(Self.header("Access-Control-Allow-Origin", preflight.headers) == [Self.appOrigin], "\(path)")
                #expect(Self.header("Access-Control-Allow-Headers", preflight.headers).first?.contains("Authorization") == true, "\(path)")
                let refused = try await HTTPExchange.send(.OPTIONS, server.baseURL + path, headers: [("Origin", stranger),
                                                                                                     ("Access-Control-Request-Method", "GET")])
                #expect(refused.status == 403 && Self.header("Access-Control-Allow-Origin", refused.headers).isEmpty, "\(path)")
            }
            // The answers themselves: the app's origin named, never `*`; another origin gets no CORS header.
            let read = try await Self.get(server, "/fhir/Observation/o1", token: access, headers: [("Origin", Self.appOrigin)])
            #expect(read.status == 200 && Self.header("Access-Control-Allow-Origin", read.headers) == [Self.appOrigin])
            #expect(Self.header("Vary", read.headers).contains { $0.contains("Origin") })
            let search = try await Self.get(server, "/fhir/Observation", token: access, headers: [("Origin", stranger)])
            #expect(search.status == 200 && Self.header("Access-Control-Allow-Origin", search.headers).isEmpty)
            let unauthenticated = try await Self.get(server, "/fhir/Observation", headers: [("Origin", Self.appOrigin)])
            #expect(unauthenticated.status == 401 && Self.header("Access-Control-Allow-Origin", unauthenticated.headers) == [Self.appOrigin])
            let token = try await Self.post(server, "/oauth/token", [("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", "x")],
                                            headers: [("Origin", Self.appOrigin)])
            #expect(token.status == 400 && Self.header("Access-Control-Allow-Origin", token.headers) == [Self.appOrigin])
            // Discovery: the app's origin named; any other origin may read it too (it is public).
            let discovery = try await Self.get(server, "/.well-known/smart-configuration", headers: [("Origin", Self.appOrigin)])
            #expect(Self.header("Access-Control-Allow-Origin", discovery.headers) == [Self.appOrigin])
            let publicDiscovery = try await Self.get(server, "/.well-known/smart-configuration", headers: [("Origin", stranger)])
            #expect(Self.header("Access-Control-Allow-Origin", publicDiscovery.headers) == ["*"])
        }
    }

    /// Origins are compared as origins: scheme and host case-insensitively, the default port left out.
    @Test func originsAreComparedAsOrigins() {
        #expect(RegisteredOrigins.origin(of: "https://App.Example/callback?x=1") == "https://app.example")
        #expect(RegisteredOrigins.origin(of: "https://app.example:443/cb") == "https://app.example")
        #expect(RegisteredOrigins.origin(of: "http://127.0.0.1:8080/cb") == "http://127.0.0.1:8080")
        #expect(RegisteredOrigins.origin(of: "https://app.example:8443") == "https://app.example:8443")
        for refused in ["null", "", "app.example", "ftp://app.example", "com.example.app:/callback", "https://"] {
            #expect(RegisteredOrigins.origin(of: refused) == nil, "\(refused)")
        }
    }

    // MARK: Backend clients: the cap

    @Test(arguments: TestBackend.available)
    func backendClientsPastTheCapAreRefused(backend: TestBackend) async throws {
        try await Self.with(backend, configure: { $0.maximumBackendClients = 2 }) { _, server, _ in
            let key = try BackendTestKey.es384("k")
            let jwks = JSONValue.object(JSONObject(members: [JSONMember("keys", .array([key.jwk]))]))
            for _ in 0..<2 { _ = try await BackendServicesTests.register(server, ["jwks": jwks]) }
            let refused = try await BackendServicesTests.registration(server, ["jwks": jwks])
            #expect(refused.status == 429 && (try? JSONParser.parse(refused.body))?["error"] == .string("too_many_requests"))
            #expect(!Self.header("Retry-After", refused.headers).isEmpty)
            // A user-facing app with a key set counts as one too.
            var object = JSONObject()
            object.append("redirect_uris", strings: [TestWorld.redirect])
            object.append("token_endpoint_auth_method", "private_key_jwt")
            object.append("jwks", jwks)
            let app = try await HTTPExchange.send(.POST, server.baseURL + "/oauth/register", headers: [("Content-Type", "application/json")],
                                                  body: JSONWriter.serialize(.object(object)))
            #expect(app.status == 429)
        }
    }
}

extension FormBody {
    /// The fields of a query string, or none when it does not parse.
    static func parseOrEmpty(_ query: String) -> [(String, String)] {
        ((try? FormBody.parse(Array(query.utf8), mode: .strict).value.fields) ?? []).map { ($0.name, $0.value) }
    }
}
