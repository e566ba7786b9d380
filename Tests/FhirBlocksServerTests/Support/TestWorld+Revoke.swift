import FhirBlocks
import FhirBlocksServer

/// `POST /oauth/revoke` (RFC 7009) as a client sends it: authenticated as at the token endpoint.
extension TestWorld {
    /// The form revoking `token` by the registered party `party`, with its client assertion (audience: the token endpoint).
    func revocationForm(_ token: String, by party: TestParty, hint: String? = nil) throws -> [UInt8] {
        var fields = [("token", token), ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                      ("client_assertion", try assertion(party, audience: "\(Self.base)/oauth/token"))]
        if let hint { fields.append(("token_type_hint", hint)) }
        return Self.form(fields)
    }

    /// `token` revoked through the service by the registered party `party`.
    func revoke(_ token: String, by party: TestParty, hint: String? = nil) async throws -> ServiceResponse {
        await service.revoke(ServiceRequest(method: "POST", path: "/oauth/revoke", body: try revocationForm(token, by: party, hint: hint)))
    }

    /// `token` revoked through the service by the public client `client` (its `client_id`).
    func revoke(_ token: String, publicClient client: String, hint: String? = nil) async -> ServiceResponse {
        var fields = [("token", token), ("client_id", client)]
        if let hint { fields.append(("token_type_hint", hint)) }
        return await service.revoke(ServiceRequest(method: "POST", path: "/oauth/revoke", body: Self.form(fields)))
    }
}
