import Testing
import FHIRCore
import FhirBlocks
import FhirBlocksServer
import FhirBlocksStore
import Foundation
import SmartHealthCards

/// A server (the real ``TrustService`` on a real store) and helpers that build the requests
/// the FhirBlocks clients send.
struct TestWorld: Sendable {
    static let base = "https://fb.test"
    let service: TrustService
    let store: any TrustStore
    let clock: ScriptedClock
    let backend: TestBackend

    /// A world on `backend`. `clock: .system` uses the real clock (for clients that read the
    /// server's time over HTTP); otherwise a scripted clock the test moves by hand.
    static func make(_ backend: TestBackend, mode: ProtocolMode = .strict, clock trustClock: TrustClock? = nil, checkpointEvery: Int = 64,
                     publicURL: String? = base, cardIssuerKey: SHCIssuerKey? = .generate(),
                     configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestWorld {
        let store = try await backend.makeStore()
        let clock = ScriptedClock(trustClock?.now() ?? Timestamp(secondsSince1970: 1_800_000_000))
        var configuration = ServerConfiguration(mode: mode, publicURL: publicURL, checkpointEvery: checkpointEvery)
        configure(&configuration)
        let service = TrustService(store: store, configuration: configuration,
                                   auditKey: .generate(), cardIssuerKey: cardIssuerKey, clock: trustClock ?? clock.trustClock)
        try await service.start()
        return TestWorld(service: service, store: store, clock: clock, backend: backend)
    }

    func close() async { await store.close() }

    /// Runs `body` with a new world and closes it afterwards, whether `body` returns or throws:
    /// the teardown is awaited, never left to a detached task.
    static func with<Result>(_ backend: TestBackend, mode: ProtocolMode = .strict, clock trustClock: TrustClock? = nil, checkpointEvery: Int = 64,
                             publicURL: String? = base, _ body: (TestWorld) async throws -> Result) async throws -> Result {
        let world = try await make(backend, mode: mode, clock: trustClock, checkpointEvery: checkpointEvery, publicURL: publicURL)
        do {
            let result = try await body(world)
            await world.close()
            return result
        } catch {
            await world.close()
            throw error
        }
    }

    var now: Timestamp { clock.now }

    // MARK: Calls

    func smoac(_ path: String, method: String = "POST", body: [UInt8] = []) async -> ServiceResponse {
        await service.handleSMOAC(ServiceRequest(method: method, path: "/" + path, body: body))
            ?? ServiceResponse(status: 599, body: Array("no such endpoint".utf8))
    }

    func json(_ response: ServiceResponse) -> JSONObject {
        (try? JSONParser.parse(response.body))?.objectValue ?? JSONObject()
    }

    func envelope(_ party: TestParty, cipherField: SMOACEnvelope.CipherField = .cipher) -> SMOACEnvelope {
        var generator = SystemRandomNumberGenerator()
        return SMOACEnvelope(cipherField: cipherField, csiGuid: party.csi.rawValue, dateTime: now.wireText,
                             nonce: ProtocolNonce.random(using: &generator), signature: "")
    }

    func signed<Request: SignedRequest>(_ request: Request, by party: TestParty, style: RequestSigner.Style = .strict) throws -> [UInt8] {
        var request = request
        try RequestSigner.sign(&request, with: party.key, style: style)
        return request.jsonBytes
    }

    /// getGloballyUniqueIdentifier then requestCsiRegistration; returns the registered party.
    func register(_ party: TestParty, style: RequestSigner.Style = .strict) async throws -> TestParty {
        let guid = json(await smoac("util/getGloballyUniqueIdentifier", method: "GET"))["guid"]?.stringValue ?? ""
        var registered = party
        registered.csi = try #require(CsiGuid(guid))
        let request = CsiRegistrationRequest(applicationClass: party.applicationClass, envelope: envelope(registered, cipherField: .cipherSpec),
                                             deviceId: party.deviceId, publicClaims: party.claims, publicKey: party.key.publicKey.spkiBase64)
        let response = await smoac("csi/requestCsiRegistration", body: try signed(request, by: registered, style: style))
        try #require(response.status == 200, "registration: \(String(decoding: response.body, as: UTF8.self))")
        return registered
    }

    func writePermissionRequest(from granter: TestParty, to grantees: [TestParty], resource: String = "Patient", access: String? = "read",
                                confidentiality: String = "V", sensitivity: [String] = ["ETH", "SOC"],
                                start: Timestamp? = nil, end: Timestamp? = nil, patient: TestParty? = nil) -> WritePermissionRequest {
        WritePermissionRequest(envelope: envelope(granter),
                               permission: PermissionGrantBody(startTime: (start ?? now.adding(seconds: -3600)).wireText,
                                                               endTime: (end ?? now.adding(seconds: 30 * 86400)).wireText,
                                                               timeStamp: now.wireText, grantees: grantees.map(\.csi.rawValue),
                                                               heartScope: HeartScope(accessType: access, confidentialityScope: confidentiality,
                                                                                      permissionType: "patient", resourceScope: resource,
                                                                                      sensitivityScope: sensitivity),
                                                               patientCsiGuid: patient?.csi.rawValue))
    }

    func grant(from granter: TestParty, to grantees: [TestParty], resource: String = "Patient", access: String? = "read",
               confidentiality: String = "V", sensitivity: [String] = ["ETH", "SOC"], start: Timestamp? = nil, end: Timestamp? = nil,
               patient: TestParty? = nil) async throws -> ServiceResponse {
        let request = writePermissionRequest(from: granter, to: grantees, resource: resource, access: access, confidentiality: confidentiality,
                                             sensitivity: sensitivity, start: start, end: end, patient: patient)
        return await smoac("permission/writePermission", body: try signed(request, by: granter))
    }

    // MARK: Assertions and tokens

    func assertion(_ party: TestParty, audience: String, scope: String? = nil, lifetime: Int64 = 120, jti: String? = nil, code: String? = nil,
                   key: CsiSigningKey? = nil) throws -> String {
        let iat = now.secondsSince1970
        let claims = JWTClaims(iss: party.csi.rawValue, sub: party.csi.rawValue, aud: [audience], exp: iat + lifetime, iat: iat,
                               jti: jti ?? UUID().uuidString, scope: scope, sta: nil, code: code)
        return try AssertionBuilder.jws(header: JWTHeader(kid: party.csi.rawValue), claims: claims, key: key ?? party.key)
    }

    static func form(_ fields: [(String, String)]) -> [UInt8] {
        FormBody(fields: fields.map { (name: $0.0, value: $0.1) }).encoded()
    }

    func vacaAuth(_ party: TestParty, scope: String, patient: TestParty? = nil, audience: String = "\(base)/vaca/auth") async throws -> ServiceResponse {
        var fields = [("grant_type", VacaAuthRequest.jwtBearerGrantType),
                      ("assertion", try assertion(party, audience: audience, scope: scope))]
        if let patient { fields.append(("patient", patient.csi.rawValue)) }
        return await smoac("vaca/auth", body: Self.form(fields))
    }

    func vacaAccess(_ party: TestParty, code: String) async throws -> ServiceResponse {
        await smoac("vaca/access", body: Self.form([("grant_type", "authorization_code"), ("code", code),
                                                    ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                                                    ("client_assertion", try assertion(party, audience: "\(Self.base)/vaca/access", code: code))]))
    }

    /// vaca/auth + vaca/access; returns the access token (or fails the test).
    func vacaToken(_ party: TestParty, scope: String, patient: TestParty? = nil) async throws -> String {
        let auth = try await vacaAuth(party, scope: scope, patient: patient)
        try #require(auth.status == 200, "vaca/auth: \(String(decoding: auth.body, as: UTF8.self))")
        let code = try #require(json(auth)["code"]?.stringValue)
        let access = try await vacaAccess(party, code: code)
        try #require(access.status == 200, "vaca/access: \(String(decoding: access.body, as: UTF8.self))")
        return try #require(json(access)["access_token"]?.stringValue)
    }

    /// The backend-services token endpoint.
    func clientCredentials(_ party: TestParty, scope: String, patient: TestParty? = nil, audience: String = "\(base)/oauth/token") async throws -> ServiceResponse {
        var fields = [("grant_type", "client_credentials"), ("scope", scope),
                      ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                      ("client_assertion", try assertion(party, audience: audience))]
        if let patient { fields.append(("patient", patient.csi.rawValue)) }
        return await service.token(ServiceRequest(method: "POST", path: "/oauth/token", body: Self.form(fields)))
    }

    func fhir(_ method: String, _ path: String, token: String?, body: [UInt8] = [], query: [String: String] = [:]) async -> ServiceResponse {
        await fhir(method, path, token: token, body: body, parameters: query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// A FHIR request with query parameters in order, repeats kept (as the router passes them).
    func fhir(_ method: String, _ path: String, token: String?, body: [UInt8] = [], parameters: [(String, String)],
              headers extra: [String: String] = [:]) async -> ServiceResponse {
        var headers = extra
        if let token { headers["authorization"] = "Bearer \(token)" }
        let rawQuery = String(decoding: FormBody(fields: parameters.map { (name: $0.0, value: $0.1) }).encoded(), as: UTF8.self)
        let query = Dictionary(parameters, uniquingKeysWith: { first, _ in first })
        return await service.handleFHIR(ServiceRequest(method: method, path: "/fhir/" + path, query: query, rawQuery: rawQuery,
                                                       headers: headers, body: body))
    }
}

