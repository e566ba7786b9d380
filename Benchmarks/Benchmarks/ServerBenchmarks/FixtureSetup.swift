import AsyncHTTPClient
import FHIRCore
import FhirBlocks
import Foundation
import NIOCore
import NIOHTTP1

/// The requests that prepare the benchmark's server (not timed).
struct FixtureSetup {
    let base: String
    let client = HTTPClient(eventLoopGroupProvider: .singleton)

    func send(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, contentType: String = "application/json",
              bearer: String? = nil) async throws -> JSONObject {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: contentType)
        }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = Array(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        guard (200..<300).contains(response.status.code) else { throw FixtureError("\(path): \(response.status) \(String(decoding: bytes, as: UTF8.self))") }
        return (try? JSONParser.parse(bytes))?.objectValue ?? JSONObject()
    }

    func envelope(_ csi: CsiGuid, cipherField: SMOACEnvelope.CipherField = .cipher) -> SMOACEnvelope {
        var generator = SystemRandomNumberGenerator()
        let now = Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        return SMOACEnvelope(cipherField: cipherField, csiGuid: csi.rawValue, dateTime: now.wireText, nonce: ProtocolNonce.random(using: &generator),
                             signature: "")
    }

    func register(key: CsiSigningKey, applicationClass: String) async throws -> CsiGuid {
        guard let csi = CsiGuid(try await send(.GET, "/util/getGloballyUniqueIdentifier")["guid"]?.stringValue ?? "") else { throw FixtureError("no GUID") }
        var request = CsiRegistrationRequest(applicationClass: applicationClass, envelope: envelope(csi, cipherField: .cipherSpec), deviceId: "bench-device",
                                             publicClaims: PublicClaim.legacyEmptyClaims, publicKey: key.publicKey.spkiBase64)
        try RequestSigner.sign(&request, with: key)
        _ = try await send(.POST, "/csi/requestCsiRegistration", body: request.jsonBytes)
        return csi
    }

    func grant(wallet: CsiGuid, key: CsiSigningKey, to app: CsiGuid) async throws {
        let now = Int64(Date().timeIntervalSince1970)
        var request = WritePermissionRequest(envelope: envelope(wallet), permission: PermissionGrantBody(
            startTime: Timestamp(secondsSince1970: now - 60).wireText, endTime: Timestamp(secondsSince1970: now + 86400).wireText, grantees: [app.rawValue],
            heartScope: HeartScope(accessType: "read", confidentialityScope: "N", permissionType: "patient", resourceScope: "Observation",
                                   sensitivityScope: [])))
        try RequestSigner.sign(&request, with: key)
        _ = try await send(.POST, "/permission/writePermission", body: request.jsonBytes)
    }

    func token(csi: CsiGuid, key: CsiSigningKey, scope: String) async throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = JWTClaims(iss: csi.rawValue, sub: csi.rawValue, aud: ["\(base)/oauth/token"], exp: now + 120, iat: now, jti: UUID().uuidString,
                               scope: nil, sta: nil, code: nil)
        let assertion = try AssertionBuilder.jws(header: JWTHeader(kid: csi.rawValue), claims: claims, key: key)
        let form = FormBody(fields: [(name: "grant_type", value: "client_credentials"), (name: "scope", value: scope),
                                     (name: "client_assertion_type", value: VacaAuthRequest.jwtBearerAssertionType),
                                     (name: "client_assertion", value: assertion)]).encoded()
        guard let token = try await send(.POST, "/oauth/token", body: form,
                                         contentType: "application/x-www-form-urlencoded")["access_token"]?.stringValue else {
            throw FixtureError("no token")
        }
        return token
    }

    func put(_ url: String, token: String, body: String) async throws {
        _ = try await send(.PUT, String(url.dropFirst(base.count)), body: Array(body.utf8), contentType: "application/fhir+json", bearer: token)
    }
}
