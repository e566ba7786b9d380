import Crypto
import ExactJSON
import FhirBlocks
@testable import FhirBlocksServer
import FhirBlocksStore
import Foundation
import NIOHTTP1
import Testing
import TestSupport

/// SMART's own Bulk Data client, `smart-fetch` (PyPI, by the SMART Health IT team at Boston
/// Children's; we did not write it), against the server on 127.0.0.1: it authenticates as a
/// backend client (SMART Backend Services, an ES384 key from a JWKS file, discovery of the token
/// endpoint), kicks off `Group/{id}/$export`, polls, downloads every file and deletes the job.
/// What it wrote equals what a FHIR search of each patient returns, resource for resource, and
/// holds nothing of a patient outside the Group. On every store.
@Suite(.enabled(if: SmartFetchPeer.executable != nil,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with smart-fetch (scripts/test.sh installs it) to run the smart-fetch peer test"))
struct SmartFetchPeerTests {
    @Test(arguments: TestBackend.available)
    func smartFetchExportsAGroupAsASearchReturnsIt(backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend, clock: .system, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("smart-fetch-\(UUID().uuidString)").path
        try await withTeardown({
            try? FileManager.default.removeItem(atPath: scratch)
            await server.stop()
            await world.close()
        }) {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let wallets = [try await world.register(.wallet("w1", firstName: "A")), try await world.register(.wallet("w2", firstName: "B")),
                           try await world.register(.wallet("w3", firstName: "C"))]
            let other = try await world.register(.app("other"))
            // Each patient: 40 Observations and 3 Conditions.
            var change = TrustChange()
            for (number, wallet) in wallets.enumerated() {
                for index in 0..<40 {
                    let json = #"{"resourceType":"Observation","id":"obs-\#(number)-\#(index)","status":"final","#
                        + #""code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}],"text":"Heart rate"},"#
                        + #""valueQuantity":{"value":\#(60 + index),"unit":"/min"},"effectiveDateTime":"2026-01-\#(10 + index % 18)T08:00:00Z"}"#
                    change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Observation", id: "obs-\(number)-\(index)",
                                                                                         patient: wallet.csi, versionID: 1, lastUpdated: world.now,
                                                                                         json: Array(json.utf8))))
                }
                for index in 0..<3 {
                    let json = #"{"resourceType":"Condition","id":"con-\#(number)-\#(index)","code":{"text":"condition \#(index)"}}"#
                    change.resources.append(FHIRResourceWrite(record: FHIRResourceRecord(type: "Condition", id: "con-\(number)-\(index)",
                                                                                         patient: wallet.csi, versionID: 1, lastUpdated: world.now,
                                                                                         json: Array(json.utf8))))
                }
            }
            try await world.store.commit(change)

            // smart-fetch's key: an ES384 JWKS file (private, 0600) it signs its client assertions with; the public half registered.
            let key = try BackendTestKey.es384("smart-fetch-1")
            let keySet = JSONValue.object(JSONObject(members: [JSONMember(key: "keys", value: .array([key.jwk]))]))
            let client = try await BackendServicesTests.register(server, ["jwks": keySet])
            let keyFile = scratch + "/key.jwks"
            try SmartFetchPeer.writePrivateKeySet(key, to: keyFile)
            var party = TestParty.app("smart-fetch")
            party.csi = client
            for wallet in wallets.prefix(2) {
                for type in ["Observation", "Condition"] {
                    #expect(try await world.grant(from: wallet, to: [party], resource: type, sensitivity: []).status == 200)
                }
            }
            #expect(try await world.grant(from: wallets[2], to: [other], resource: "Observation", sensitivity: []).status == 200)

            // The Group of the two granting patients (created with a token of the same client).
            let discovery = try await HTTPExchange.send(.GET, server.baseURL + "/.well-known/smart-configuration")
            let tokenEndpoint = try #require(try JSONParser.parse(discovery.body)["token_endpoint"]?.stringValue)
            let answer = try await BackendServicesTests.token(server, key.assertion(client: client, audience: tokenEndpoint, now: world.now),
                                                              scope: "system/*.rs")
            let token = try #require(answer.json["access_token"]?.stringValue, "\(answer)")
            let members = wallets.prefix(2).map { #"{"entity":{"reference":"Patient/\#($0.csi.rawValue)"}}"# }.joined(separator: ",")
            let created = try await HTTPExchange.send(.POST, server.baseURL + "/fhir/Group", headers: [("Authorization", "Bearer \(token)"),
                                                                                                     ("Content-Type", "application/fhir+json")],
                                                      body: Array(#"{"resourceType":"Group","type":"person","actual":true,"member":[\#(members)]}"#.utf8))
            try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            let group = try #require(try JSONParser.parse(created.body)["id"]?.stringValue)

            // smart-fetch bulk.
            let output = scratch + "/out"
            let run = try await SmartFetchPeer.run(["bulk", output, "--fhir-url", server.baseURL + "/fhir", "--smart-client-id", client.rawValue,
                                                    "--smart-key", keyFile, "--group", group, "--type", "Observation,Condition",
                                                    "--no-default-filters", "--no-compression"])
            try #require(run.status == 0, "smart-fetch: \(run.output)\n\(run.error)")
            var exported: [String: JSONValue] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: output).sorted()
            where name.hasSuffix(".ndjson") && (name.hasPrefix("Observation.") || name.hasPrefix("Condition.")) {
                let bytes = try #require(FileManager.default.contents(atPath: output + "/" + name))
                for line in Array(bytes).split(separator: UInt8(ascii: "\n")) {
                    let resource = try JSONParser.parse(Array(line))
                    let reference = "\(resource["resourceType"]?.stringValue ?? "")/\(resource["id"]?.stringValue ?? "")"
                    #expect(exported.updateValue(resource, forKey: reference) == nil, "\(reference) twice")
                }
            }

            // What a search of each granting patient returns (its own token), resource for resource.
            var searched: [String: JSONValue] = [:]
            for wallet in wallets.prefix(2) {
                let walletAnswer = try await world.clientCredentials(wallet, scope: "patient/*.rs conf/V", audience: tokenEndpoint)
                let walletToken = try #require(world.json(walletAnswer)["access_token"]?.stringValue)
                for type in ["Observation", "Condition"] {
                    let bundle = try await HTTPExchange.send(.GET, server.baseURL + "/fhir/\(type)?_count=1000",
                                                             headers: [("Authorization", "Bearer \(walletToken)")])
                    try #require(bundle.status == 200, "\(String(decoding: bundle.body, as: UTF8.self))")
                    for entry in try JSONParser.parse(bundle.body)["entry"]?.arrayValue ?? [] {
                        let resource = try #require(entry["resource"])
                        searched["\(type)/\(resource["id"]?.stringValue ?? "")"] = resource
                    }
                }
            }
            #expect(searched.count == 2 * 43)
            #expect(exported.keys.sorted() == searched.keys.sorted())
            for (key, resource) in searched { #expect(exported[key] == resource, "\(key)") }
            #expect(!exported.keys.contains { $0.contains("-2-") })
            // smart-fetch deleted the job when it was done (its log names the status URL it used).
            let log = String(decoding: FileManager.default.contents(atPath: output + "/log.ndjson") ?? Data(), as: UTF8.self)
            #expect(log.contains("\"export_complete\""))
        }
    }
}

/// The `smart-fetch` command of the peers venv.
enum SmartFetchPeer {
    static var executable: String? {
        guard let venv = ProcessInfo.processInfo.environment["OPENHEALTHKIT_PEERS_VENV"], !venv.isEmpty else { return nil }
        let path = "\(venv)/bin/smart-fetch"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// The key set smart-fetch reads (`--smart-key`): the private JWK with `kid`, `alg` and `key_ops: ["sign"]`, mode 0600.
    static func writePrivateKeySet(_ key: BackendTestKey, to path: String) throws {
        guard case .p384(let privateKey) = key.material, var object = key.jwk.objectValue else { throw TestSkip("an ES384 key is expected") }
        object.append("d", BackendTestKey.b64(privateKey.rawRepresentation))
        object.append("key_ops", strings: ["sign"])
        let set = JSONValue.object(JSONObject(members: [JSONMember(key: "keys", value: .array([.object(object)]))]))
        guard FileManager.default.createFile(atPath: path, contents: Data(JSONWriter.serialize(set)), attributes: [.posixPermissions: 0o600]) else {
            throw TestSkip("cannot write \(path)")
        }
    }

    /// Runs smart-fetch with `arguments`; its exit status, standard output and error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        guard let executable else { throw TestSkip("no smart-fetch in the peers venv") }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let process = ChildProcess()
                    process.executableURL = URL(fileURLWithPath: executable)
                    process.arguments = arguments
                    var environment = ProcessInfo.processInfo.environment
                    // Plain output, no terminal width games.
                    environment["NO_COLOR"] = "1"
                    environment["COLUMNS"] = "200"
                    process.environment = environment
                    let output = Pipe(), error = Pipe()
                    process.standardOutput = .pipe(output)
                    process.standardError = .pipe(error)
                    try process.run()
                    let out = output.fileHandleForReading.readDataToEndOfFile()
                    let err = error.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
