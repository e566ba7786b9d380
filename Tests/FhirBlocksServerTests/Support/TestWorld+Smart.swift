import CommonSupport
import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import Testing

/// SMART standalone launch as an app and a wallet do it: dynamic registration, `/authorize`,
/// the wallet's signed decision, the public client's token requests.
extension TestWorld {
    static let redirect = "https://app.example/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-a-long-enough-verifier"

    /// A registered wallet that stored `Observation/o1` in its compartment.
    func walletWithObservation() async throws -> TestParty {
        let wallet = try await register(.wallet("w", firstName: "Alice"))
        let token = try #require(json(try await clientCredentials(wallet, scope: "patient/*.cruds conf/V"))["access_token"]?.stringValue)
        let put = await fhir("PUT", "Observation/o1", token: token,
                             body: Array(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"pulse"}}"#.utf8))
        try #require(put.status == 201)
        return wallet
    }

    /// Registers a public client; returns its client_id.
    func registerSmartClient(redirects: [String] = [redirect], name: String = "Test app") async throws -> String {
        let body = JSONWriter.serialize(.object(JSONObject(members: [
            JSONMember(key: "redirect_uris", value: .array(redirects.map { .string($0) })),
            JSONMember(key: "token_endpoint_auth_method", value: .string("none")),
            JSONMember(key: "client_name", value: .string(name)),
        ])))
        let response = await router.send("POST", "/oauth/register", headers: [("Content-Type", "application/json")], body: body)
        try #require(response.status == 201, "register: \(String(decoding: response.body, as: UTF8.self))")
        return try #require(json(response)["client_id"]?.stringValue)
    }

    /// The `/authorize` query an app sends (fields in order; nil values left out).
    func authorizeQuery(client: String, redirect: String = redirect, scope: String = "launch/patient patient/Observation.rs offline_access",
                        state: String? = "st-1", verifier: String = verifier, method: String? = "S256", aud: String? = nil,
                        responseType: String = "code") -> String {
        let fields: [(String, String?)] = [("response_type", responseType), ("client_id", client), ("redirect_uri", redirect), ("scope", scope),
                                           ("state", state), ("aud", aud ?? "\(Self.base)/fhir"), ("code_challenge", PKCE.challenge(for: verifier)),
                                           ("code_challenge_method", method)]
        return String(decoding: Self.form(fields.compactMap { name, value in value.map { (name, $0) } }), as: UTF8.self)
    }

    /// `GET /oauth/authorize?query`.
    func authorize(_ query: String, json: Bool = false) async -> ServiceResponse {
        await router.send("GET", "/oauth/authorize" + (query.isEmpty ? "" : "?" + query), headers: json ? [("Accept", "application/json")] : [])
    }

    /// The user code of a waiting authorization (asked as JSON).
    func userCode(_ query: String) async throws -> String {
        let response = await authorize(query, json: true)
        try #require(response.status == 200, "authorize: \(String(decoding: response.body, as: UTF8.self))")
        return try #require(json(response)["user_code"]?.stringValue)
    }

    /// The wallet's signed decision.
    func decide(_ wallet: TestParty, code: String, _ decision: DecideAuthorizationRequest.Decision, scope: String = "",
                until: Timestamp? = nil) async throws -> ServiceResponse {
        let request = DecideAuthorizationRequest(envelope: envelope(wallet), userCode: code, decision: decision, scope: scope,
                                                 endTime: until?.wireText ?? "")
        return await smoac("permission/decideAuthorization", body: try signed(request, by: wallet))
    }

    /// Registers a confidential client (`private_key_jwt` with `key`); returns its client_id.
    func registerConfidentialClient(key: CsiSigningKey) async throws -> String {
        let body = JSONWriter.serialize(.object(JSONObject(members: [
            JSONMember(key: "redirect_uris", value: .array([.string(Self.redirect)])),
            JSONMember(key: "token_endpoint_auth_method", value: .string("private_key_jwt")),
            JSONMember(key: "jwks", value: .object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.publicKey.jwk()]))]))),
        ])))
        let response = await router.send("POST", "/oauth/register", headers: [("Content-Type", "application/json")], body: body)
        try #require(response.status == 201, "register: \(String(decoding: response.body, as: UTF8.self))")
        return try #require(json(response)["client_id"]?.stringValue)
    }

    /// A client assertion of a registered SMART client for the token endpoint.
    func clientAssertion(client: String, key: CsiSigningKey) throws -> String {
        let iat = now.secondsSince1970
        let claims = JWTClaims(iss: client, sub: client, aud: ["\(Self.base)/oauth/token"], exp: iat + 120, iat: iat, jti: UUID().uuidString,
                               scope: nil, sta: nil, code: nil)
        return try AssertionBuilder.jws(header: JWTHeader(kid: client), claims: claims, key: key)
    }

    /// The query parameters of a redirect's `Location`.
    static func redirectParameters(_ response: ServiceResponse) throws -> [String: String] {
        let location = try #require(response.headers.first { $0.0 == "Location" }?.1)
        let query = try #require(location.split(separator: "?", maxSplits: 1).last)
        return Dictionary(try FormBody.parse(Array(query.utf8), mode: .strict).value.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// The public client's token request.
    func smartToken(_ fields: [(String, String)]) async -> ServiceResponse {
        await router.send("POST", "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Self.form(fields))
    }

    /// `authorization_code` with PKCE.
    func exchange(client: String, code: String, redirect: String = redirect, verifier: String = verifier) async -> ServiceResponse {
        await smartToken([("grant_type", "authorization_code"), ("client_id", client), ("code", code), ("redirect_uri", redirect),
                          ("code_verifier", verifier)])
    }

    /// `refresh_token`.
    func refresh(client: String, token: String) async -> ServiceResponse {
        await smartToken([("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", token)])
    }

    /// Register, authorize, approve, load the page again: the code from the redirect.
    func approvedCode(wallet: TestParty, client: String, scope: String = "launch/patient patient/Observation.rs offline_access",
                      state: String = "st-1", chosen: String = "", until: Timestamp? = nil) async throws -> String {
        let query = authorizeQuery(client: client, scope: scope, state: state)
        let code = try await userCode(query)
        let decision = try await decide(wallet, code: code, .approve, scope: chosen, until: until)
        try #require(decision.status == 200, "approve: \(String(decoding: decision.body, as: UTF8.self))")
        let redirect = await authorize(query)
        try #require(redirect.status == 302)
        return try #require(try Self.redirectParameters(redirect)["code"])
    }
}
