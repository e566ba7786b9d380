import ExactJSON
import FhirBlocks
import FhirBlocksStore

/// RFC 7591 dynamic client registration for SMART clients (`POST /oauth/register`): public
/// ones, and confidential ones (`private_key_jwt`, SMART's `client-confidential-asymmetric`)
/// with an inline P-256 key, or with a key set as a backend client registers one (`jwks` with
/// `RS384`, `ES384` or `ES256` keys that have a `kid`, or a `jwks_uri`).
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
        var keySet: (jwks: String?, jwksURI: String?)?
        do {
            if case let (object, publicForm)? = Self.keySetAppRegistration(request.body) {
                // The redirect URIs, name and grant types checked as a public client's; the key set as a backend client's.
                parsed = try ClientRegistrationRequest(jsonBytes: publicForm)
                keySet = try keySetMetadata(object)
            } else {
                parsed = try ClientRegistrationRequest(jsonBytes: request.body)
            }
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
        if let keySet {
            // Its key set is kept as a backend client's, under the same id (`smartClient(_:)` in `+Token` verifies with it).
            do {
                try await store.registerBackendClient(BackendClient(clientID: client.clientID, clientName: client.clientName, jwks: keySet.jwks,
                                                                    jwksURI: keySet.jwksURI, registeredAt: instant),
                                                      limit: configuration.maximumBackendClients)
            } catch .conflict {
                tallyUnverifiedRefusal(.clientRegistration, error: .rateLimited(retryAfterSeconds: 3600))
                return .error(.rateLimited(retryAfterSeconds: 3600))
            } catch {
                return .error(.storageFailure(error.description))
            }
        }
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
        object.append("token_endpoint_auth_method", client.publicKey == nil && keySet == nil ? "none" : "private_key_jwt")
        if let key = client.publicKey { object.append("jwks", .object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk()]))]))) }
        if let jwks = keySet?.jwks, let parsed = try? JSONParser.parse(Array(jwks.utf8)) { object.append("jwks", parsed) }
        object.append("jwks_uri", ifPresent: keySet?.jwksURI)
        object.append("grant_types", strings: ["authorization_code", "refresh_token"])
        object.append("response_types", strings: ["code"])
        object.append("client_name", ifPresent: client.clientName)
        return .json(.object(object), status: 201, headers: [("Cache-Control", "no-store")])
    }

    /// A user-facing `private_key_jwt` registration whose key set the inline P-256 key does not
    /// describe (a `jwks_uri`, or a `jwks` other than one P-256 key): the body as an object, and
    /// the same body as a public client's (without `jwks`, `jwks_uri` and
    /// `token_endpoint_auth_method`) for ``ClientRegistrationRequest`` to check the rest. Nil
    /// for any other registration.
    static func keySetAppRegistration(_ body: [UInt8]) -> (JSONObject, [UInt8])? {
        guard let object = (try? JSONParser.parse(body, maximumDepth: 16))?.objectValue,
              object["token_endpoint_auth_method"] == .string("private_key_jwt") else { return nil }
        if object["jwks_uri"] == nil {
            guard let keys = object["jwks"]?.objectValue?["keys"]?.arrayValue else { return nil }
            if keys.count == 1, let key = keys.first, (try? CsiPublicKey(jwk: key)) != nil { return nil }
        }
        let publicForm = JSONObject(members: object.members.filter { !["jwks", "jwks_uri", "token_endpoint_auth_method"].contains($0.key) })
        return (object, JSONWriter.serialize(.object(publicForm)))
    }

    static func registrationError(_ error: ClientRegistrationError) -> ServiceResponse {
        ServiceResponse(status: 400, headers: [("Cache-Control", "no-store")], body: error.body.jsonBytes)
    }
}
