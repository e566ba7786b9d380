import CommonSupport
import FhirBlocks
import Foundation
@testable import RecordsSync
import Testing
import TestSupport

/// The authorize URL and PKCE pair a connect sends (SMART App Launch 2.0, RFC 7636).
struct SMARTAuthorizationRequestTests {
    @Test func authorizeURLCarriesEveryParameterEncoded() throws {
        var generator = SplitMix64(seed: 7)
        let request = SMARTAuthorizationRequest(clientID: "client 1", redirectURI: "http://127.0.0.1:5555/callback",
                                                scope: "launch/patient patient/Observation.rs",
                                           audience: "https://ehr.example/fhir", using: &generator)
        let url = try #require(URLComponents(string: request.url(endpoint: "https://ehr.example/oauth/authorize")))
        var fields: [String: String] = [:]
        for item in url.queryItems ?? [] { fields[item.name] = item.value?.replacingOccurrences(of: "+", with: " ") }
        #expect(fields["response_type"] == "code")
        #expect(fields["client_id"] == "client 1")
        #expect(fields["redirect_uri"] == "http://127.0.0.1:5555/callback")
        #expect(fields["scope"] == "launch/patient patient/Observation.rs")
        #expect(fields["aud"] == "https://ehr.example/fhir")
        #expect(fields["state"] == request.state)
        #expect(fields["code_challenge_method"] == "S256")
        #expect(fields["code_challenge"] == request.codeChallenge)
        #expect(url.path == "/oauth/authorize")
        // An endpoint with a query of its own keeps it.
        #expect(request.url(endpoint: "https://ehr.example/auth?tenant=a").hasPrefix("https://ehr.example/auth?tenant=a&response_type=code"))
    }

    @Test func verifierAndStateAreFreshWellFormedAndMatchTheChallenge() {
        var generator = SplitMix64(seed: 99)
        var seen = Set<String>()
        for _ in 0..<200 {
            let request = SMARTAuthorizationRequest(clientID: "c", redirectURI: "http://127.0.0.1:1/callback", scope: "s", audience: "a", using: &generator)
            #expect(PKCE.isWellFormed(request.codeVerifier) && request.codeVerifier.count == 43)
            #expect(PKCE.verify(verifier: request.codeVerifier, challenge: request.codeChallenge))
            #expect(request.state != request.codeVerifier)
            #expect(seen.insert(request.state).inserted && seen.insert(request.codeVerifier).inserted)
        }
    }

    @Test func redirectIsCheckedBeforeItsCodeIsUsed() throws {
        #expect(try RecordsConnector.code(from: ["code": "abc", "state": "s1"], state: "s1") == "abc")
        #expect(throws: RecordsSyncError.callback("the redirect's state does not match the request's")) {
            try RecordsConnector.code(from: ["code": "abc", "state": "other"], state: "s1")
        }
        #expect(throws: RecordsSyncError.callback("the redirect has no code")) {
            try RecordsConnector.code(from: ["state": "s1"], state: "s1")
        }
        let refused = RecordsSyncError.authorizationRefused(error: "access_denied", description: "the person declined")
        #expect(throws: refused) { try RecordsConnector.code(from: ["error": "access_denied", "error_description": "the person declined", "state": "s1"],
                                                             state: "s1") }
        #expect(refused.description.contains("access_denied"))
    }

    @Test func defaultNameIsTheHostAndPort() {
        #expect(RecordsConnector.defaultName(base: "http://127.0.0.1:8080/fhir") == "127.0.0.1:8080")
        #expect(RecordsConnector.defaultName(base: "https://ehr.example.org/r4") == "ehr.example.org")
    }
}
