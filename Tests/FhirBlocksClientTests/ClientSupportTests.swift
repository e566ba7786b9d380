import ExactJSON
import FhirBlocks
@testable import FhirBlocksClient
import Testing

@Suite("Client support")
struct ClientSupportTests {
    @Test func baseURLIsNormalisedAndChecked() throws {
        #expect(try ServerBaseURL("http://127.0.0.1:8080/").text == "http://127.0.0.1:8080")
        #expect(try ServerBaseURL("https://fb.example/smoac//").text == "https://fb.example/smoac")
        let base = try ServerBaseURL("https://fb.example")
        #expect(base.url("oauth/token") == "https://fb.example/oauth/token")
        #expect(base.url("/vaca/auth") == "https://fb.example/vaca/auth")
        #expect(base.audience("vaca/access") == "https://fb.example/vaca/access")
        for bad in ["fb.example", "ftp://fb.example", "http://", "https://fb.example/?a=1", "https://user:pw@fb.example", ""] {
            #expect(throws: FhirBlocksClientError.self, "\(bad)") { try ServerBaseURL(bad) }
        }
    }

    @Test func errorBodiesAreRead() {
        let smoac = FhirBlocksClient.errorDetails(Array(#"{"error":"not_permitted","error_description":"no permission"}"#.utf8))
        #expect(smoac.0 == "not_permitted")
        #expect(smoac.1 == "no permission")
        let outcome = FhirBlocksClient.errorDetails(Array(
            #"{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"not-found","diagnostics":"Observation/1 is not known"}]}"#.utf8))
        #expect(outcome.0 == "not-found")
        #expect(outcome.1 == "Observation/1 is not known")
        let plain = FhirBlocksClient.errorDetails(Array("Internal Server Error".utf8))
        #expect(plain.0 == nil && plain.1 == nil)
    }

    @Test func refusalsAreHTTPClientErrors() {
        #expect(FhirBlocksClientError.http(endpoint: "vaca/auth", status: 403, error: "access_denied", errorDescription: nil).isRefusal)
        #expect(FhirBlocksClientError.http(endpoint: "oauth/token", status: 401, error: "invalid_client", errorDescription: "x").isRefusal)
        #expect(!FhirBlocksClientError.http(endpoint: "fhir/Patient", status: 500, error: nil, errorDescription: nil).isRefusal)
        #expect(!FhirBlocksClientError.transport(endpoint: "util/getTime", reason: "connection refused").isRefusal)
        let text = FhirBlocksClientError.http(endpoint: "permission/writePermission", status: 403, error: "not_permitted",
                                              errorDescription: "escalation").description
        #expect(text == "permission/writePermission: HTTP 403 not_permitted: escalation")
    }

    @Test func endpointNamesDropTheQuery() {
        #expect(FhirBlocksClient.endpointName("/fhir/Observation?code=1") == "fhir/Observation")
    }

    @Test func fhirNamesAreChecked() {
        #expect(FhirResourceClient.isResourceType("Observation"))
        #expect(!FhirResourceClient.isResourceType("*"))
        #expect(!FhirResourceClient.isResourceType("../x"))
        #expect(FhirResourceClient.isResourceID("abc-1.2"))
        #expect(!FhirResourceClient.isResourceID("a/b"))
        #expect(!FhirResourceClient.isResourceID(String(repeating: "a", count: 65)))
    }

    @Test func unreachableServerIsATransportError() async throws {
        // Port 9 (discard) on loopback: nothing listens in a test environment.
        let client = try FhirBlocksClient(baseURL: "http://127.0.0.1:9",
                                          configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(5), connectTimeout: .seconds(2)))
        await #expect {
            try await client.ping()
        } throws: { error in
            guard case .transport(let endpoint, _) = error as? FhirBlocksClientError else { return false }
            return endpoint == "util/ping"
        }
        try await client.shutdown()
        try await client.shutdown()  // a second shutdown does nothing
    }

    @Test func walletClaimsAreInLegacyOrder() {
        let claims = PatientClaims(dateOfBirth: "1970-01-31", firstName: "Ada", lastName: "Example", gender: "female").publicClaims
        #expect(claims.map(\.key) == PublicClaim.legacyEmptyClaims.map(\.key))
        #expect(PatientClaims.empty.publicClaims == PublicClaim.legacyEmptyClaims)
    }
}
