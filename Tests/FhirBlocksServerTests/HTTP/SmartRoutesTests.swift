import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Testing
import TestSupport

/// The SMART standalone-launch routes through the application's router (HummingbirdTesting,
/// no socket): the raw query string reaches `/oauth/authorize` (`+` is a space, repeats are
/// refused), the page's and the redirect's headers, registration and the token endpoint.
@Suite struct SmartRoutesTests {
    @Test func standaloneLaunchThroughTheRouter() async throws {
        try await TestWorld.with(.sqlite) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            try await RouterExchange.with(world.service) { exchange in
                let registered = try await exchange.send(.POST, "/oauth/register", headers: [("Content-Type", "application/json")],
                                                         body: Array((#"{"redirect_uris":["https://app.example/callback"],"# +
                                                                      #""token_endpoint_auth_method":"none"}"#).utf8))
                #expect(registered.status == 201)
                let client = try #require(world.json(ServiceResponse(body: registered.body))["client_id"]?.stringValue)
                let query = world.authorizeQuery(client: client)
                #expect(query.contains("+"))   // the scope's spaces, as browsers and fhirclient send them
                let page = try await exchange.send(.GET, "/oauth/authorize?\(query)")
                #expect(page.status == 200)
                #expect(page.headers.contains { $0.0.lowercased() == "x-frame-options" && $0.1 == "DENY" })
                let polled = try await exchange.send(.GET, "/oauth/authorize?\(query)", headers: [("Accept", "application/json")])
                let code = try #require(world.json(ServiceResponse(body: polled.body))["user_code"]?.stringValue)
                #expect(String(decoding: page.body, as: UTF8.self).contains(code))
                #expect(try await world.decide(wallet, code: code, .approve).status == 200)

                let redirect = try await exchange.send(.GET, "/oauth/authorize?\(query)")
                #expect(redirect.status == 302)
                let location = try #require(redirect.headers.first { $0.0.lowercased() == "location" }?.1)
                #expect(location.hasPrefix("https://app.example/callback?code="))
                let parameters = try TestWorld.redirectParameters(ServiceResponse(status: 302, headers: [("Location", location)], body: []))
                #expect(parameters["state"] == "st-1")
                let token = try await exchange.send(.POST, "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                    body: TestWorld.form([("grant_type", "authorization_code"), ("client_id", client),
                                                                          ("code", try #require(parameters["code"])), ("redirect_uri", TestWorld.redirect),
                                                                          ("code_verifier", TestWorld.verifier)]))
                #expect(token.status == 200)
                #expect(token.headers.contains { $0.0.lowercased() == "cache-control" && $0.1 == "no-store" })
                // A repeated parameter is refused before anything else (RFC 6749 §3.1).
                let repeated = try await exchange.send(.GET, "/oauth/authorize?\(query)&state=again")
                #expect(repeated.status == 400 && !repeated.headers.contains { $0.0.lowercased() == "location" })
                // Registration bodies over 16 KiB: 413 before parsing.
                let huge = try await exchange.send(.POST, "/oauth/register", body: Array(repeating: UInt8(ascii: " "), count: 17 * 1024))
                #expect(huge.status == 413)
            }
        }
    }

    /// Mutated `/authorize` queries: never a 5xx, and never a redirect anywhere but to a
    /// redirect URI the client registered.
    @Test func mutatedAuthorizeQueriesNeverRedirectElsewhere() async throws {
        try await TestWorld.with(.sqlite) { world in
            let client = try await world.registerSmartClient()
            let seed = Array(world.authorizeQuery(client: client).utf8)
            var generator = SplitMix64(seed: 6749)
            for _ in 0..<400 {
                let query = String(decoding: RequestFuzzTests.mutate(seed, using: &generator), as: UTF8.self)
                let response = await world.authorize(query)
                #expect(response.status < 500, "\(query)")
                if let location = response.headers.first(where: { $0.0 == "Location" })?.1 {
                    #expect(location.hasPrefix(TestWorld.redirect + "?"), "\(query) → \(location)")
                }
            }
        }
    }
}
