import ExactJSON
import FhirBlocks
import FhirBlocksServer
import Foundation
import Testing
import TestSupport

/// A real SMART on FHIR client, Python `fhirclient` (scripts/fhirclient-backend.py), against
/// the server over loopback: discovery from /metadata, backend-services token with an ES256
/// client assertion, the patient the token names, and a search of their Observations.
@Suite(.enabled(if: FhirClientPeer.python != nil,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with fhirclient (scripts/test.sh makes one) to run the fhirclient interop test"))
struct FhirClientInteropTests {
    @Test func fhirclientBackendServices() async throws {
        let world = try await TestWorld.make(.sqlite, clock: .system, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        try await withTeardown({ await server.stop(); await world.close() }) {
            let wallet = try await world.register(.wallet("w", firstName: "Alice"))
            let app = try await world.register(.app("a"))
            let walletGrant = world.json(try await world.clientCredentials(wallet, scope: "patient/*.cruds conf/V", audience: "\(server.baseURL)/oauth/token"))
            let walletToken = try #require(walletGrant["access_token"]?.stringValue)
            #expect(await world.fhir("PUT", "Patient/alice", token: walletToken,
                                     body: Array((#"{"resourceType":"Patient","id":"alice","# +
                                                  #""name":[{"family":"Test","given":["Alice"]}],"gender":"female"}"#).utf8)).status == 201)
            #expect(await world.fhir("PUT", "Observation/o1", token: walletToken,
                                     body: Array((#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"pulse"},"# +
                                                  #""valueQuantity":{"value":61.0,"unit":"/min"}}"#).utf8)).status == 201)
            #expect(try await world.grant(from: wallet, to: [app], resource: "*", confidentiality: "N", sensitivity: []).status == 200)

            let jwt = try world.assertion(app, audience: "\(server.baseURL)/oauth/token")
            let output = try await FhirClientPeer.run(["\(server.baseURL)/fhir", app.csi.rawValue, jwt, "patient/Patient.read patient/Observation.read"])
            #expect(output.status == 0, "\(output.error)")
            let result = try #require(try JSONParser.parse(Array(output.output.utf8)).objectValue)
            #expect(result["ready"] == .bool(true))
            #expect(result["patient_id"] == .string(wallet.csi.rawValue))
            #expect(result["patient"]?.objectValue?["id"] == .string("alice"))
            let observations = result["observations"]?.arrayValue ?? []
            #expect(observations.count == 1 && observations.first?.objectValue?["id"] == .string("o1"))

            // A second run with the same assertion is a replay: fhirclient reports the refusal.
            let replay = try await FhirClientPeer.run(["\(server.baseURL)/fhir", app.csi.rawValue, jwt, "patient/Patient.read"])
            #expect(replay.status != 0)
        }
    }
}

/// The Python venv with fhirclient.
enum FhirClientPeer {
    static var python: String? {
        guard let venv = ProcessInfo.processInfo.environment["OPENHEALTHKIT_PEERS_VENV"], !venv.isEmpty else { return nil }
        let path = "\(venv)/bin/python"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static var script: String { script(named: "fhirclient-backend.py") }

    /// The path of a script in `scripts/`.
    static func script(named name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/\(name)").path
    }

    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        try await run(arguments, scriptPath: script)
    }

    /// Whether the venv also has `fhirpy` (scripts/test.sh installs it with the other peers).
    static let hasFhirpy: Bool = {
        guard let python else { return false }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import fhirpy"]
        process.standardError = .null
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Runs the venv's Python on the script at `scriptPath` with `arguments`.
    static func run(_ arguments: [String], scriptPath script: String) async throws -> (status: Int32, output: String, error: String) {
        guard let python else { throw TestSkip("no peers venv") }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let process = ChildProcess()
                    process.executableURL = URL(fileURLWithPath: python)
                    process.arguments = [script] + arguments
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
