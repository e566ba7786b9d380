import Testing
import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SmartHealthCards
import Synchronization

/// A server (the real ``TrustService`` on a real store, behind the application's real router)
/// and helpers that build the requests the FhirBlocks clients send. The helpers send them as
/// HTTP requests through the router (HummingbirdTesting's router mode, no socket).
struct TestWorld: Sendable {
    static let base = "https://fb.test"
    let service: TrustService
    let store: any TrustStore
    let clock: ScriptedClock
    /// The server's clock when it is not ``clock`` (`clock: .system`): assertions are dated by it,
    /// so a test slowed down by a loaded machine never sends an assertion that has expired.
    let serverClock: TrustClock?
    let backend: TestBackend
    /// The application's router over ``service``.
    let router: TestRouter

    init(service: TrustService, store: any TrustStore, clock: ScriptedClock, serverClock: TrustClock? = nil, backend: TestBackend) {
        self.service = service
        self.store = store
        self.clock = clock
        self.serverClock = serverClock
        self.backend = backend
        router = TestRouter(service: service)
    }

    /// A world on `backend`. `clock: .system` uses the real clock (for clients that read the
    /// server's time over HTTP); otherwise a scripted clock the test moves by hand.
    static func make(_ backend: TestBackend, mode: ProtocolMode = .strict, clock trustClock: TrustClock? = nil, checkpointEvery: Int = 64,
                     publicURL: String? = base, cardIssuerKey: SHCIssuerKey? = .generate(),
                     configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestWorld {
        let store = try await backend.makeStore()
        let clock = ScriptedClock(trustClock?.now() ?? Timestamp(secondsSince1970: 1_800_000_000))
        var configuration = ServerConfiguration(mode: mode, publicURL: publicURL, checkpointEvery: checkpointEvery)
        // Every request comes from one test "address" on a scripted clock that never refills an
        // allowance: the per-address limit is the rate-limit tests' to set (through `configure`).
        configuration.rateLimitPerAddress = RateLimit(perSecond: 1e9, burst: 1e9)
        configure(&configuration)
        let service = TrustService(store: store, configuration: configuration,
                                   auditKey: .generate(), cardIssuerKey: cardIssuerKey, clock: trustClock ?? clock.trustClock)
        try await service.start()
        return TestWorld(service: service, store: store, clock: clock, serverClock: trustClock, backend: backend)
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

    var now: Timestamp { serverClock?.now() ?? clock.now }

    // MARK: Calls

    /// `METHOD /path` of a SMOAC endpoint (`util/ping`…), through the router.
    func smoac(_ path: String, method: String = "POST", body: [UInt8] = []) async -> ServiceResponse {
        await router.send(method, "/" + path, body: body)
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
    func clientCredentials(_ party: TestParty, scope: String, patient: TestParty? = nil,
                           audience: String = "\(base)/oauth/token") async throws -> ServiceResponse {
        var fields = [("grant_type", "client_credentials"), ("scope", scope),
                      ("client_assertion_type", VacaAuthRequest.jwtBearerAssertionType),
                      ("client_assertion", try assertion(party, audience: audience))]
        if let patient { fields.append(("patient", patient.csi.rawValue)) }
        return await router.send("POST", "/oauth/token", body: Self.form(fields))
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
        return await router.send(method, "/fhir/" + path + (rawQuery.isEmpty ? "" : "?" + rawQuery), headers: headers.sorted { $0.key < $1.key },
                                 body: body)
    }
}

/// The application's router (``FhirBlocksRouter``, its middleware and controllers) over one
/// service, reached as HummingbirdTesting's router mode reaches it: each request is an HTTP
/// request routed, authenticated and answered as behind the server, without a socket.
final class TestRouter: Sendable {
    private let service: TrustService
    /// The router-mode client, made on first use. An application without services has no
    /// lifecycle, so the client stays usable after `test(.router)` returns it.
    private let client = Mutex<(any TestClientProtocol)?>(nil)

    init(service: TrustService) {
        self.service = service
    }

    /// Sends `method path` (the path with its query) with `headers` and `body`; the answer as a
    /// ``ServiceResponse`` (`Content-Type` in its field, `Content-Length` left out). A request the
    /// test client could not make answers 599.
    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) async -> ServiceResponse {
        do {
            var fields = HTTPFields()
            for (name, value) in headers {
                guard let fieldName = HTTPField.Name(name) else { return ServiceResponse(status: 599, body: Array("bad header \(name)".utf8)) }
                fields.append(HTTPField(name: fieldName, value: value))
            }
            let response = try await client().executeRequest(uri: path, method: HTTPRequest.Method(rawValue: method.uppercased()) ?? .get,
                                                              headers: fields, body: body.isEmpty ? nil : ByteBuffer(bytes: body))
            var contentType = ""
            var answerHeaders: [(String, String)] = []
            for field in response.headers {
                switch field.name {
                case .contentType: contentType = field.value
                case .contentLength: break
                default: answerHeaders.append((field.name.rawName, field.value))
                }
            }
            return ServiceResponse(status: Int(response.status.code), contentType: contentType, headers: answerHeaders,
                                   body: Array(response.body.readableBytesView))
        } catch {
            return ServiceResponse(status: 599, body: Array("\(error)".utf8))
        }
    }

    private func client() async throws -> any TestClientProtocol {
        if let made = client.withLock({ $0 }) { return made }
        var logger = Logger(label: "fhirblocks-test")
        logger.logLevel = .warning
        let application = Application(router: FhirBlocksRouter.make(service: service, logger: logger), logger: logger)
        let made = try await application.test(.router) { client in client }
        client.withLock { $0 = made }
        return made
    }
}

