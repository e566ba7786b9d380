import ExactJSON
import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Foundation
import Testing

/// Every way a request is refused, with the status and error code the doc's §1.10 gives, and
/// each refusal audited.
@Suite struct TrustServiceRejectionTests {
    func error(_ response: ServiceResponse) -> String? {
        (try? JSONParser.parse(response.body))?.objectValue?["error"]?.stringValue
    }

    @Test(arguments: TestBackend.available)
    func signedEnvelopeRejections(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            let request = FetchPermissionsGivenToMeRequest(envelope: world.envelope(app))

            // Bad signature: signed by another key.
            var forged = request
            try RequestSigner.sign(&forged, with: wallet.key)
            let badSignature = await world.smoac("permission/fetchPermissionsGivenToMe", body: forged.jsonBytes)
            #expect(badSignature.status == 401 && error(badSignature) == "invalid_signature")

            // Unknown csi.
            var stranger = TestParty.app("stranger")
            stranger.csi = CsiGuid(randomBytes: [9, 9, 9])
            let unknown = await world.smoac("permission/fetchPermissionsGivenToMe",
                                            body: try world.signed(FetchPermissionsGivenToMeRequest(envelope: world.envelope(stranger)), by: stranger))
            #expect(unknown.status == 401 && error(unknown) == "unknown_csi")

            // Stale dateTime (more than 300 s away).
            var stale = FetchPermissionsGivenToMeRequest(envelope: world.envelope(app))
            stale.envelope.dateTime = world.now.adding(seconds: -301).wireText
            let staleResponse = await world.smoac("permission/fetchPermissionsGivenToMe", body: try world.signed(stale, by: app))
            #expect(staleResponse.status == 401 && error(staleResponse) == "stale_date_time")

            // Replayed nonce: the same signed body twice.
            let once = try world.signed(request, by: app)
            #expect(await world.smoac("permission/fetchPermissionsGivenToMe", body: once).status == 200)
            let replay = await world.smoac("permission/fetchPermissionsGivenToMe", body: once)
            #expect(replay.status == 401 && error(replay) == "replayed_nonce")

            // Malformed JSON.
            let malformed = await world.smoac("permission/fetchPermissionsGivenToMe", body: Array("{\"csiGuid\":".utf8))
            #expect(malformed.status == 400 && error(malformed) == "invalid_request")

            // A GET endpoint called with POST is refused in strict mode.
            #expect(await world.smoac("util/ping", method: "POST").status == 400)

            // None of these callers was verified: nothing is logged in the name of the csiGuid a
            // request carries (the forged one names the app, signed by another key)…
            let before = try await world.store.auditRecords(from: 0, limit: 100).compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }
            #expect(!before.contains { $0.outcome != .success && ($0.agent == app.csi.rawValue || $0.agent == stranger.csi.rawValue) })
            // …many more refusals cost no more log…
            for _ in 0..<50 { _ = await world.smoac("permission/fetchPermissionsGivenToMe", body: forged.jsonBytes) }
            // …and each period the refusals are written as counts, one entry per reason.
            await world.service.flushRefusals()
            let after = try await world.store.auditRecords(from: 0, limit: 100).compactMap { try? AuditEntry(canonicalBytes: $0.canonicalBytes) }
            let counted = Dictionary(after.filter { $0.agent == AuditEntry.unverifiedAgent }.map { ($0.reason ?? "", $0.count ?? 0) }, uniquingKeysWith: +)
            #expect(counted == ["invalid_signature": 51, "unknown_csi": 1, "stale_date_time": 1, "replayed_nonce": 1], "\(counted)")
            #expect(after.count - before.count == 4)
            await world.service.flushRefusals()
            #expect(try await world.store.auditCount() == after.count)
        }
    }

    @Test(arguments: TestBackend.available)
    func registrationRules(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let app = try await world.register(.app("a"))
            // The same csiGuid again: 409.
            let again = CsiRegistrationRequest(applicationClass: app.applicationClass, envelope: world.envelope(app, cipherField: .cipherSpec),
                                               deviceId: app.deviceId, publicClaims: app.claims, publicKey: app.key.publicKey.spkiBase64)
            let conflict = await world.smoac("csi/requestCsiRegistration", body: try world.signed(again, by: app))
            #expect(conflict.status == 409 && error(conflict) == "already_registered")
            // Strict: a GUID the server did not hand out is refused.
            var invented = TestParty.app("invented")
            invented.csi = CsiGuid(randomBytes: [1, 2, 3, 4])
            let request = CsiRegistrationRequest(applicationClass: invented.applicationClass, envelope: world.envelope(invented, cipherField: .cipherSpec),
                                                 deviceId: invented.deviceId, publicClaims: invented.claims, publicKey: invented.key.publicKey.spkiBase64)
            #expect(await world.smoac("csi/requestCsiRegistration", body: try world.signed(request, by: invented)).status == 400)
            // Proof of possession: signed with a key other than the one presented.
            let guid = world.json(await world.smoac("util/getGloballyUniqueIdentifier", method: "GET"))["guid"]?.stringValue ?? ""
            var thief = TestParty.app("thief")
            thief.csi = try #require(CsiGuid(guid))
            let stolen = CsiRegistrationRequest(applicationClass: thief.applicationClass, envelope: world.envelope(thief, cipherField: .cipherSpec),
                                                deviceId: thief.deviceId, publicClaims: thief.claims, publicKey: app.key.publicKey.spkiBase64)
            #expect(await world.smoac("csi/requestCsiRegistration", body: try world.signed(stolen, by: thief)).status == 401)
        }
    }

    @Test(arguments: TestBackend.available)
    func publicClaimsNeedALinkInForce(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let victim = try await world.register(.wallet("victim", firstName: "Vera"))
            let rogue = try await world.register(.wallet("rogue", firstName: "Rex"))
            let app = try await world.register(.app("a"))
            func claims(of target: TestParty, by caller: TestParty) async throws -> Int {
                await world.smoac("csi/fetchPublicClaims",
                                  body: try world.signed(FetchPublicClaimsRequest(envelope: world.envelope(caller), desiredCsiGuid: target.csi.rawValue),
                                                         by: caller)).status
            }
            // A wallet may grant to anyone, but granting to a wallet does not open its claims.
            #expect(try await world.grant(from: rogue, to: [victim]).status == 200)
            #expect(try await claims(of: victim, by: rogue) == 403)
            // Its own claims are always readable; the victim (who holds rogue's grant) may read rogue's.
            #expect(try await claims(of: rogue, by: rogue) == 200)
            #expect(try await claims(of: rogue, by: victim) == 200)
            // A grantee reads its granter's claims until the grant is revoked.
            #expect(try await world.grant(from: victim, to: [app]).status == 200)
            #expect(try await claims(of: victim, by: app) == 200)
            let delete = DeletePermissionRequest(envelope: world.envelope(victim), permissionedGuidBeingDeleted: app.csi.rawValue)
            #expect(await world.smoac("permission/deletePermission", body: try world.signed(delete, by: victim)).status == 200)
            #expect(try await claims(of: victim, by: app) == 403)
        }
    }

    /// Compat: the legacy payloads of fetchPublicClaims and deletePermission are the same bytes,
    /// so a captured claims lookup verifies as a revocation; its nonce is spent, because nonces
    /// are single-use across every endpoint. A legacy grant's unsigned accessType grants read only.
    @Test(arguments: TestBackend.available)
    func compatCrossEndpointReplayAndUnsignedAccess(backend: TestBackend) async throws {
        try await TestWorld.with(backend, mode: .compat) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            #expect(try await world.grant(from: wallet, to: [app]).status == 200)
            var lookup = FetchPublicClaimsRequest(envelope: world.envelope(wallet), desiredCsiGuid: app.csi.rawValue)
            try RequestSigner.sign(&lookup, with: wallet.key, style: .legacy)
            #expect(await world.smoac("csi/fetchPublicClaims", body: lookup.jsonBytes).status == 200)
            let replayed = DeletePermissionRequest(envelope: lookup.envelope, permissionedGuidBeingDeleted: app.csi.rawValue)
            let refused = await world.smoac("permission/deletePermission", body: replayed.jsonBytes)
            #expect(refused.status == 401 && error(refused) == "replayed_nonce", "\(String(decoding: refused.body, as: UTF8.self))")
            let permissions = world.json(await world.smoac("permission/fetchPermissionsPreviouslyGrantedByMe",
                                                           body: try world.signed(FetchPermissionsGrantedByMeRequest(envelope: world.envelope(wallet)),
                                                                                  by: wallet)))
            #expect(permissions["permissions"]?.arrayValue?.first?.objectValue?["status"] == .string("active"))

            // A grant naming its patient has only the strict payload, which signs the patient: a
            // legacy signature does not cover it, and a patient changed after signing is refused.
            var named = world.writePermissionRequest(from: wallet, to: [app], resource: "Observation", patient: wallet)
            #expect(named.signedPayloads(mode: .compat).count == 1)
            try RequestSigner.sign(&named, with: wallet.key)
            var redirected = named
            redirected.permission.patientCsiGuid = app.csi.rawValue
            let tampered = await world.smoac("permission/writePermission", body: redirected.jsonBytes)
            #expect(tampered.status == 401 && error(tampered) == "invalid_signature")
            #expect(await world.smoac("permission/writePermission", body: named.jsonBytes).status == 200)

            // A legacy grant (accessType outside the signature) asking for write gets read only.
            let writer = try await world.register(.app("writer"))
            var legacyGrant = world.writePermissionRequest(from: wallet, to: [writer], resource: "Observation", access: "write")
            try RequestSigner.sign(&legacyGrant, with: wallet.key, style: .legacy)
            #expect(await world.smoac("permission/writePermission", body: legacyGrant.jsonBytes).status == 200)
            let listed = world.json(await world.smoac("permission/fetchPermissionsGivenToMe",
                                                      body: try world.signed(FetchPermissionsGivenToMeRequest(envelope: world.envelope(writer)), by: writer)))
            let accessType = listed["permissions"]?.arrayValue?.first?.objectValue?["heartScope"]?.objectValue?["accessType"]?.stringValue
            #expect(accessType == "read", "\(listed)")
        }
    }

    /// What an anonymous caller can make the server keep is bounded: an unused GUID expires,
    /// and a registration's claims have a size cap.
    @Test(arguments: TestBackend.available)
    func anonymousGrowthIsBounded(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            // A GUID older than its lifetime (600 s) no longer registers.
            let guid = try #require(world.json(await world.smoac("util/getGloballyUniqueIdentifier", method: "GET"))["guid"]?.stringValue)
            world.clock.advance(seconds: 601)
            var late = TestParty.wallet("late", firstName: "L")
            late.csi = try #require(CsiGuid(guid))
            let request = CsiRegistrationRequest(applicationClass: late.applicationClass, envelope: world.envelope(late, cipherField: .cipherSpec),
                                                 deviceId: late.deviceId, publicClaims: late.claims, publicKey: late.key.publicKey.spkiBase64)
            let refused = await world.smoac("csi/requestCsiRegistration", body: try world.signed(request, by: late))
            #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("expired"))
            // …and the next GUID issued forgets it.
            _ = await world.smoac("util/getGloballyUniqueIdentifier", method: "GET")
            #expect(try await world.store.isIssuedGuid(late.csi) == false)

            // A device id or application class over 256 bytes is refused too.
            var long = TestParty.app("long")
            long.deviceId = String(repeating: "d", count: 300)
            long.csi = try #require(CsiGuid(world.json(await world.smoac("util/getGloballyUniqueIdentifier", method: "GET"))["guid"]?.stringValue ?? ""))
            let longRequest = CsiRegistrationRequest(applicationClass: long.applicationClass, envelope: world.envelope(long, cipherField: .cipherSpec),
                                                     deviceId: long.deviceId, publicClaims: long.claims, publicKey: long.key.publicKey.spkiBase64)
            #expect(await world.smoac("csi/requestCsiRegistration", body: try world.signed(longRequest, by: long)).status == 400)

            // Claims: at most 64, at most 16 KiB in all.
            for claims in [(0..<65).map { PublicClaim(key: "k\($0)", value: "v") },
                           [PublicClaim(key: "Note", value: String(repeating: "x", count: 17 * 1024))]] {
                var party = TestParty.wallet("big", firstName: "B")
                party.claims = claims
                let fresh = try #require(CsiGuid(world.json(await world.smoac("util/getGloballyUniqueIdentifier", method: "GET"))["guid"]?.stringValue ?? ""))
                party.csi = fresh
                let big = CsiRegistrationRequest(applicationClass: party.applicationClass, envelope: world.envelope(party, cipherField: .cipherSpec),
                                                 deviceId: party.deviceId, publicClaims: party.claims, publicKey: party.key.publicKey.spkiBase64)
                let answer = await world.smoac("csi/requestCsiRegistration", body: try world.signed(big, by: party))
                #expect(answer.status == 400 && error(answer) == "invalid_request", "\(String(decoding: answer.body, as: UTF8.self))")
                #expect(try await world.store.registration(fresh) == nil)
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func grantRules(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            let provider = try await world.register(.app("p"))
            // An app holding nothing cannot grant.
            #expect(try await world.grant(from: app, to: [provider], patient: wallet).status == 403)
            // A window already over is refused as malformed.
            let over = try await world.grant(from: wallet, to: [app], start: world.now.adding(seconds: -7200), end: world.now.adding(seconds: -3600))
            #expect(over.status == 400 && error(over) == "invalid_request")
            // Wallet grants for 1 day; the app may not pass on a longer window.
            #expect(try await world.grant(from: wallet, to: [app], end: world.now.adding(seconds: 86400)).status == 200)
            #expect(try await world.grant(from: app, to: [provider], end: world.now.adding(seconds: 2 * 86400), patient: wallet).status == 403)
            #expect(try await world.grant(from: app, to: [provider], end: world.now.adding(seconds: 3600), patient: wallet).status == 200)
            // An unregistered grantee is 404.
            var ghost = TestParty.app("ghost")
            ghost.csi = CsiGuid(randomBytes: [7])
            #expect(try await world.grant(from: wallet, to: [ghost]).status == 404)
            // Once the wallet's grant expires, the provider's permission is dead too.
            world.clock.advance(seconds: 86400 + 1)
            #expect(try await world.vacaAuth(provider, scope: "patient/Patient.read").status == 403)
            // Deleting a permission that does not exist is 404.
            let delete = DeletePermissionRequest(envelope: world.envelope(wallet), permissionedGuidBeingDeleted: ghost.csi.rawValue)
            #expect(await world.smoac("permission/deletePermission", body: try world.signed(delete, by: wallet)).status == 404)
        }
    }

    @Test(arguments: TestBackend.available)
    func vacaRejections(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            let other = try await world.register(.app("o"))
            #expect(try await world.grant(from: wallet, to: [app]).status == 200)

            // An assertion for another audience.
            let wrongAudience = try await world.vacaAuth(app, scope: "patient/Patient.read", audience: "https://elsewhere.example/vaca/auth")
            #expect(wrongAudience.status == 400 && error(wrongAudience) == "invalid_grant")
            // Scope the app does not hold.
            let escalation = try await world.vacaAuth(app, scope: "patient/Observation.read")
            #expect(escalation.status == 400 && error(escalation) == "invalid_scope")
            // A replayed assertion (same jti).
            let assertion = try world.assertion(app, audience: "\(TestWorld.base)/vaca/auth", scope: "patient/Patient.read", jti: "fixed")
            let form = TestWorld.form([("grant_type", VacaAuthRequest.jwtBearerGrantType), ("assertion", assertion)])
            #expect(await world.smoac("vaca/auth", body: form).status == 200)
            #expect(await world.smoac("vaca/auth", body: form).status == 400)
            // An assertion signed with another key.
            let forged = try world.assertion(app, audience: "\(TestWorld.base)/vaca/auth", scope: "patient/Patient.read", key: other.key)
            #expect(await world.smoac("vaca/auth", body: TestWorld.form([("grant_type", VacaAuthRequest.jwtBearerGrantType),
                                                                         ("assertion", forged)])).status == 400)

            // A code is single-use and bound to its client, and expires after 60 s.
            let code = try #require(world.json(try await world.vacaAuth(app, scope: "patient/Patient.read"))["code"]?.stringValue)
            let stolen = try await world.vacaAccess(other, code: code)
            #expect(stolen.status == 400 && error(stolen) == "invalid_grant")
            // (the failed attempt consumed it: codes are taken atomically before the checks)
            #expect(try await world.vacaAccess(app, code: code).status == 400)
            let late = try #require(world.json(try await world.vacaAuth(app, scope: "patient/Patient.read"))["code"]?.stringValue)
            world.clock.advance(seconds: 61)
            #expect(try await world.vacaAccess(app, code: late).status == 400)
            let fresh = try #require(world.json(try await world.vacaAuth(app, scope: "patient/Patient.read"))["code"]?.stringValue)
            #expect(try await world.vacaAccess(app, code: fresh).status == 200)
            #expect(try await world.vacaAccess(app, code: fresh).status == 400)

            // Token endpoint: unknown grant type, bad assertion type, unknown client.
            let unsupported = await world.service.token(ServiceRequest(method: "POST", path: "/oauth/token",
                                                                       body: TestWorld.form([("grant_type", "password")])))
            #expect(unsupported.status == 400 && error(unsupported) == "unsupported_grant_type")
            let badType = await world.service.token(ServiceRequest(method: "POST", path: "/oauth/token",
                                                                   body: TestWorld.form([("grant_type", "client_credentials"),
                                                                                         ("client_assertion_type", "x"), ("client_assertion", "y")])))
            #expect(badType.status == 401 && error(badType) == "invalid_client")
            var ghost = TestParty.app("ghost")
            ghost.csi = CsiGuid(randomBytes: [3])
            let unknownClient = try await world.clientCredentials(ghost, scope: "patient/Patient.read")
            #expect(unknownClient.status == 401 && error(unknownClient) == "invalid_client")
            // A known client that holds nothing: invalid_scope (RFC 6749 §5.2), never access_denied.
            let holdsNothing = try await world.clientCredentials(other, scope: "patient/Patient.read")
            #expect(holdsNothing.status == 400 && error(holdsNothing) == "invalid_scope")
        }
    }

    @Test(arguments: TestBackend.available)
    func tokenLifetimeIntrospectionAndRevocation(backend: TestBackend) async throws {
        try await TestWorld.with(backend) { world in
            let wallet = try await world.register(.wallet("w", firstName: "A"))
            let app = try await world.register(.app("a"))
            #expect(try await world.grant(from: wallet, to: [app]).status == 200)
            let response = world.json(try await world.clientCredentials(app, scope: "patient/Patient.read"))
            let token = try #require(response["access_token"]?.stringValue)
            #expect(response["expires_in"] == .number("300") && response["token_type"] == .string("bearer")
                    && response["patient"] == .string(wallet.csi.rawValue))

            func introspect(_ token: String, with bearer: String) async -> JSONObject {
                world.json(await world.service.introspect(ServiceRequest(method: "POST", path: "/oauth/introspect",
                                                                         headers: ["authorization": "Bearer \(bearer)"],
                                                                       body: TestWorld.form([("token", token)]))))
            }
            let active = await introspect(token, with: token)
            #expect(active["active"] == .bool(true) && active["client_id"] == .string(app.csi.rawValue) && active["scope"] == response["scope"])
            #expect(await introspect("nonsense", with: token)["active"] == .bool(false))
            // Without a bearer token, introspection is refused.
            #expect(await world.service.introspect(ServiceRequest(method: "POST", path: "/oauth/introspect",
                                                                  body: TestWorld.form([("token", token)]))).status == 401)

            // RFC 7009 revocation kills it.
            let second = try #require(world.json(try await world.clientCredentials(app, scope: "patient/Patient.read"))["access_token"]?.stringValue)
            // A confidential client authenticates (RFC 7009 §2.1): without its assertion, 401
            // invalid_client and nothing revoked; another client's assertion is refused (400
            // unauthorized_client, §2.1) and revokes nothing.
            for fields in [[("token", second)], [("token", second), ("client_id", app.csi.rawValue)]] {
                let unauthenticated = await world.service.revoke(ServiceRequest(method: "POST", path: "/oauth/revoke", body: TestWorld.form(fields)))
                #expect(unauthenticated.status == 401 && world.json(unauthenticated)["error"] == .string("invalid_client"))
            }
            let refused = try await world.revoke(second, by: wallet)
            #expect(refused.status == 400 && world.json(refused)["error"] == .string("unauthorized_client"))
            #expect(await world.fhir("GET", "Patient", token: second).status == 200)
            #expect(await introspect(second, with: token)["active"] == .bool(true))
            #expect(try await world.revoke(second, by: app).status == 200)
            #expect(await introspect(second, with: token)["active"] == .bool(false))
            #expect(await world.fhir("GET", "Patient", token: second).status == 401)

            // After 300 s the first token is expired.
            world.clock.advance(seconds: 300)
            #expect(await world.fhir("GET", "Patient", token: token).status == 401)
        }
    }
}
