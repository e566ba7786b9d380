import Foundation
@testable import RecordsSync
import Testing

/// Which issuers a sync trusts as its connection's own server: the https origin of the FHIR base
/// and each of its path prefixes, nothing for an http base, and nil (no request) for any other.
struct ConnectionIssuerKeyResolverTests {
    @Test func trustsOnlyTheHTTPSOriginAndPathPrefixesOfTheBase() async throws {
        let http = SMARTHTTP(timeout: .seconds(5))
        #expect(ConnectionIssuerKeyResolver(fhirBase: "http://127.0.0.1:8080/fhir", http: http) == nil)
        let resolver = try #require(ConnectionIssuerKeyResolver(fhirBase: "https://example.org:8443/a/fhir", http: http))
        #expect(resolver.issuers == ["https://example.org:8443", "https://example.org:8443/a", "https://example.org:8443/a/fhir"])
        #expect(try await resolver.keySet(issuer: "https://example.org:8444/a") == nil)
        #expect(try await resolver.keySet(issuer: "https://example.org:8443/b") == nil)
        #expect(try await resolver.revocationList(issuer: "https://example.org:8443", kid: "../x") == nil)
        try await http.shutdown()
    }
}
