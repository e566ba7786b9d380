import ExactJSON
import FhirBlocksServer
import Foundation
import SmartHealthCards
import Testing

/// `$health-cards-issue` and `/.well-known/jwks.json` over loopback HTTP: the card verifies
/// with the key set as served (resolved offline for the https issuer).
@Suite struct HealthCardsHTTPTests {
    @Test func issueOverHTTP() async throws {
        try await HealthCardsIssueTests.withCompartment(.sqlite) { world, _, token in
            let server = try await RunningServer.start(world.service)
            do {
                let jwks = try await HTTPExchange.send(.GET, "\(server.baseURL)/.well-known/jwks.json", headers: [("Origin", "https://example.org")])
                #expect(jwks.status == 200)
                #expect(jwks.headers.contains { $0.0.lowercased() == "access-control-allow-origin" && $0.1 == "*" })
                let response = try await HTTPExchange.send(.POST, "\(server.baseURL)/fhir/Patient/p1/$health-cards-issue",
                                                           headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/fhir+json")],
                                                           body: HealthCardsIssueTests.parameters(["Immunization"]))
                #expect(response.status == 200)
                #expect(response.headers.contains { $0.0.lowercased() == "content-type" && $0.1.hasPrefix("application/fhir+json") })
                let cards = HealthCardsIssueTests.credentials((try? JSONParser.parse(response.body))?.objectValue ?? JSONObject())
                try #require(cards.count == 1)
                let report = try await HealthCardsIssueTests.verifier(world, jwks: jwks.body).verify(cards[0])
                #expect(report.isValid && report.signatureValid, "\(report.errors)")
                // A key set from elsewhere does not verify it.
                let stranger = SHCVerifier(resolver: StaticKeyResolver([TestWorld.base: SHCJWKSet(keys: [SHCIssuerKey.generate().publicJWK])]),
                                           now: HealthCardsIssueTests.verifyAt)
                #expect(await stranger.verify(cards[0]).isValid == false)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }
}
