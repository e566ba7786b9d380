import ExactJSON
import FhirBlocks
import FhirBlocksClient
import FhirBlocksServer
import Foundation
import Testing
import TestSupport

/// SMART standalone launch by a real SMART client, Python `fhirclient`
/// (scripts/fhirclient-standalone.py), against the server on loopback: it registers itself,
/// builds the authorize URL with PKCE, shows the user code; the test plays the person and
/// approves (or declines) with the wallet through the SDK; fhirclient exchanges the code, reads
/// the patient and their Observations and refreshes its token.
@Suite(.enabled(if: FhirClientPeer.python != nil,
                "set OPENHEALTHKIT_PEERS_VENV to a Python venv with fhirclient (scripts/test.sh makes one) to run the fhirclient interop test"))
struct FhirClientStandaloneLaunchTests {
    @Test func fhirclientStandaloneLaunchApprovedByTheWallet() async throws {
        try await Self.withServer { client in
            let wallet = try await Self.walletWithData(client)
            let peer = try InteractivePeer(arguments: ["\(client.baseURL.text)/fhir", "patient/Patient.read patient/Observation.read offline_access"])
            let userCode = try await peer.readLine()
            let decision = try await wallet.approve(userCode: userCode)
            #expect(decision.status == "approved")
            try peer.write("approved\n")
            let output = try await peer.finish()
            #expect(output.status == 0, "\(output.error)")
            let result = try #require(try JSONParser.parse(Array(output.output.utf8)).objectValue)
            #expect(result["ready"] == .bool(true))
            #expect(result["patient_id"] == .string(wallet.identity.csiGuid.rawValue))
            #expect(result["patient"]?.objectValue?["id"] == .string("alice"))
            let observations = result["observations"]?.arrayValue ?? []
            #expect(observations.count == 1 && observations.first?.objectValue?["id"] == .string("o1"))
            #expect(result["refreshed"] == .bool(true) && result["new_access_token"] == .bool(true))
            #expect(result["observations_after_refresh"] == .number("1"))
        }
    }

    @Test func fhirclientSeesADeclinedApproval() async throws {
        try await Self.withServer { client in
            let wallet = try await Self.walletWithData(client)
            let peer = try InteractivePeer(arguments: ["\(client.baseURL.text)/fhir", "patient/Observation.read"])
            let userCode = try await peer.readLine()
            #expect(try await wallet.decline(userCode: userCode).status == "declined")
            try peer.write("declined\n")
            let output = try await peer.finish()
            #expect(output.status == 3, "\(output.error)")
            let result = try #require(try JSONParser.parse(Array(output.output.utf8)).objectValue)
            #expect(result["oauth_error"] == .string("access_denied") && result["state_echoed"] == .bool(true))
        }
    }

    private static func withServer(_ body: (FhirBlocksClient) async throws -> Void) async throws {
        let world = try await TestWorld.make(.sqlite, clock: .system, publicURL: nil)
        let server = try await RunningServer.start(world.service)
        let client = try FhirBlocksClient(baseURL: server.baseURL, configuration: FhirBlocksClientConfiguration(requestTimeout: .seconds(300)))
        try await withTeardown({ try? await client.shutdown(); await server.stop(); await world.close() }) {
            try await body(client)
        }
    }

    private static func walletWithData(_ client: FhirBlocksClient) async throws -> WalletClient {
        let wallet = try await WalletClient.register(client: client, claims: PatientClaims(dateOfBirth: "1970-01-01", firstName: "Alice",
                                                                                          lastName: "Test", gender: "F"))
        _ = try await wallet.store(try JSONParser.parse(#"{"resourceType":"Patient","id":"alice","name":[{"family":"Test"}]}"#))
        _ = try await wallet.store(try JSONParser.parse(#"{"resourceType":"Observation","id":"o1","status":"final","code":{"text":"pulse"}}"#))
        return wallet
    }
}

/// The standalone-launch script as a child process the test talks to over its stdin and stdout.
final class InteractivePeer: @unchecked Sendable {
    private let process = ChildProcess()
    private let input = Pipe()
    private let output = Pipe()
    private let error = Pipe()

    init(arguments: [String]) throws {
        guard let python = FhirClientPeer.python else { throw TestSkip("no peers venv") }
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [FhirClientPeer.script(named: "fhirclient-standalone.py")] + arguments
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(error)
        try process.run()
    }

    /// The first line the script prints (read byte by byte, so nothing after it is consumed).
    func readLine() async throws -> String {
        let handle = output.fileHandleForReading
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.readData(ofLength: 1)
                    guard let byte = chunk.first else { break }
                    if byte == UInt8(ascii: "\n") { break }
                    bytes.append(byte)
                }
                if bytes.isEmpty {
                    continuation.resume(throwing: TestSkip("the script printed nothing: "
                                                           + String(decoding: self.error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)))
                } else {
                    continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
                }
            }
        }
    }

    func write(_ text: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try input.fileHandleForWriting.close()
    }

    /// Waits for the script; its status, the rest of its output and its error output.
    func finish() async throws -> (status: Int32, output: String, error: String) {
        let process = self.process, output = self.output, error = self.error
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let out = output.fileHandleForReading.readDataToEndOfFile()
                let err = error.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)))
            }
        }
    }
}
