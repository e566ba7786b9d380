import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// RFC 7591 dynamic client registration for SMART clients (`POST /oauth/register`): public
/// ones, and confidential ones with an inline P-256 key (`private_key_jwt`).
extension SmartAuthorizationController {
    /// The largest registration body accepted (bytes).
    static let maximumRegistrationBody = 16 * 1024

    /// How long a dynamically registered client is kept without completing an authorization
    /// (no wallet approved it): 24 hours. Older ones are deleted by the store with the next
    /// registration, so abandoned registrations cannot fill ``ServerConfiguration/maximumSmartClients``
    /// for good.
    static let unapprovedClientLifetimeSeconds: Int64 = 86_400

    /// `POST /oauth/register`: registers a client with its redirect URIs (and key) and answers
    /// `201` with its `client_id`. Refused: a malformed or oversized request (`400`
    /// `invalid_client_metadata` / `invalid_redirect_uri`), more registrations than the server
    /// keeps or one address makes per second (`429`). Anyone may register, so registrations are
    /// counted in the audit log (`RefusalTally`), not logged one by one; clients never
    /// approved are forgotten after `unapprovedClientLifetimeSeconds` (24 hours).
    func registerClient(_ request: ServiceRequest) async -> ServiceResponse {
        guard request.body.count <= Self.maximumRegistrationBody else {
            return Self.registrationError(.invalidClientMetadata("the request is larger than \(Self.maximumRegistrationBody) bytes"))
        }
        if Self.isBackendRegistration(request.body) { return await registerBackendClient(request) }
        let parsed: ClientRegistrationRequest
        do {
            parsed = try ClientRegistrationRequest(jsonBytes: request.body)
        } catch {
            tallyUnverifiedRefusal(.clientRegistration, error: .malformedRequest(error.errorCode))
            return Self.registrationError(error)
        }
        if let retryAfter = rateLimits.registration.take(ClientAddress.current, now: now) {
            metrics.rateLimited(kind: "registration")
            return .error(.rateLimited(retryAfterSeconds: retryAfter))
        }
        let instant = now
        let staleBefore = instant.adding(seconds: -Self.unapprovedClientLifetimeSeconds)
        do {
            if try await store.smartClientCount() >= configuration.maximumSmartClients {
                // Full: forget the clients nobody approved before refusing.
                var purge = TrustChange()
                purge.unapprovedSmartClientsRegisteredBefore = staleBefore
                try await store.commit(purge)
                guard try await store.smartClientCount() < configuration.maximumSmartClients else {
                    tallyUnverifiedRefusal(.clientRegistration, error: .rateLimited(retryAfterSeconds: 3600))
                    return .error(.rateLimited(retryAfterSeconds: 3600))
                }
            }
        } catch {
            return .error(.storageFailure(error.description))
        }
        let client = SmartClient(clientID: random { CsiGuid.random(using: &$0) }, redirectURIs: parsed.redirectURIs,
                                 clientName: parsed.clientName, registeredAt: instant, publicKey: parsed.publicKey)
        var change = TrustChange()
        change.smartClients = [client]
        change.unapprovedSmartClientsRegisteredBefore = staleBefore
        do {
            try await commit(change)
        } catch {
            return .error(error)
        }
        committer.auditLog.refusals.record(.clientRegistration, reason: "registered", outcome: .success)
        var object = JSONObject()
        object.append("client_id", client.clientID.rawValue)
        object.append("client_id_issued_at", .number(String(instant.secondsSince1970)))
        object.append("redirect_uris", strings: client.redirectURIs)
        object.append("token_endpoint_auth_method", client.publicKey == nil ? "none" : "private_key_jwt")
        if let key = client.publicKey { object.append("jwks", .object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk()]))]))) }
        object.append("grant_types", strings: ["authorization_code", "refresh_token"])
        object.append("response_types", strings: ["code"])
        object.append("client_name", ifPresent: client.clientName)
        return .json(.object(object), status: 201, headers: [("Cache-Control", "no-store")])
    }

    static func registrationError(_ error: ClientRegistrationError) -> ServiceResponse {
        ServiceResponse(status: 400, headers: [("Cache-Control", "no-store")], body: error.body.jsonBytes)
    }
}
