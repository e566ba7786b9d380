import AsyncHTTPClient
import FHIRCore
import FhirBlocks
import FhirBlocksClient
import Foundation
import HTTPTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// `health serve` issues SMART Health Cards: the issuer key is created on first start (0600),
/// and a card from `$health-cards-issue` verifies with `health shc verify`, its https issuer's
/// key set (as `/.well-known/jwks.json` served it) resolved offline with `--issuer ISS=DIR`.
@Suite(.serialized) struct ServeHealthCardsTests {
    static let issuer = "https://fb.test"

    /// A port that was free a moment ago (`health serve` must be told its port, since the first
    /// line names the public URL).
    static func freePort() throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw ServeCommandTests.TestFailure("socket failed") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, length) == 0 && getsockname(socketDescriptor, $0, &length) == 0
            }
        }
        guard bound else { throw ServeCommandTests.TestFailure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func send(_ method: HTTPMethod, _ url: String, token: String? = nil, body: [UInt8]? = nil,
                     contentType: String = "application/fhir+json") async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: contentType)
        }
        let response = try await HTTPExchange.client.execute(request, timeout: .seconds(300))
        return (Int(response.status.code), Array(try await response.body.collect(upTo: 8 << 20).readableBytesView))
    }

    @Test func issuedCardVerifiesWithShcVerify() async throws {
        let runner = CommandRunner()
        defer { runner.remove() }
        let (server, port) = try await ServeCommandTests.Server.startOnFreePort(runner, arguments: ["--public-url", Self.issuer])
        defer { server.process.terminate() }
        #expect(server.url == Self.issuer)
        let keyFile = runner.folder.appendingPathComponent("data/card-issuer-key.json").path
        #expect((try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        var url = "http://127.0.0.1:\(port)"

        // The wallet registers and takes a token over its own data (the assertion's audience is
        // the public URL, as the server checks it).
        let client = try FhirBlocksClient(baseURL: url, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
        let identity: CsiIdentity
        do {
            identity = try await WalletClient.register(client: client, claims: PatientClaims(firstName: "John")).identity
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        let assertion = try ClientAssertion.make(identity: identity, audience: "\(Self.issuer)/oauth/token",
                                                 now: Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000)), lifetimeSeconds: 120)
        let form = FormBody(fields: [(name: "grant_type", value: "client_credentials"), (name: "scope", value: "patient/*.cruds conf/V"),
                                     (name: "client_assertion_type", value: VacaAuthRequest.jwtBearerAssertionType),
                                     (name: "client_assertion", value: assertion)]).encoded()
        let tokenResponse = try await Self.send(.POST, "\(url)/oauth/token", body: form, contentType: "application/x-www-form-urlencoded")
        let token = try #require((try? JSONParser.parse(tokenResponse.body))?["access_token"]?.stringValue,
                                 "\(String(decoding: tokenResponse.body, as: UTF8.self))")
        for (path, json) in [("Patient/p1", #"{"resourceType":"Patient","id":"p1","name":[{"family":"Anyperson","given":["John"]}],"birthDate":"1951-01-20"}"#),
                             ("Immunization/i1", #"{"resourceType":"Immunization","id":"i1","status":"completed","#
                                 + #""vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]},"patient":{"reference":"Patient/p1"},"#
                                 + #""occurrenceDateTime":"2021-01-01"}"#)] {
            #expect(try await Self.send(.PUT, "\(url)/fhir/\(path)", token: token, body: Array(json.utf8)).status == 201)
        }
        // Without --card-source the server signs nothing.
        let parameters = #"{"resourceType":"Parameters","parameter":[{"name":"credentialType","valueUri":"Immunization"}]}"#
        #expect(try await Self.send(.POST, "\(url)/fhir/Patient/p1/$health-cards-issue", token: token, body: Array(parameters.utf8)).status == 501)
        // Started again (same data folder, public URL and so token audience) listing the wallet,
        // which wrote them, as a card source.
        server.process.terminate()
        server.process.waitUntilExit()
        let unregistered = try await runner.run(["serve", "--port", "0", "--data-dir", runner.folder.appendingPathComponent("data").path,
                                                 "--card-source", "00000000-0000-4000-8000-000000000000"])
        #expect(unregistered.status == 2 && unregistered.error.contains("--card-source"), "\(unregistered.error)")
        let (sourced, sourcedPort) = try await ServeCommandTests.Server.startOnFreePort(
            runner, arguments: ["--public-url", Self.issuer, "--card-source", identity.csiGuid.rawValue])
        defer { sourced.process.terminate() }
        url = "http://127.0.0.1:\(sourcedPort)"
        let issued = try await Self.send(.POST, "\(url)/fhir/Patient/p1/$health-cards-issue", token: token, body: Array(parameters.utf8))
        #expect(issued.status == 200)
        let response = runner.folder.appendingPathComponent("issued.json")
        try Data(issued.body).write(to: response)

        // The key set as served, kept in an issuer folder for offline resolution.
        let jwks = try await Self.send(.GET, "\(url)/.well-known/jwks.json")
        let issuerFolder = runner.folder.appendingPathComponent("issuer")
        try FileManager.default.createDirectory(at: issuerFolder.appendingPathComponent(".well-known"), withIntermediateDirectories: true)
        try Data(jwks.body).write(to: issuerFolder.appendingPathComponent(".well-known/jwks.json"))
        let verified = try await runner.run(["shc", "verify", response.path, "--issuer", "\(Self.issuer)=\(issuerFolder.path)"],
                                            environment: ["XDG_CACHE_HOME": runner.folder.path])
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        #expect(verified.output.contains(": VALID") && verified.output.contains("John Anyperson"), "\(verified.output)")

        // Another issuer's keys do not verify it.
        let strangerFolder = runner.folder.appendingPathComponent("stranger")
        #expect(try await runner.run(["shc", "keygen", "--out", strangerFolder.path]).status == 0)
        let refused = try await runner.run(["shc", "verify", response.path, "--issuer", "\(Self.issuer)=\(strangerFolder.path)"],
                                           environment: ["XDG_CACHE_HOME": runner.folder.path])
        #expect(refused.status == 1, "\(refused.output)")
    }
}
