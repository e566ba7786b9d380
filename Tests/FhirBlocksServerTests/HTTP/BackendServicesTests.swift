import CommonSupport
import Crypto
import CryptoExtras
import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import Testing
import TestSupport

/// SMART Backend Services over real HTTP on 127.0.0.1, on SQLite and PostgreSQL: clients
/// registered with an inline `jwks` and with a `jwks_uri` served by a loopback server; client
/// assertions signed RS384, ES384 and ES256 accepted; every refusal of the spec
/// (`invalid_client`); `system/` scopes; a backend client's Bulk Data export holding the two
/// patients that granted it and not a third; the discovery document.
@Suite struct BackendServicesTests {
    @Test(arguments: TestBackend.available)
    func assertionsAreCheckedAsTheSpecSays(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend) { $0.allowsLoopbackKeySetURLs = true }
        let server = try await RunningServer.start(world.service)
        let keys = try [BackendTestKey.rs384("r1"), BackendTestKey.es384("e1"), BackendTestKey.es256("p1")]
        let published = try BackendTestKey.es384("published")
        let keySetServer = try await KeySetServer.start(
            body: JSONWriter.serialize(JSONValue.object(JSONObject(members: [JSONMember(key: "keys", value: .array([published.jwk]))]))))
        try await withTeardown({ await keySetServer.stop(); await server.stop(); await world.close() }) {
            let audience = TestWorld.base + "/oauth/token"
            let wallet = try await world.register(.wallet("w1", firstName: "A"))

            // Registration: inline jwks, jwks_uri, and the refusals.
            let client = try await Self.register(server, ["jwks": .object(JSONObject(members: [JSONMember(key: "keys", value: .array(keys.map(\.jwk)))]))])
            let byURL = try await Self.register(server, ["jwks_uri": .string(keySetServer.url)])
            for refused: [String: JSONValue] in [
                ["jwks_uri": .string("http://example.com/jwks.json")],
                ["jwks_uri": .string("ftp://127.0.0.1/jwks.json")],
                ["jwks": .object(JSONObject(members: [JSONMember(key: "keys", value: .array([.object(JSONObject(members: [
                    JSONMember(key: "kty", value: .string("oct")), JSONMember(key: "kid", value: .string("h")),
                    JSONMember(key: "k", value: .string("c2VjcmV0")),
                ]))]))]))],
                ["jwks": .object(JSONObject(members: [JSONMember(key: "keys", value: .array([keys[0].jwk]))])), "jwks_uri": .string(keySetServer.url)],
                [:],
            ] {
                let response = try await Self.registration(server, refused)
                #expect(response.status == 400 && (try? JSONParser.parse(response.body))?["error"] == .string("invalid_client_metadata"), "\(refused)")
            }

            // Nothing granted yet: every assertion checks out, and the scope is refused.
            let early = try await Self.token(server, keys[0].assertion(client: client, audience: audience, now: world.now), scope: "system/*.rs")
            #expect(early.status == 400 && early.error == "invalid_scope", "\(early)")
            var party = TestParty.app("backend")
            party.csi = client
            var publishedParty = TestParty.app("published")
            publishedParty.csi = byURL
            #expect(try await world.grant(from: wallet, to: [party, publishedParty], resource: "Observation", confidentiality: "N",
                                          sensitivity: []).status == 200)

            // RS384, ES384 and ES256 accepted, SMART v2 and v1 system scopes.
            for (key, scope) in zip(keys, ["system/*.rs", "system/Observation.rs", "system/*.read"]) {
                let answer = try await Self.token(server, key.assertion(client: client, audience: audience, now: world.now), scope: scope)
                try #require(answer.status == 200, "\(key.alg): \(answer)")
                #expect(answer.json["token_type"] == .string("Bearer") && answer.json["patient"] == nil)
                #expect(answer.json["scope"] == .string(scope), "\(answer.json)")
                #expect(answer.headers.contains { $0.0.lowercased() == "cache-control" && $0.1 == "no-store" })
            }
            // The key set behind a jwks_uri (fetched from the loopback server).
            let fetched = try await Self.token(server, published.assertion(client: byURL, audience: audience, now: world.now), scope: "system/*.rs")
            #expect(fetched.status == 200, "\(fetched)")

            // Each refusal is invalid_client.
            let now = world.now.secondsSince1970
            let replayed = try keys[1].assertion(client: client, audience: audience, now: world.now)
            #expect(try await Self.token(server, replayed, scope: "system/*.rs").status == 200)
            let refusals: [(String, String)] = try [
                ("replayed jti", replayed),
                ("wrong aud", keys[0].assertion(client: client, audience: "https://elsewhere.test/oauth/token", now: world.now)),
                ("expired", keys[0].assertion(client: client, audience: audience, now: world.now, claims: ["exp": .number(String(now - 1))])),
                ("exp too far ahead", keys[0].assertion(client: client, audience: audience, now: world.now, claims: ["exp": .number(String(now + 600))])),
                ("iss is not sub", keys[0].assertion(client: client, audience: audience, now: world.now, claims: ["sub": .string(byURL.rawValue)])),
                ("no jti", keys[0].assertion(client: client, audience: audience, now: world.now, claims: ["jti": .null])),
                ("unknown kid", keys[0].assertion(client: client, audience: audience, now: world.now, header: ["kid": .string("nope")])),
                ("no typ", keys[0].assertion(client: client, audience: audience, now: world.now, header: ["typ": .null])),
                ("a key of another client", published.assertion(client: client, audience: audience, now: world.now)),
                ("the wrong algorithm for the key", keys[1].assertion(client: client, audience: audience, now: world.now, header: ["alg": .string("ES256")])),
                ("unknown kid behind jwks_uri", published.assertion(client: byURL, audience: audience, now: world.now, header: ["kid": .string("rotated")])),
                ("alg none", BackendTestKey.unsigned(client: client, audience: audience, now: world.now, alg: "none")),
                ("HS256", BackendTestKey.unsigned(client: client, audience: audience, now: world.now, alg: "HS256")),
                ("a bad signature", String(keys[2].assertion(client: client, audience: audience, now: world.now).dropLast(4)) + "AAAA"),
            ]
            for (what, assertion) in refusals {
                let answer = try await Self.token(server, assertion, scope: "system/*.rs")
                #expect(answer.status == 401 && answer.error == "invalid_client", "\(what): \(answer)")
            }
            // A patient/ scope is not a backend client's: invalid_scope.
            let patientScope = try await Self.token(server, keys[0].assertion(client: client, audience: audience, now: world.now), scope: "patient/*.rs")
            #expect(patientScope.status == 400 && patientScope.error == "invalid_scope")

            // Discovery.
            let discovery = try await HTTPExchange.send(.GET, server.baseURL + "/.well-known/smart-configuration")
            let document = try #require(try JSONParser.parse(discovery.body).objectValue)
            #expect(document["token_endpoint_auth_signing_alg_values_supported"] == .array([.string("ES256"), .string("ES384"), .string("RS384")]))
            #expect(document["capabilities"]?.arrayValue?.contains(.string("client-confidential-asymmetric")) == true)
            #expect(document["scopes_supported"]?.arrayValue?.contains(.string("system/*.rs")) == true)
        }
    }

    @Test(arguments: TestBackend.available)
    func aBackendClientExportsThePatientsThatGrantedItAndNoOther(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let audience = TestWorld.base + "/oauth/token"
            let (wallets, other) = try await Self.seed(world)
            let key = try BackendTestKey.rs384("k1")
            let client = try await Self.register(server, ["jwks": .object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk]))]))])
            var party = TestParty.app("backend")
            party.csi = client
            // w1 and w2 grant the backend client their Observations; w3 grants another app only.
            for wallet in wallets.prefix(2) {
                #expect(try await world.grant(from: wallet, to: [party], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            }
            #expect(try await world.grant(from: wallets[2], to: [other], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)

            let answer = try await Self.token(server, key.assertion(client: client, audience: audience, now: world.now), scope: "system/*.rs")
            try #require(answer.status == 200, "\(answer)")
            let token = try #require(answer.json["access_token"]?.stringValue)

            // Patient/$export: the granting patients' Observations (their Conditions were not granted), nothing of w3.
            let kickoff = try await BulkExportTests.send(server, .GET, "/fhir/Patient/$export", token: token, headers: BulkExportTests.kickoffHeaders)
            try #require(kickoff.status == 202, "\(String(decoding: kickoff.body, as: UTF8.self))")
            let location = try #require(BulkExportTests.header(kickoff, "Content-Location"))
            let manifest = try await BulkExportTests.manifest(server, location, token: token)
            #expect(try await BulkExportTests.download(server, manifest, token: token) == ["Observation/obs-1", "Observation/obs-2"])

            // A Group of a granting patient exports that patient; one with w3 is refused; the system level is for auditors.
            let body = #"{"resourceType":"Group","type":"person","actual":true,"member":[{"entity":{"reference":"Patient/\#(wallets[1].csi.rawValue)"}}]}"#
            let created = try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group",
                                                      headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/fhir+json")],
                                                      body: Array(body.utf8))
            try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            let groupID = try #require(try JSONParser.parse(created.body)["id"]?.stringValue)
            let groupKickoff = try await BulkExportTests.send(server, .GET, "/fhir/Group/\(groupID)/$export", token: token,
                                                              headers: BulkExportTests.kickoffHeaders)
            try #require(groupKickoff.status == 202)
            let groupManifest = try await BulkExportTests.manifest(server, try #require(BulkExportTests.header(groupKickoff, "Content-Location")), token: token)
            #expect(try await BulkExportTests.download(server, groupManifest, token: token) == ["Observation/obs-2"])
            let refusedBody = #"{"resourceType":"Group","type":"person","actual":true,"member":[{"entity":{"reference":"#
                + #""Patient/\#(wallets[2].csi.rawValue)"}}]}"#
            let refused = try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group",
                                                      headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/fhir+json")],
                                                      body: Array(refusedBody.utf8))
            #expect(refused.status == 403)
            #expect(try await BulkExportTests.send(server, .GET, "/fhir/$export", token: token, headers: BulkExportTests.kickoffHeaders).status == 403)

            // RFC 7009: a second token, revoked by the client with its assertion; without the
            // assertion (client_id alone, or nothing) 401 invalid_client and the token still works.
            let spareAnswer = try await Self.token(server, key.assertion(client: client, audience: audience, now: world.now), scope: "system/*.rs")
            let spare = try #require(spareAnswer.json["access_token"]?.stringValue)
            for fields in [[("token", spare)], [("token", spare), ("client_id", client.rawValue)]] {
                let refused = try await SmartCertificationChecksTests.post(server, "/oauth/revoke", fields)
                #expect(refused.status == 401 && refused.json["error"] == .string("invalid_client"))
            }
            let kickoffHeaders = BulkExportTests.kickoffHeaders
            let observations = "/fhir/Patient/$export?_type=Observation"
            #expect(try await BulkExportTests.send(server, .GET, observations, token: spare, headers: kickoffHeaders).status == 202)
            let revoked = try await SmartCertificationChecksTests.post(server, "/oauth/revoke", [
                ("token", spare), ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                ("client_assertion", try key.assertion(client: client, audience: audience, now: world.now))])
            #expect(revoked.status == 200)
            #expect(try await BulkExportTests.send(server, .GET, observations, token: spare, headers: kickoffHeaders).status == 401)

            // Once both wallets revoke, the token covers nobody: 401.
            for wallet in wallets.prefix(2) {
                let revoke = DeletePermissionRequest(envelope: world.envelope(wallet), permissionedGuidBeingDeleted: client.rawValue)
                #expect(await world.smoac("permission/deletePermission", body: try world.signed(revoke, by: wallet)).status == 200)
            }
            #expect(try await BulkExportTests.send(server, .GET, "/fhir/Patient/$export", token: token, headers: BulkExportTests.kickoffHeaders).status == 401)
        }
    }

    // MARK: Helpers

    /// Three wallets, each with an Observation (`obs-1`…) and a Condition (`con-1`…), and another app.
    static func seed(_ world: TestWorld) async throws -> (wallets: [TestParty], other: TestParty) {
        let wallets = [try await world.register(.wallet("w1", firstName: "A")), try await world.register(.wallet("w2", firstName: "B")),
                       try await world.register(.wallet("w3", firstName: "C"))]
        let other = try await world.register(.app("other"))
        var change = TrustChange()
        for (index, wallet) in wallets.enumerated() {
            for type in ["Observation", "Condition"] {
                let id = "\(type.prefix(3).lowercased())-\(index + 1)"
                change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(
                    type: type, id: id, patient: wallet.csi, versionID: 1, lastUpdated: world.now,
                    json: Array(#"{"resourceType":"\#(type)","id":"\#(id)","status":"final"}"#.utf8))))
            }
        }
        try await world.store.commit(change)
        return (wallets, other)
    }

    static func registration(_ server: RunningServer, _ fields: [String: JSONValue]) async throws -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        var object = JSONObject()
        object.append("client_name", "Backend test")
        object.append("grant_types", strings: ["client_credentials"])
        object.append("token_endpoint_auth_method", "private_key_jwt")
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) { object.append(key, value) }
        return try await HTTPExchange.send(.POST, server.baseURL + "/oauth/register", headers: [("Content-Type", "application/json")],
                                           body: JSONWriter.serialize(.object(object)))
    }

    /// Registers a backend client; returns its client_id.
    static func register(_ server: RunningServer, _ fields: [String: JSONValue]) async throws -> CsiGuid {
        let response = try await registration(server, fields)
        try #require(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
        return try #require(CsiGuid(try JSONParser.parse(response.body)["client_id"]?.stringValue ?? ""))
    }

    struct TokenAnswer: CustomStringConvertible {
        let status: Int
        let headers: [(String, String)]
        let json: JSONObject
        var error: String? { json["error"]?.stringValue }
        var description: String { "\(status) \(JSONValue.object(json))" }
    }

    static func token(_ server: RunningServer, _ assertion: String, scope: String) async throws -> TokenAnswer {
        let form = TestWorld.form([("grant_type", "client_credentials"), ("scope", scope),
                                   ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", assertion)])
        let response = try await HTTPExchange.send(.POST, server.baseURL + "/oauth/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                                   body: form)
        return TokenAnswer(status: response.status, headers: response.headers, json: (try? JSONParser.parse(response.body))?.objectValue ?? JSONObject())
    }
}

/// A backend client's private key (RS384, ES384 or ES256), its public JWK, and the client
/// assertions it signs.
struct BackendTestKey: Sendable {
    enum Material: Sendable {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let kid: String
    let alg: String
    let material: Material

    static func rs384(_ kid: String) throws -> BackendTestKey {
        BackendTestKey(kid: kid, alg: "RS384", material: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
    }
    static func es384(_ kid: String) throws -> BackendTestKey { BackendTestKey(kid: kid, alg: "ES384", material: .p384(P384.Signing.PrivateKey())) }
    static func es256(_ kid: String) throws -> BackendTestKey { BackendTestKey(kid: kid, alg: "ES256", material: .p256(P256.Signing.PrivateKey())) }

    static func b64(_ bytes: some Sequence<UInt8>) -> String { Base64URL.encode(Array(bytes)) }

    /// The public JWK.
    var jwk: JSONValue {
        var object = JSONObject()
        switch material {
        case .p256(let key):
            let point = Array(key.publicKey.x963Representation.dropFirst())
            object.append("kty", "EC")
            object.append("crv", "P-256")
            object.append("x", Self.b64(point.prefix(32)))
            object.append("y", Self.b64(point.suffix(32)))
        case .p384(let key):
            let point = Array(key.publicKey.x963Representation.dropFirst())
            object.append("kty", "EC")
            object.append("crv", "P-384")
            object.append("x", Self.b64(point.prefix(48)))
            object.append("y", Self.b64(point.suffix(48)))
        case .rsa(let key):
            let primitives = try? key.publicKey.getKeyPrimitives()
            object.append("kty", "RSA")
            object.append("n", Self.b64(primitives?.modulus ?? Data()))
            object.append("e", Self.b64(primitives?.publicExponent ?? Data()))
        }
        object.append("kid", kid)
        object.append("alg", alg)
        object.append("use", "sig")
        return .object(object)
    }

    static func claims(client: CsiGuid, audience: String, now: Timestamp, overrides: [String: JSONValue]) -> JSONObject {
        var values: [(String, JSONValue)] = [("iss", .string(client.rawValue)), ("sub", .string(client.rawValue)), ("aud", .string(audience)),
                                             ("exp", .number(String(now.secondsSince1970 + 240))), ("iat", .number(String(now.secondsSince1970))),
                                             ("jti", .string(UUID().uuidString))]
        values = values.map { (name, value) in (name, overrides[name] ?? value) }
        var object = JSONObject()
        for (name, value) in values where value != .null { object.append(name, value) }
        return object
    }

    /// A client assertion signed with this key; `header` and `claims` replace (or, with
    /// `.null`, remove) members of the usual ones.
    func assertion(client: CsiGuid, audience: String, now: Timestamp, header: [String: JSONValue] = [:], claims: [String: JSONValue] = [:]) throws -> String {
        var head = JSONObject()
        for (name, value) in [("alg", JSONValue.string(alg)), ("typ", .string("JWT")), ("kid", .string(kid))] where (header[name] ?? value) != .null {
            head.append(name, header[name] ?? value)
        }
        let input = Self.b64(JSONWriter.serialize(.object(head))) + "." + Self.b64(JSONWriter.serialize(.object(Self.claims(client: client, audience: audience,
                                                                                                                      now: now, overrides: claims))))
        let data = Array(input.utf8)
        let signature: [UInt8]
        switch material {
        case .p256(let key): signature = Array(try key.signature(for: data).rawRepresentation)
        case .p384(let key): signature = Array(try key.signature(for: data).rawRepresentation)
        case .rsa(let key): signature = Array(try key.signature(for: SHA384.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        return input + "." + Self.b64(signature)
    }

    /// An assertion under `alg` (`none`, `HS256`) with a made-up signature.
    static func unsigned(client: CsiGuid, audience: String, now: Timestamp, alg: String) -> String {
        let head = JSONValue.object(JSONObject(members: [JSONMember(key: "alg", value: .string(alg)), JSONMember(key: "typ", value: .string("JWT")),
                                                         JSONMember(key: "kid", value: .string("r1"))]))
        let claims = claims(client: client, audience: audience, now: now, overrides: [:])
        let input = b64(JSONWriter.serialize(head)) + "." + b64(JSONWriter.serialize(.object(claims)))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array("secret".utf8)))
        return input + "." + b64(Array(mac))
    }
}

/// A SMART Backend Services client we did not write (scripts/backend-services-peer.py, on
/// `jwcrypto`) against the server over loopback: it registers itself with an RSA key, and after
/// two of three wallets granted it, authenticates with an RS384 assertion and runs a Bulk Data
/// export (kick-off, polling, download) that holds exactly the two patients' Observations.
@Suite(.enabled(if: FhirClientPeer.python != nil,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with jwcrypto (scripts/test.sh makes one) to run the backend services peer test"))
struct BackendServicesPeerTests {
    @Test func jwcryptoBackendClientExportsWhatTwoPatientsGranted() async throws {
        let world = try await TestWorld.make(.sqlite, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("backend-peer-\(UUID().uuidString).jwk").path
        try await withTeardown({ try? FileManager.default.removeItem(atPath: keyFile); await server.stop(); await world.close() }) {
            let (wallets, other) = try await BackendServicesTests.seed(world)
            let script = FhirClientPeer.script(named: "backend-services-peer.py")
            let registered = try await FhirClientPeer.run(["register", server.baseURL, keyFile], scriptPath: script)
            try #require(registered.status == 0, "\(registered.error)")
            let clientID = try #require(try JSONParser.parse(Array(registered.output.utf8))["client_id"]?.stringValue)
            var party = TestParty.app("peer")
            party.csi = try #require(CsiGuid(clientID))
            for wallet in wallets.prefix(2) {
                #expect(try await world.grant(from: wallet, to: [party], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            }
            #expect(try await world.grant(from: wallets[2], to: [other], resource: "Observation", confidentiality: "N", sensitivity: []).status == 200)
            let output = try await FhirClientPeer.run(["export", server.baseURL, clientID, keyFile, String(world.now.secondsSince1970), "system/*.rs"],
                                                      scriptPath: script)
            try #require(output.status == 0, "\(output.error)")
            let result = try #require(try JSONParser.parse(Array(output.output.utf8)).objectValue)
            #expect(result["scope"] == .string("system/*.rs") && result["token_type"] == .string("Bearer"))
            #expect(result["resources"] == .array([.string("Observation/obs-1"), .string("Observation/obs-2")]), "\(result)")
        }
    }
}
