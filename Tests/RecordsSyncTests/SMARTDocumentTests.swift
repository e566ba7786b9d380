import Foundation
@testable import RecordsSync
import Testing
import TestSupport

/// Reading discovery documents, token responses and search pages as servers write them.
struct SMARTDocumentTests {
    @Test func smartConfigurationAndCapabilityStatementDiscovery() throws {
        let configuration = try SMARTEndpoints.parse(smartConfiguration: Array("""
            {"authorization_endpoint":"https://a/authorize","token_endpoint":"https://a/token","registration_endpoint":"https://a/register",
             "code_challenge_methods_supported":["S256"]}
            """.utf8))
        #expect(configuration == SMARTEndpoints(authorization: "https://a/authorize", token: "https://a/token", registration: "https://a/register",
                                                codeChallengeMethods: ["S256"]))
        #expect(throws: RecordsSyncError.self) { try SMARTEndpoints.parse(smartConfiguration: Array(#"{"token_endpoint":"x"}"#.utf8)) }
        let statement = Array("""
            {"resourceType":"CapabilityStatement","rest":[{"security":{"extension":[\
            {"url":"http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
             "extension":[{"url":"authorize","valueUri":"https://b/auth"},{"url":"token","valueUri":"https://b/token"}]}]},
             "resource":[{"type":"Patient","operation":[{"name":"health-cards-issue","definition":"x"}]}]}]}
            """.utf8)
        #expect(try SMARTEndpoints.parse(capabilityStatement: statement) == SMARTEndpoints(authorization: "https://b/auth", token: "https://b/token",
                                                                                           registration: nil))
        #expect(SMARTEndpoints.offersHealthCardsIssue(capabilityStatement: statement))
        #expect(!SMARTEndpoints.offersHealthCardsIssue(capabilityStatement: Array(#"{"resourceType":"CapabilityStatement","rest":[]}"#.utf8)))
        #expect(throws: RecordsSyncError.self) { try SMARTEndpoints.parse(capabilityStatement: Array(#"{"resourceType":"Patient"}"#.utf8)) }
    }

    @Test func tokenResponses() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let body = #"{"access_token":"t","token_type":"Bearer","expires_in":300,"refresh_token":"r","patient":"p1","scope":"s"}"#
        let grant = try TokenGrant.parse(Array(body.utf8), now: now)
        #expect(grant == TokenGrant(accessToken: "t", expiresAt: now.addingTimeInterval(300), refreshToken: "r", scope: "s", patient: "p1"))
        #expect(throws: RecordsSyncError.self) { try TokenGrant.parse(Array(#"{"token_type":"Bearer"}"#.utf8), now: now) }
        #expect(throws: RecordsSyncError.unsupported("token_type mac")) { try TokenGrant.parse(Array(#"{"access_token":"t","token_type":"mac"}"#.utf8),
                                                                                               now: now) }
        #expect(TokenGrant.oauthError(Array(#"{"error":"invalid_grant","error_description":"used"}"#.utf8))! == ("invalid_grant", "used"))
    }

    @Test func searchPagesGiveTheNextLinkAndTheNewestInstant() throws {
        let page = try SearchPage.parse(Array("""
            {"resourceType":"Bundle","type":"searchset","total":3,"meta":{"lastUpdated":"2026-01-02T00:00:00Z"},
             "link":[{"relation":"self","url":"https://a/Observation?x"},{"relation":"next","url":"https://a/Observation?page=2"}],
             "entry":[{"resource":{"resourceType":"Observation","meta":{"lastUpdated":"2026-01-01T10:00:00+02:00"}}},
                      {"resource":{"resourceType":"Observation","meta":{"lastUpdated":"2026-01-01T09:00:00Z"}}},
                      {"resource":{"resourceType":"Observation"}}]}
            """.utf8))
        #expect(page.next == "https://a/Observation?page=2" && page.total == 3 && page.entryCount == 3)
        // 10:00+02:00 is 08:00Z: the later instant is 09:00Z, whatever the text says.
        #expect(page.newestResource == "2026-01-01T09:00:00Z")
        #expect(page.bundleLastUpdated == "2026-01-02T00:00:00Z")
        #expect(throws: RecordsSyncError.self) { try SearchPage.parse(Array(#"{"resourceType":"OperationOutcome"}"#.utf8)) }
        #expect(SearchPage.latest(nil, "2026-01-01T00:00:00Z") == "2026-01-01T00:00:00Z")
        #expect(SearchPage.latest("2026-01-01T00:00:00.001Z", "2026-01-01T00:00:00Z") == "2026-01-01T00:00:00.001Z")
        #expect(SearchPage.latest("garbage", "2026-01-01T00:00:00Z") == "2026-01-01T00:00:00Z")
    }

    @Test func nextLinksMustStayOnTheServer() {
        #expect(RecordsSynchronizer.sameOrigin("https://a.example/fhir/Observation?p=2", "https://a.example/fhir"))
        #expect(!RecordsSynchronizer.sameOrigin("https://evil.example/fhir/Observation?p=2", "https://a.example/fhir"))
        #expect(!RecordsSynchronizer.sameOrigin("http://a.example/fhir/Observation", "https://a.example/fhir"))
        #expect(!RecordsSynchronizer.sameOrigin("https://a.example:444/fhir", "https://a.example/fhir"))
    }

    /// Random bytes never crash the readers: they return or throw a typed error.
    @Test func readersRefuseGarbageWithTypedErrors() {
        var generator = SplitMix64(seed: 2026)
        let seeds = [#"{"resourceType":"Bundle","entry":[{"resource":{"meta":{"lastUpdated":"2026"}}}],"link":[{"relation":"next"}]}"#,
                     #"{"authorization_endpoint":"a","token_endpoint":"b"}"#, #"{"access_token":"t","expires_in":1e400}"#]
        for _ in 0..<2_000 {
            var bytes = Array(seeds[generator.below(seeds.count)].utf8)
            for _ in 0..<generator.int(1...4) where !bytes.isEmpty {
                bytes[generator.below(bytes.count)] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = try? SearchPage.parse(bytes)
            _ = try? SMARTEndpoints.parse(smartConfiguration: bytes)
            _ = try? SMARTEndpoints.parse(capabilityStatement: bytes)
            _ = try? TokenGrant.parse(bytes, now: Date())
        }
    }
}
